/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_vhost_mq.c - gvirtio's multi-queue and control plane against DPDK's
 * vhost-user back-end (net_vhost, 22.11), both in this process:
 *  - 4 queue pairs (net_vhost queues=4): traffic on every pair both ways,
 *    each frame carrying its queue id and arriving on the same queue on the
 *    other side, in order; per-queue counters (ethdev stats, gvirtio's
 *    xstats, net_vhost's stats) non-zero, exact and summing to the totals.
 *  - the control commands on vhost-user, where gvirtio plays the control
 *    queue itself (net_vhost has none of its own): the queue-pair count
 *    becomes the ring enables the back-end sees (2 of 4 pairs, 4, stopped,
 *    2 again); the RX modes
 *    and filter tables only in the state the back-end really has
 *    (promiscuous, all-multicast, no tables), others refused; MAC set.
 *  - link status change events: the back-end goes (link down event) and a
 *    new one connects (link up event, traffic again), gvirtio as server.
 * Split and packed rings for the traffic.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_dev.h>
#include <rte_eth_vhost.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gv_pmd_harness.h"

#define NQ 4
#define F_MQ 22

/* Frames of queue q: sequence numbers (q << 32) | i, q-dependent length. */
static uint64_t qseq(uint16_t q, uint32_t i)
{
	return (uint64_t)q << 32 | i;
}

static uint32_t qlen(uint16_t q)
{
	return 100 + 64u * q;
}

/*
 * count[q] frames from tx_port's queue q to rx_port's queue q, all queues
 * at once; each must arrive on its own queue, in order, intact.
 */
static void spread(uint16_t tx_port, uint16_t rx_port, struct rte_mempool *mp,
		   const uint32_t *count, uint16_t nq)
{
	uint32_t sent[NQ] = { 0 }, got[NQ] = { 0 }, done = 0;
	double end = gvh_now() + 20.0;

	while (done < nq) {
		assert_true(gvh_now() < end);
		for (uint16_t q = 0; q < nq; q++) {
			struct rte_mbuf *m[16];
			uint16_t n = 0, k;

			while (sent[q] + n < count[q] && n < 16) {
				m[n] = gvh_pkt_alloc(mp, qseq(q, sent[q] + n), qlen(q));
				if (!m[n])
					break;
				n++;
			}
			k = n ? rte_eth_tx_burst(tx_port, q, m, n) : 0;
			if (k < n)
				rte_pktmbuf_free_bulk(m + k, n - k);
			sent[q] += k;
			n = rte_eth_rx_burst(rx_port, q, m, 16);
			for (uint16_t i = 0; i < n; i++) {
				int r = gvh_pkt_check(m[i], qseq(q, got[q]), qlen(q));

				if (r)
					fail_msg("port %u queue %u: frame %u: error %d (%u bytes)",
						 rx_port, q, got[q], r, m[i]->pkt_len);
				got[q]++;
			}
			rte_pktmbuf_free_bulk(m, n);
			if (got[q] > count[q])
				fail_msg("queue %u: %u frames, %u sent", q, got[q], count[q]);
			if (n && got[q] == count[q])
				done++;
		}
	}
}

static void check_queue_stats(uint16_t port, const uint32_t *in, const uint32_t *out,
			      uint16_t nq, bool xstats)
{
	struct rte_eth_stats st;
	uint64_t si = 0, so = 0, v;
	char name[64];

	assert_int_equal(rte_eth_stats_get(port, &st), 0);
	for (uint16_t q = 0; q < nq; q++) {
		assert_true(st.q_ipackets[q] > 0);
		assert_true(st.q_opackets[q] > 0);
		assert_int_equal(st.q_ipackets[q], in[q]);
		assert_int_equal(st.q_opackets[q], out[q]);
		si += st.q_ipackets[q];
		so += st.q_opackets[q];
		if (!xstats)
			continue;
		snprintf(name, sizeof(name), "rx_q%u_good_packets", q);
		assert_int_equal(gvh_xstat(port, name, &v), 0);
		assert_int_equal(v, in[q]);
		snprintf(name, sizeof(name), "tx_q%u_good_packets", q);
		assert_int_equal(gvh_xstat(port, name, &v), 0);
		assert_int_equal(v, out[q]);
	}
	assert_int_equal(st.ipackets, si);
	assert_int_equal(st.opackets, so);
}

/* ---------------------------------------------------------- multi-queue -- */

static void mq_traffic(void **state)
{
	const bool packed = *state != NULL;
	struct rte_mempool *gmp = gvh_pool(4096), *vmp = gvh_pool(4096);
	struct gvh_port_conf vc = { .nb_queues = NQ, .mp = vmp }, gc = { .nb_queues = NQ, .mp = gmp };
	const uint32_t up[NQ] = { 300, 410, 520, 630 }, down[NQ] = { 350, 240, 530, 120 };
	struct gvh_pair p;
	uint64_t feat = 0;
	char args[64];

	assert_non_null(gmp);
	assert_non_null(vmp);
	gvh_pair_init(&p);
	if (gvh_vhost_add(&p, false, &vc))
		fail_msg("%s", gvh_error());
	snprintf(args, sizeof(args), "queues=%u,packed_vq=%d", NQ, packed);
	if (gvh_gv_add(&p, args, &gc) || gvh_pair_start(&p, 10.0))
		fail_msg("%s", gvh_error());
	assert_int_equal(gvh_vhost_features(p.vh, &feat), 0);
	assert_true(feat & (1ULL << F_MQ));

	spread(p.gv, p.vh, gmp, up, NQ);
	spread(p.vh, p.gv, vmp, down, NQ);
	check_queue_stats(p.gv, down, up, NQ, true);
	check_queue_stats(p.vh, up, down, NQ, false);

	gvh_pair_destroy(&p);
	assert_true(gvh_pool_full(gmp));
	assert_true(gvh_pool_full(vmp));
	rte_mempool_free(gmp);
	rte_mempool_free(vmp);
}

/* -------------------------------------------------------------- control -- */

/* The back-end's view of its vrings (vhost queue events, drained). */
struct vring_view {
	int8_t en[2 * NQ]; /* -1: never reported; index 2 * queue + rx */
};

static void drain_events(uint16_t vh, struct vring_view *v)
{
	struct rte_eth_vhost_queue_event ev;

	while (rte_eth_vhost_get_queue_event(vh, &ev) == 0)
		if (ev.queue_id < NQ)
			v->en[2 * ev.queue_id + ev.rx] = ev.enable;
}

/*
 * Wait until the back-end has pairs 0..n-1 enabled (both rings) and the
 * others not (strict: reported disabled). The vhost library reports a
 * ring's state after it answered the message, hence the wait.
 */
static void wait_pairs(uint16_t vh, struct vring_view *v, uint16_t n, bool strict)
{
	double end = gvh_now() + 10.0;

	for (;;) {
		bool ok = true;

		drain_events(vh, v);
		for (uint16_t i = 0; i < 2 * NQ; i++)
			ok = ok && (i < 2 * n ? v->en[i] == 1 : strict ? v->en[i] == 0 : v->en[i] != 1);
		if (ok)
			return;
		if (gvh_now() > end)
			fail_msg("the back-end's rings are not those of %u queue pairs: "
				 "%d %d %d %d %d %d %d %d", n, v->en[0], v->en[1], v->en[2],
				 v->en[3], v->en[4], v->en[5], v->en[6], v->en[7]);
		sched_yield();
	}
}

static void setup_gv(uint16_t port, uint16_t nq, struct rte_mempool *mp)
{
	struct rte_eth_conf conf = { 0 };

	assert_int_equal(rte_eth_dev_configure(port, nq, nq, &conf), 0);
	for (uint16_t q = 0; q < nq; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(port, q, 256, 0, NULL, mp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(port, q, 256, 0, NULL), 0);
	}
}

/*
 * The number of queue pairs, as the back-end sees it: exactly the rings of
 * the pairs in use are enabled (SET_VRING_ENABLE at start; gvirtio's
 * emulated VQ_PAIRS_SET asserts the same set), 2 of the 4, then 4 after a
 * reconfiguration, none after a stop, then 2 again; the back-end
 * sends nothing on a pair that is not enabled.
 */
static void ctrl_queue_pairs(void **state)
{
	struct rte_mempool *gmp = gvh_pool(4096), *vmp = gvh_pool(4096);
	struct gvh_port_conf vc = { .nb_queues = NQ, .mp = vmp };
	const uint32_t two[NQ] = { 100, 150 }, four[NQ] = { 100, 150, 200, 250 };
	struct vring_view v;
	struct gvh_pair p;
	char args[256];

	(void)state;
	memset(&v, -1, sizeof(v));
	assert_non_null(gmp);
	assert_non_null(vmp);
	gvh_pair_init(&p);
	if (gvh_vhost_add(&p, false, &vc))
		fail_msg("%s", gvh_error());
	snprintf(args, sizeof(args), "%s,path=%s,queues=%u", p.gv_name, p.sock, NQ);
	assert_int_equal(rte_dev_probe(args), 0);
	assert_int_equal(rte_eth_dev_get_port_by_name(p.gv_name, &p.gv), 0);
	setup_gv(p.gv, 2, gmp);
	if (gvh_pair_start(&p, 10.0))
		fail_msg("%s", gvh_error());
	wait_pairs(p.vh, &v, 2, false);
	spread(p.gv, p.vh, gmp, two, 2);
	spread(p.vh, p.gv, vmp, two, 2);
	/* The back-end cannot send on a pair the driver did not enable. */
	for (uint16_t q = 2; q < NQ; q++) {
		struct rte_mbuf *m = gvh_pkt_alloc(vmp, qseq(q, 0), qlen(q));

		assert_non_null(m);
		assert_int_equal(rte_eth_tx_burst(p.vh, q, &m, 1), 0);
		rte_pktmbuf_free(m);
	}

	assert_int_equal(rte_eth_dev_stop(p.gv), 0);
	setup_gv(p.gv, NQ, gmp);
	assert_int_equal(rte_eth_dev_start(p.gv), 0);
	if (gvh_wait_link(p.gv, true, 10.0))
		fail_msg("%s", gvh_error());
	wait_pairs(p.vh, &v, NQ, true);
	spread(p.gv, p.vh, gmp, four, NQ);
	spread(p.vh, p.gv, vmp, four, NQ);

	/*
	 * Stopped: the back-end's device is gone (net_vhost forgets its
	 * rings' states then, without events): all disabled from here.
	 */
	assert_int_equal(rte_eth_dev_stop(p.gv), 0);
	if (gvh_wait_link(p.vh, false, 10.0))
		fail_msg("%s", gvh_error());
	drain_events(p.vh, &v);
	memset(&v, 0, sizeof(v));
	/* Back to 2 pairs: the other two stay disabled, nothing goes there. */
	setup_gv(p.gv, 2, gmp);
	assert_int_equal(rte_eth_dev_start(p.gv), 0);
	if (gvh_wait_link(p.gv, true, 10.0))
		fail_msg("%s", gvh_error());
	wait_pairs(p.vh, &v, 2, true);
	for (uint16_t q = 2; q < NQ; q++) {
		struct rte_mbuf *m = gvh_pkt_alloc(vmp, qseq(q, 0), qlen(q));

		assert_non_null(m);
		assert_int_equal(rte_eth_tx_burst(p.vh, q, &m, 1), 0);
		rte_pktmbuf_free(m);
	}
	spread(p.gv, p.vh, gmp, two, 2);
	spread(p.vh, p.gv, vmp, two, 2);
	drain_events(p.vh, &v);
	for (uint16_t i = 4; i < 2 * NQ; i++)
		assert_int_equal(v.en[i], 0);

	gvh_pair_destroy(&p);
	assert_true(gvh_pool_full(gmp));
	assert_true(gvh_pool_full(vmp));
	rte_mempool_free(gmp);
	rte_mempool_free(vmp);
}

/*
 * RX modes, MAC tables and VLAN filters: net_vhost delivers every frame
 * it is given, so gvirtio acknowledges them as DPDK's virtio_user does
 * (the state is recorded, nothing is filtered) and says so once; a frame
 * to a foreign unicast address still arrives. The MAC address is the
 * driver's own (set succeeds).
 */
static void ctrl_rx_modes(void **state)
{
	struct rte_mempool *gmp = gvh_pool(2048), *vmp = gvh_pool(2048);
	struct gvh_port_conf vc = { .mp = vmp };
	struct gvh_port_conf gc = { .mp = gmp, .rx_offloads = RTE_ETH_RX_OFFLOAD_VLAN_FILTER };
	struct rte_ether_addr mac = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } }, got;
	struct rte_ether_addr mc = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } };
	const uint32_t one[1] = { 50 };
	struct rte_eth_dev_info info;
	struct gvh_pair p;

	(void)state;
	assert_non_null(gmp);
	assert_non_null(vmp);
	gvh_pair_init(&p);
	if (gvh_vhost_add(&p, false, &vc) || gvh_gv_add(&p, "", &gc) ||
	    gvh_pair_start(&p, 10.0))
		fail_msg("%s", gvh_error());

	assert_int_equal(rte_eth_dev_info_get(p.gv, &info), 0);
	assert_true(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER);
	assert_int_equal(rte_eth_promiscuous_enable(p.gv), 0);
	assert_int_equal(rte_eth_promiscuous_get(p.gv), 1);
	assert_int_equal(rte_eth_promiscuous_disable(p.gv), 0);
	assert_int_equal(rte_eth_promiscuous_get(p.gv), 0);
	assert_int_equal(rte_eth_allmulticast_enable(p.gv), 0);
	assert_int_equal(rte_eth_allmulticast_get(p.gv), 1);
	assert_int_equal(rte_eth_allmulticast_disable(p.gv), 0);
	assert_int_equal(rte_eth_allmulticast_get(p.gv), 0);
	assert_int_equal(rte_eth_dev_mac_addr_add(p.gv, &mac, 0), 0);
	assert_int_equal(rte_eth_dev_mac_addr_remove(p.gv, &mac), 0);
	assert_int_equal(rte_eth_dev_set_mc_addr_list(p.gv, &mc, 1), 0);
	assert_int_equal(rte_eth_dev_set_mc_addr_list(p.gv, NULL, 0), 0);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.gv, RTE_ETH_VLAN_FILTER_OFFLOAD), 0);
	assert_int_equal(rte_eth_dev_vlan_filter(p.gv, 100, 1), 0);
	assert_int_equal(rte_eth_dev_vlan_filter(p.gv, 100, 0), 0);
	assert_int_equal(rte_eth_dev_set_vlan_offload(p.gv, 0), 0);
	assert_int_equal(rte_eth_dev_default_mac_addr_set(p.gv, &mac), 0);
	assert_int_equal(rte_eth_macaddr_get(p.gv, &got), 0);
	assert_true(rte_is_same_ether_addr(&got, &mac));
	/* Frames to 02:00:00:00:00:01 (not the port's address) arrive. */
	spread(p.vh, p.gv, vmp, one, 1);
	spread(p.gv, p.vh, gmp, one, 1);

	gvh_pair_destroy(&p);
	assert_true(gvh_pool_full(gmp));
	assert_true(gvh_pool_full(vmp));
	rte_mempool_free(gmp);
	rte_mempool_free(vmp);
}

