/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fault_loop.c - device faults on the loopback device
 * (net_gvirtio_loop), in-process EAL:
 *  - DEVICE_NEEDS_RESET while frames are in flight, 50 times, split and
 *    packed: the link goes down with an LSC event, the application gets
 *    RTE_ETH_EVENT_INTR_RESET, bursts return 0 and leave the rings alone,
 *    a start without a reset fails, rte_eth_dev_reset + configure + queue
 *    set-up + start bring traffic back, and no mbuf is lost;
 *  - the RX pool exhausted for 2 s (the application holds every mbuf)
 *    while the device keeps sending: nothing is received, every failed
 *    allocation is counted in rx_nombuf, the device counts its drops;
 *    once the mbufs are given back RX resumes, in order and intact, and
 *    after stop every mbuf is back.
 */
#include <rte_cycles.h>

#include "gv_test_loop.h"

static unsigned int ev_lsc, ev_reset;

static int ev_cb(uint16_t port, enum rte_eth_event_type ev, void *a, void *r)
{
	(void)port;
	(void)a;
	(void)r;
	if (ev == RTE_ETH_EVENT_INTR_LSC)
		ev_lsc++;
	else if (ev == RTE_ETH_EVENT_INTR_RESET)
		ev_reset++;
	return 0;
}

static double now(void)
{
	return (double)rte_get_timer_cycles() / (double)rte_get_timer_hz();
}

/* Configure nq pairs (LSC on), queues of nd descriptors from `pool`, start. */
static void setup_start(uint16_t port, uint16_t nq, uint16_t nd, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = 1;
	assert_int_equal(rte_eth_dev_configure(port, nq, nq, &conf), 0);
	for (uint16_t q = 0; q < nq; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(port, q, nd, SOCKET_ID_ANY, NULL, pool), 0);
		assert_int_equal(rte_eth_tx_queue_setup(port, q, nd, SOCKET_ID_ANY, NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(port), 0);
	assert_int_equal(rte_eth_promiscuous_enable(port), 0);
}

/* n frames through the port and back, each checked (sequence, bytes). */
static void traffic(const struct port *p, uint32_t n, uint32_t seq0)
{
	struct rte_ether_addr mac;
	uint32_t seq = seq0, rx = 0;

	rte_eth_macaddr_get(p->id, &mac);
	while (rx < n) {
		struct rte_mbuf *tx[32], *r[64];
		uint16_t k = (uint16_t)RTE_MIN(32u, n - rx);

		for (uint16_t i = 0; i < k; i++)
			tx[i] = frame(mp, &mac, flen(seq + i), seq + i, -1);
		send_all(p, 0, tx, k);
		assert_int_equal(recv_all(p, 0, r, 64), k);
		for (uint16_t i = 0; i < k; i++) {
			assert_int_equal(r[i]->pkt_len, flen(seq + i));
			check_frame(r[i], &mac, seq + i);
		}
		free_all(r, k);
		seq += k;
		rx += k;
	}
}

static bool link_up(uint16_t port)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	assert_int_equal(rte_eth_link_get_nowait(port, &link), 0);
	return link.link_status == RTE_ETH_LINK_UP;
}

/* ------------------------------------------------------- NEEDS_RESET -- */