/* -------------------------------------------------------------- LSC ----- */

/*
 * gvirtio as server with LSC interrupts on; net_vhost connects as client.
 * Its removal must deliver a link-down event, a new back-end on the
 * socket a link-up event, and traffic flows again.
 */
static void lsc_events(void **state)
{
	struct rte_mempool *gmp = gvh_pool(2048), *vmp = gvh_pool(2048);
	struct gvh_port_conf vc = { .mp = vmp };
	struct gvh_port_conf gc = { .mp = gmp, .nb_desc = 256, .intr_lsc = true };
	const uint32_t one[1] = { 64 };
	struct gvh_pair p, p2;
	struct gvh_lsc lsc;
	int up0;

	(void)state;
	assert_non_null(gmp);
	assert_non_null(vmp);
	gvh_pair_init(&p);
	if (gvh_vhost_add(&p, true, &vc) || gvh_gv_add(&p, "server=1", &gc) ||
	    gvh_lsc_watch(p.gv, &lsc) || gvh_pair_start(&p, 10.0))
		fail_msg("%s", gvh_error());
	spread(p.gv, p.vh, gmp, one, 1);
	up0 = gvh_count(&lsc.up);
	assert_int_equal(gvh_count(&lsc.down), 0);

	/* The back-end goes: link down, by event. */
	assert_int_equal(gvh_port_remove(&p.vh), 0);
	if (gvh_wait_count(&lsc.down, 1, 15.0, "link-down events"))
		fail_msg("%s", gvh_error());
	assert_int_equal(gvh_wait_link(p.gv, false, 1.0), 0);

	/* A new back-end connects to the running port: link up, by event. */
	gvh_pair_init(&p2);
	snprintf(p2.sock, sizeof(p2.sock), "%s", p.sock);
	if (gvh_vhost_add(&p2, true, &vc))
		fail_msg("%s", gvh_error());
	assert_int_equal(rte_eth_dev_start(p2.vh), 0);
	if (gvh_wait_count(&lsc.up, up0 + 1, 15.0, "link-up events"))
		fail_msg("%s", gvh_error());
	assert_int_equal(gvh_wait_link(p.gv, true, 1.0), 0);
	assert_int_equal(gvh_wait_link(p2.vh, true, 10.0), 0);
	p2.gv = p.gv;
	p.gv = GVH_NO_PORT;
	spread(p2.gv, p2.vh, gmp, one, 1);
	spread(p2.vh, p2.gv, vmp, one, 1);
	assert_int_equal(gvh_count(&lsc.down), 1);

	gvh_lsc_unwatch(p2.gv, &lsc);
	gvh_pair_destroy(&p2);
	gvh_pair_destroy(&p);
	assert_true(gvh_pool_full(gmp));
	assert_true(gvh_pool_full(vmp));
	rte_mempool_free(gmp);
	rte_mempool_free(vmp);
}

int main(void)
{
	static const char *const levels[] = { "pmd.net.gvirtio:warning", "lib.vhost.*:error",
					      "pmd.net.vhost:warning", NULL };
	const struct CMUnitTest tests[] = {
		{ "mq_traffic_split", mq_traffic, NULL, NULL, NULL },
		{ "mq_traffic_packed", mq_traffic, NULL, NULL, (void *)1 },
		{ "ctrl_queue_pairs", ctrl_queue_pairs, NULL, NULL, NULL },
		{ "ctrl_rx_modes", ctrl_rx_modes, NULL, NULL, NULL },
		{ "lsc_events", lsc_events, NULL, NULL, NULL },
	};
	int ret;

	if (gvh_eal_init("gvvhmq", levels) < 0) {
		fprintf(stderr, "EAL init failed: %s\n", gvh_error());
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	gvh_cleanup();
	return ret;
}