static void needs_reset(const char *args)
{
	struct rte_mempool *rxp = rte_pktmbuf_pool_create("nr_rx", 1023, 0, 0,
							  RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_ether_addr mac;
	struct port p;
	const unsigned int rounds = 50;
	uint32_t seq = 0;

	assert_non_null(rxp);
	assert_int_equal(port_probe(&p, args), 0);
	p.nq = 1;
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(rte_eth_dev_callback_register(p.id, RTE_ETH_EVENT_INTR_LSC, ev_cb, NULL), 0);
	assert_int_equal(rte_eth_dev_callback_register(p.id, RTE_ETH_EVENT_INTR_RESET, ev_cb, NULL),
			 0);
	setup_start(p.id, 1, 256, rxp);
	for (unsigned int i = 0; i < rounds; i++) {
		unsigned int lsc0 = ev_lsc, rst0 = ev_reset, inflight = 1 + (i * 7) % 40;
		struct gv_loop_stats before, after;
		struct rte_mbuf *tx[48], *r[48];
		struct rte_eth_stats st;

		traffic(&p, 64, seq);
		seq += 64;
		assert_true(link_up(p.id));
		/* Frames in flight: sent, delivered into the RX ring, not received yet. */
		for (unsigned int j = 0; j < inflight; j++)
			tx[j] = frame(mp, &mac, 200, seq + j, -1);
		send_all(&p, 0, tx, (uint16_t)inflight);
		seq += inflight;

		assert_int_equal(rte_pmd_gvirtio_loop_needs_reset(p.id), 0);
		assert_int_equal(ev_reset, rst0 + 1);
		assert_int_equal(ev_lsc, lsc0 + 1);
		assert_false(link_up(p.id));
		/* Bursts move nothing and the device sees nothing. */
		before = stats(&p);
		for (int j = 0; j < 8; j++) {
			struct rte_mbuf *m = frame(mp, &mac, 100, 0, -1);

			assert_int_equal(rte_eth_tx_burst(p.id, 0, &m, 1), 0);
			rte_pktmbuf_free(m);
			assert_int_equal(rte_eth_rx_burst(p.id, 0, r, 48), 0);
		}
		after = stats(&p);
		assert_int_equal(after.tx_chains, before.tx_chains);
		assert_int_equal(after.rx_delivered, before.rx_delivered);
		if (i == 0) {
			/* Without a reset the device refuses to start again. */
			assert_int_equal(rte_eth_dev_stop(p.id), 0);
			assert_true(rte_eth_dev_start(p.id) < 0);
			assert_int_equal(rte_mempool_avail_count(rxp), rxp->size);
		}
		/* Recovery: reset, configure, queues, start. */
		assert_int_equal(rte_eth_dev_reset(p.id), 0);
		assert_int_equal(rte_mempool_avail_count(rxp), rxp->size);
		assert_int_equal(rte_mempool_avail_count(mp), mp->size);
		setup_start(p.id, 1, (uint16_t)(64u << (i % 4)), rxp);
		assert_true(link_up(p.id));
		assert_int_equal(rte_eth_stats_get(p.id, &st), 0);
		traffic(&p, 64, seq);
		seq += 64;
	}
	assert_int_equal(rte_eth_dev_stop(p.id), 0);
	assert_int_equal(rte_mempool_avail_count(rxp), rxp->size);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
	assert_int_equal(rte_eal_hotplug_remove("vdev", p.name), 0);
	rte_mempool_free(rxp);
	print_message("  %s: %u NEEDS_RESET events, each recovered\n", args, rounds);
}

static void test_needs_reset_split(void **state)
{
	(void)state;
	needs_reset("packed_vq=0");
}

static void test_needs_reset_packed(void **state)
{
	(void)state;
	needs_reset("packed_vq=1,mrg_rxbuf=0");
}

/* ----------------------------------------------------- pool exhausted -- */

#define EX_POOL 300

static void pool_exhausted(const char *args, double hold_s)
{
	static unsigned int pool_seq;
	char name[32];
	struct rte_mempool *rxp;
	static struct rte_mbuf *held[EX_POOL];
	struct rte_ether_addr mac;
	struct rte_eth_stats st0, st1, st2;
	struct gv_loop_stats d0, d1;
	struct port p;
	unsigned int nheld = 0, sent = 0, polls = 0;
	double t, stalled_at = 0;

	snprintf(name, sizeof(name), "ex_rx%u", pool_seq++);
	rxp = rte_pktmbuf_pool_create(name, EX_POOL, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				      SOCKET_ID_ANY);
	assert_non_null(rxp);
	assert_int_equal(port_probe(&p, args), 0);
	p.nq = 1;
	rte_eth_macaddr_get(p.id, &mac);
	setup_start(p.id, 1, 256, rxp);
	assert_int_equal(rte_eth_stats_get(p.id, &st0), 0);
	d0 = stats(&p);

	/* The application keeps every frame it gets, for hold_s seconds. */
	t = now();
	while (now() - t < hold_s) {
		struct rte_mbuf *m = frame(mp, &mac, 200, sent, -1);
		uint16_t k, n;

		k = rte_eth_tx_burst(p.id, 0, &m, 1);
		if (k == 0)
			rte_pktmbuf_free(m);
		sent += k;
		n = rte_eth_rx_burst(p.id, 0, held + nheld, (uint16_t)RTE_MIN(32u, EX_POOL - nheld));
		nheld += n;
		polls++;
		/* The device delivers as the frame is sent: none came, RX is dry. */
		if (!stalled_at && k == 1 && n == 0 && rte_mempool_avail_count(rxp) == 0)
			stalled_at = now();
	}
	if (!stalled_at)
		fail_msg("RX never ran dry (%u frames held, %u mbufs free)", nheld,
			 rte_mempool_avail_count(rxp));
	print_message("  %s: pool empty after %.6f s, %u frames held, %u polls in %.1f s\n", args,
		      stalled_at - t, nheld, polls, hold_s);
	/* Most of the time dry: refills failed and were counted, the device dropped. */
	assert_true(now() - stalled_at >= hold_s / 2);
	assert_int_equal(rte_eth_stats_get(p.id, &st1), 0);
	d1 = stats(&p);
	assert_true(st1.rx_nombuf > st0.rx_nombuf);
	assert_true(d1.drop_no_buffer > d0.drop_no_buffer);
	assert_int_equal(st1.ipackets - st0.ipackets, nheld);
	/* Every held frame is one the device delivered, in order. */
	for (unsigned int j = 1; j < nheld; j++) {
		uint32_t a, b;
		uint8_t buf[64];

		pkt_copy(held[j - 1], 46, buf);
		memcpy(&a, buf + 42, 4);
		pkt_copy(held[j], 46, buf);
		memcpy(&b, buf + 42, 4);
		assert_true(b > a);
	}
	/* Still dry: more polls, more counted failures, nothing received. */
	for (int j = 0; j < 100; j++) {
		struct rte_mbuf *x[8];

		assert_int_equal(rte_eth_rx_burst(p.id, 0, x, 8), 0);
	}
	assert_int_equal(rte_eth_stats_get(p.id, &st2), 0);
	assert_true(st2.rx_nombuf > st1.rx_nombuf);

	/* The mbufs come back: the next polls refill the ring and RX resumes. */
	rte_pktmbuf_free_bulk(held, nheld);
	t = now();
	for (;;) {
		struct rte_mbuf *m = frame(mp, &mac, 200, 0, -1), *x[8];
		uint16_t n;

		send_all(&p, 0, &m, 1);
		n = rte_eth_rx_burst(p.id, 0, x, 8);
		free_all(x, n);
		if (n)
			break;
		if (now() - t > 5.0)
			fail_msg("RX did not resume within 5 s of the mbufs coming back");
	}
	print_message("  RX resumed %.6f s after the mbufs came back\n", now() - t);
	traffic(&p, 1000, 1u << 20);
	assert_int_equal(rte_eth_stats_get(p.id, &st2), 0);
	print_message("  rx_nombuf %" PRIu64 " (%" PRIu64 " during the hold), device drops %" PRIu64
		      "\n", st2.rx_nombuf - st0.rx_nombuf, st1.rx_nombuf - st0.rx_nombuf,
		      d1.drop_no_buffer - d0.drop_no_buffer);
	assert_int_equal(rte_eth_dev_stop(p.id), 0);
	assert_int_equal(rte_mempool_avail_count(rxp), rxp->size);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
	assert_int_equal(rte_eal_hotplug_remove("vdev", p.name), 0);
	rte_mempool_free(rxp);
}

static void test_pool_exhausted_mrg(void **state)
{
	(void)state;
	pool_exhausted("packed_vq=0,mrg_rxbuf=1", 2.0);
}

static void test_pool_exhausted_simple(void **state)
{
	(void)state;
	pool_exhausted("packed_vq=1,mrg_rxbuf=0,datapath=simple", 2.0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_needs_reset_split),
		cmocka_unit_test(test_needs_reset_packed),
		cmocka_unit_test(test_pool_exhausted_mrg),
		cmocka_unit_test(test_pool_exhausted_simple),
	};
	int ret;

	(void)argc;
	if (gvl_eal_init(argv[0]))
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	rte_eal_cleanup();
	return ret;
}
