/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/guest/gv_guest_app.c - the DPDK application the guest tests run
 * inside the QEMU guest (tests/guest/run.sh) on two virtio-net-pci NICs
 * that are wired to each other. Built on the host at test time against the
 * installed DPDK and copied into the guest's initramfs.
 *
 *   gv_guest_app EAL-ARGS -- MODE [ARG]
 *   payload N   port 0 sends N frames of patterned payload (varying sizes),
 *               port 1 must receive each one intact and in order; then the
 *               other way round; the ports' counters must agree exactly
 *   lsc         waits for the link of port 0 to go down and up again (the
 *               host flips it with QEMU's set_link), each as an LSC event
 *   rxintr      a thread sleeps in rte_epoll_wait on port 1's RX queue
 *               interrupt; a frame sent by port 0 must wake it
 *   mq Q        Q queue pairs per port (RSS when offered): frames of many
 *               UDP flows sent over all of port 0's TX queues must arrive
 *               intact on port 1; prints how they spread over RX queues
 *   fwd S       forwards port 0 <-> port 1 (the peer is the host's
 *               gv_mig_peer, the guest is live-migrated meanwhile) until a
 *               STOP frame arrives (at most S s); then RX and TX counters
 *               must match what it forwarded, and every mbuf must be back
 *               in the pool once the ports are closed
 *   ctrl DEV    port 0's control plane (gv_guest_ctrl.c): promiscuous off,
 *               all-multicast on, a second MAC, a VLAN filter; then it
 *               waits for the host's line on DEV (it reads QEMU's rx filter)
 *
 * Every wait has a deadline. Result lines: "GVAPP: PASS <mode> ..." or
 * "GVAPP: FAIL <mode>: <reason>"; exit status 0 only on PASS. Also prints
 * "GVAPP: port P driver <name>" for each port.
 */
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "gv_guest_app.h"
#include "gv_mig_frame.h"

#define NB_DESC 256
#define MAX_Q 8

struct rte_mempool *pool;
uint64_t rx_offloads;
static uint16_t nq = 1;
static uint32_t stray[2]; /* per receiving port: frames not ours (tap wire) */
/* Probe frames (wire_ready) that arrived after it: per receiving port. */
#define PROBE_SEQ UINT32_MAX
static uint32_t late[2];
static uint64_t late_bytes[2];
static struct rte_ether_addr mac[2];

uint64_t now_ms(void)
{
	return rte_get_timer_cycles() * 1000 / rte_get_timer_hz();
}

static uint8_t pattern(uint32_t seq, uint32_t i)
{
	uint32_t x = seq * 2654435761u + i * 40503u + (i >> 3);
	return (uint8_t)(x ^ (x >> 13));
}

/*
 * Frame: Ethernet, IPv4 10.0.0.1 -> 10.0.0.2 (0.2 -> 0.1 back), UDP from
 * port 1024 + (seq % 64) * 97 (64 flows, for RSS) to 9000, then seq (4), len (2),
 * direction (1), 0xa5 (1) and a pattern that depends on seq and offset.
 */
#define OFF_TEST (RTE_ETHER_HDR_LEN + 20 + 8)
#define HDR_LEN (OFF_TEST + 8)

static uint16_t frame_len(uint32_t seq)
{
	static const uint16_t sizes[] = {60, 64, 128, 333, 512, 1000, 1514, 77, 1500, 256};
	return sizes[seq % RTE_DIM(sizes)];
}

static struct rte_mbuf *make_frame(uint16_t from, uint32_t seq, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *p;
	uint32_t i;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, &mac[!from], 6);
	memcpy(p + 6, &mac[from], 6);
	p[12] = 0x08;
	p[13] = 0x00;
	ip = (struct rte_ipv4_hdr *)(p + RTE_ETHER_HDR_LEN);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 1 + from));
	ip->dst_addr = rte_cpu_to_be_32(RTE_IPV4(10, 0, 0, 2 - from));
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16((uint16_t)(1024 + (seq % 64) * 97));
	udp->dst_port = rte_cpu_to_be_16(9000);
	udp->dgram_len = rte_cpu_to_be_16((uint16_t)(len - RTE_ETHER_HDR_LEN - 20));
	udp->dgram_cksum = 0;
	memcpy(p + OFF_TEST, &seq, 4);
	memcpy(p + OFF_TEST + 4, &len, 2);
	p[OFF_TEST + 6] = (uint8_t)from;
	p[OFF_TEST + 7] = 0xa5;
	for (i = HDR_LEN; i < len; i++)
		p[i] = pattern(seq, i);
	return m;
}

/* Is this one of ours (IPv4/UDP to port 9000, marker byte)? */
static bool is_test_frame(struct rte_mbuf *m)
{
	uint8_t buf[HDR_LEN];
	const uint8_t *p;

	if (m->pkt_len < HDR_LEN)
		return false;
	p = rte_pktmbuf_read(m, 0, HDR_LEN, buf);
	return p != NULL && p[12] == 0x08 && p[13] == 0x00 &&
	       p[RTE_ETHER_HDR_LEN + 9] == IPPROTO_UDP && p[RTE_ETHER_HDR_LEN + 22] == 0x23 &&
	       p[RTE_ETHER_HDR_LEN + 23] == 0x28 && p[OFF_TEST + 7] == 0xa5;
}

static uint32_t frame_seq(struct rte_mbuf *m)
{
	uint32_t seq;
	rte_memcpy(&seq, rte_pktmbuf_mtod_offset(m, uint8_t *, OFF_TEST), 4);
	return seq;
}

/* Checks one received frame against what frame seq from port `from` is. */
static int check_frame(struct rte_mbuf *m, uint16_t from, uint32_t seq, char *why, size_t n)
{
	uint8_t buf[RTE_ETHER_MAX_LEN];
	struct rte_mbuf *ref = make_frame(from, seq, frame_len(seq));
	uint16_t len = frame_len(seq);
	const uint8_t *p;
	uint32_t i;
	int ret = 0;

	if (ref == NULL) {
		snprintf(why, n, "no mbuf for the reference frame");
		return -1;
	}
	if (m->pkt_len != len) {
		snprintf(why, n, "frame %u: length %u, sent %u", seq, m->pkt_len, len);
		ret = -1;
	} else if ((p = rte_pktmbuf_read(m, 0, len, buf)) == NULL) {
		snprintf(why, n, "frame %u: cannot read %u bytes", seq, len);
		ret = -1;
	} else {
		const uint8_t *r = rte_pktmbuf_mtod(ref, const uint8_t *);
		for (i = 0; i < len; i++)
			if (p[i] != r[i]) {
				snprintf(why, n, "frame %u: byte %u is 0x%02x, sent 0x%02x", seq, i,
					 p[i], r[i]);
				ret = -1;
				break;
			}
	}
	rte_pktmbuf_free(ref);
	return ret;
}

static int port_setup(uint16_t port, bool lsc, bool rxq_intr)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t q;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.lsc = lsc;
	conf.intr_conf.rxq = rxq_intr;
	conf.rxmode.offloads = rx_offloads;
	ret = rte_eth_dev_info_get(port, &info);
	if (ret)
		return ret;
	printf("GVAPP: port %u driver %s, max queues rx %u tx %u, rss offloads 0x%" PRIx64 "\n",
	       port, info.driver_name, info.max_rx_queues, info.max_tx_queues,
	       info.flow_type_rss_offloads);
	if (nq > 1 && info.flow_type_rss_offloads) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP) & info.flow_type_rss_offloads;
	}
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	if (ret)
		return ret;
	for (q = 0; q < nq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, NB_DESC, rte_eth_dev_socket_id(port), NULL,
					     pool);
		if (ret)
			return ret;
		ret = rte_eth_tx_queue_setup(port, q, NB_DESC, rte_eth_dev_socket_id(port), NULL);
		if (ret)
			return ret;
	}
	rte_eth_macaddr_get(port, &mac[port]);
	return rte_eth_dev_start(port);
}

static int wait_link(uint16_t port, int up, unsigned int ms)
{
	struct rte_eth_link link;
	uint64_t end = now_ms() + ms;

	do {
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status == up)
			return 0;
		rte_delay_ms(10);
	} while (now_ms() < end);
	return -1;
}

/* Both ports set up (LSC interrupt or not) and their links up. */
int ports_up(const char *mode, bool lsc)
{
	uint16_t p;

	for (p = 0; p < 2; p++)
		if (port_setup(p, lsc, false))
			FAIL(mode, "port %u setup failed", p);
	for (p = 0; p < 2; p++)
		if (wait_link(p, 1, 20000))
			FAIL(mode, "port %u link not up within 20 s", p);
	return 0;
}

static void drain(uint16_t port)
{
	struct rte_mbuf *m[32];
	uint16_t q, n;

	for (q = 0; q < nq; q++)
		while ((n = rte_eth_rx_burst(port, q, m, 32)) > 0)
			rte_pktmbuf_free_bulk(m, n);
}

/*
 * Both directions carry frames end to end: a probe frame sent from each
 * port (again every 100 ms) must reach the other within 10 s, then both
 * ports stay quiet for 200 ms. Links up is not enough: a back-end
 * switching between two vhost-user NICs drops what the first NIC sends
 * while it still sets up the second.
 */
static int wire_ready(const char *mode)
{
	struct rte_mbuf *m[32];
	uint64_t deadline, quiet;
	uint16_t from, q, r, k;
	bool got;

	for (from = 0; from < 2; from++) {
		deadline = now_ms() + 10000;
		got = false;
		while (!got && now_ms() < deadline) {
			struct rte_mbuf *p = make_frame(from, PROBE_SEQ, 64);
			uint64_t next = now_ms() + 100;
			if (p != NULL && rte_eth_tx_burst(from, 0, &p, 1) != 1)
				rte_pktmbuf_free(p);
			while (!got && now_ms() < next)
				for (q = 0; q < nq; q++) {
					r = rte_eth_rx_burst(!from, q, m, 32);
					for (k = 0; k < r; k++)
						got |= is_test_frame(m[k]) &&
						       frame_seq(m[k]) == PROBE_SEQ;
					rte_pktmbuf_free_bulk(m, r);
				}
		}
		if (!got)
			FAIL(mode, "port %u -> %u: no probe frame arrived within 10 s", from, !from);
	}
	quiet = now_ms() + 200;
	while (now_ms() < quiet)
		for (from = 0; from < 2; from++)
			for (q = 0; q < nq; q++)
				if ((r = rte_eth_rx_burst(from, q, m, 32)) > 0) {
					rte_pktmbuf_free_bulk(m, r);
					quiet = now_ms() + 200;
				}
	return 0;
}

/* Sends frames 0..n-1 from `from` (over its TX queues in turn), receives
 * them on the other port (over all RX queues), checks each one. */
static int one_way(const char *mode, uint16_t from, uint32_t n, uint64_t *bytes,
		   uint32_t per_q[MAX_Q])
{
	uint16_t to = !from;
	uint32_t sent = 0, got = 0, window = 32;
	uint64_t deadline = now_ms() + 120000;
	char why[160];
	static uint8_t seen[1 << 16];

	if (n > RTE_DIM(seen))
		FAIL(mode, "at most %zu frames", RTE_DIM(seen));
	memset(seen, 0, n);
	*bytes = 0;
	while (got < n) {
		/* keep at most `window` frames in flight: no ring overflow */
		while (sent < n && sent - got < window) {
			struct rte_mbuf *m = make_frame(from, sent, frame_len(sent));
			if (m == NULL)
				FAIL(mode, "mbuf allocation failed at frame %u", sent);
			if (rte_eth_tx_burst(from, (uint16_t)(sent % nq), &m, 1) != 1) {
				rte_pktmbuf_free(m);
				break;
			}
			*bytes += frame_len(sent);
			sent++;
		}
		for (uint16_t q = 0; q < nq; q++) {
			struct rte_mbuf *m[32];
			uint16_t k, r = rte_eth_rx_burst(to, q, m, 32);
			for (k = 0; k < r; k++) {
				uint32_t seq;
				if (!is_test_frame(m[k])) {
					/* not ours: only the tap wire (mq) may carry any */
					stray[to]++;
					if (nq == 1) {
						rte_pktmbuf_free_bulk(m, r);
						FAIL(mode, "port %u: a frame that is not ours "
						     "(%u bytes)", to, m[k]->pkt_len);
					}
					continue;
				}
				seq = frame_seq(m[k]);
				if (seq == PROBE_SEQ) {
					/* a probe of wire_ready's, late */
					late[to]++;
					late_bytes[to] += m[k]->pkt_len;
					continue;
				}
				/* several RX queues: order holds per flow, not across */
				if (nq == 1 && seq != got) {
					rte_pktmbuf_free_bulk(m, r);
					FAIL(mode, "port %u: frame %u arrived where %u was due", to,
					     seq, got);
				}
				if (seq >= sent || seen[seq]) {
					rte_pktmbuf_free_bulk(m, r);
					FAIL(mode, "port %u: frame %u %s", to, seq,
					     seq >= sent ? "was never sent" : "arrived twice");
				}
				if (check_frame(m[k], from, seq, why, sizeof(why))) {
					rte_pktmbuf_free_bulk(m, r);
					FAIL(mode, "port %u -> %u: %s", from, to, why);
				}
				seen[seq] = 1;
				per_q[q]++;
				got++;
			}
			rte_pktmbuf_free_bulk(m, r);
		}
		if (now_ms() > deadline)
			FAIL(mode, "port %u -> %u: %u of %u frames arrived within 120 s", from, to,
			     got, n);
	}
	return 0;
}

static int do_payload(uint32_t n)
{
	struct rte_eth_stats st[2];
	uint64_t bytes[2];
	uint32_t per_q[2][MAX_Q] = {{0}};
	uint16_t p, q;

	if (ports_up("payload", false))
		return 1;
	if (wire_ready("payload"))
		return 1;
	drain(0);
	drain(1);
	rte_eth_stats_reset(0);
	rte_eth_stats_reset(1);
	if (one_way("payload", 0, n, &bytes[0], per_q[1]) ||
	    one_way("payload", 1, n, &bytes[1], per_q[0]))
		return 1;
	for (p = 0; p < 2; p++)
		rte_eth_stats_get(p, &st[p]);
	for (p = 0; p < 2; p++) {
		printf("GVAPP: port %u ipackets %" PRIu64 " ibytes %" PRIu64 " opackets %" PRIu64
		       " obytes %" PRIu64 " ierrors %" PRIu64 " oerrors %" PRIu64
		       " imissed %" PRIu64 " rx_nombuf %" PRIu64 "\n",
		       p, st[p].ipackets, st[p].ibytes, st[p].opackets, st[p].obytes,
		       st[p].ierrors, st[p].oerrors, st[p].imissed, st[p].rx_nombuf);
		if (stray[p])
			printf("GVAPP: port %u also received %u frames that were not ours\n", p,
			       stray[p]);
		if (late[p])
			printf("GVAPP: port %u also received %u late probe frames\n", p, late[p]);
		if (st[p].opackets != n || st[p].obytes != bytes[p] ||
		    st[p].ipackets != n + stray[p] + late[p] ||
		    (!stray[p] && st[p].ibytes != bytes[!p] + late_bytes[p]) ||
		    st[p].ierrors || st[p].oerrors)
			FAIL("payload", "port %u counters do not match the %u frames (%" PRIu64
			     " bytes) each way", p, n, bytes[p]);
	}
	if (nq > 1) {
		for (p = 0; p < 2; p++) {
			uint32_t used = 0;
			printf("GVAPP: port %u rx per queue:", p);
			for (q = 0; q < nq; q++) {
				printf(" %u", per_q[p][q]);
				used += per_q[p][q] > 0;
			}
			printf(" (%u of %u queues used)\n", used, nq);
			/* 64 UDP flows over nq queues: more than one must carry some */
			if (used < 2)
				FAIL("mq", "port %u: frames of 64 flows landed on one RX queue", p);
		}
	}
	printf("GVAPP: PASS %s %u frames each way, %" PRIu64 "+%" PRIu64
	       " bytes, every byte checked, counters exact\n",
	       nq > 1 ? "mq" : "payload", n, bytes[0], bytes[1]);
	return 0;
}

/* --------------------------------------------------------------- LSC */
static atomic_int lsc_events;

static int on_lsc(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	(void)ev;
	(void)arg;
	(void)ret;
	if (port == 0)
		atomic_fetch_add(&lsc_events, 1);
	return 0;
}

static int wait_lsc(int seen, int up, unsigned int ms)
{
	struct rte_eth_link link;
	uint64_t end = now_ms() + ms;

	do {
		if (atomic_load(&lsc_events) > seen && rte_eth_link_get_nowait(0, &link) == 0 &&
		    link.link_status == up)
			return 0;
		rte_delay_ms(10);
	} while (now_ms() < end);
	return -1;
}

static int do_lsc(void)
{
	int seen;
	uint16_t p;
	uint64_t b;
	uint32_t per_q[MAX_Q] = {0};

	rte_eth_dev_callback_register(0, RTE_ETH_EVENT_INTR_LSC, on_lsc, NULL);
	for (p = 0; p < 2; p++)
		if (port_setup(p, true, false))
			FAIL("lsc", "port %u setup (intr_conf.lsc=1) failed", p);
	if (wait_link(0, 1, 10000))
		FAIL("lsc", "port 0 link not up within 10 s");
	seen = atomic_load(&lsc_events);
	printf("GVAPP-WAIT link-down\n");
	fflush(stdout);
	if (wait_lsc(seen, 0, 120000))
		FAIL("lsc", "no LSC event with link down within 120 s (events %d)",
		     atomic_load(&lsc_events));
	printf("GVAPP: link down seen as LSC event %d\n", atomic_load(&lsc_events));
	seen = atomic_load(&lsc_events);
	printf("GVAPP-WAIT link-up\n");
	fflush(stdout);
	if (wait_lsc(seen, 1, 120000))
		FAIL("lsc", "no LSC event with link up within 120 s (events %d)",
		     atomic_load(&lsc_events));
	printf("GVAPP: link up seen as LSC event %d\n", atomic_load(&lsc_events));
	/* traffic flows again after the flap */
	if (one_way("lsc", 0, 64, &b, per_q))
		return 1;
	printf("GVAPP: PASS lsc link down and up delivered as %d LSC events; traffic after\n",
	       atomic_load(&lsc_events));
	return 0;
}

/* ------------------------------------------------------ RX interrupt */
static struct {
	atomic_int armed, woke;
	int ctl_ret, en_ret, n_events;
	uint64_t wake_ms;
	uint16_t got;
} rxw;

static int rx_sleeper(void *arg)
{
	struct rte_epoll_event ev[1];
	struct rte_mbuf *m[32];
	uint64_t end;

	(void)arg;
	rxw.ctl_ret = rte_eth_dev_rx_intr_ctl_q(1, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
						NULL);
	rxw.en_ret = rte_eth_dev_rx_intr_enable(1, 0);
	if (rxw.ctl_ret || rxw.en_ret) {
		atomic_store(&rxw.armed, -1);
		return 0;
	}
	atomic_store(&rxw.armed, 1);
	rxw.n_events = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 1, 60000);
	rxw.wake_ms = now_ms();
	rte_eth_dev_rx_intr_disable(1, 0);
	end = now_ms() + 5000;
	while (rxw.got == 0 && now_ms() < end)
		rxw.got = rte_eth_rx_burst(1, 0, m, 32);
	if (rxw.got)
		rte_pktmbuf_free_bulk(m, rxw.got);
	atomic_store(&rxw.woke, 1);
	return 0;
}

static int do_rxintr(void)
{
	unsigned int lcore = rte_get_next_lcore(-1, 1, 0);
	struct rte_mbuf *m;
	uint64_t end, t_send;
	uint16_t p;

	if (lcore >= RTE_MAX_LCORE)
		FAIL("rxintr", "needs a second lcore (-l 0,1)");
	if (port_setup(0, false, false) || port_setup(1, false, true))
		FAIL("rxintr", "port setup (port 1 with intr_conf.rxq=1) failed");
	for (p = 0; p < 2; p++)
		if (wait_link(p, 1, 10000))
			FAIL("rxintr", "port %u link not up within 10 s", p);
	drain(1);
	rte_eal_remote_launch(rx_sleeper, NULL, lcore);
	end = now_ms() + 10000;
	while (atomic_load(&rxw.armed) == 0 && now_ms() < end)
		rte_delay_ms(1);
	if (atomic_load(&rxw.armed) != 1)
		FAIL("rxintr", "arming the RX interrupt failed (ctl %d, enable %d)", rxw.ctl_ret,
		     rxw.en_ret);
	/* Nothing is sent for 2 s: the thread must stay asleep. */
	end = now_ms() + 2000;
	while (now_ms() < end)
		if (atomic_load(&rxw.woke))
			FAIL("rxintr", "the thread woke (%d events) with no frame sent",
			     rxw.n_events);
	m = make_frame(0, 7, frame_len(7));
	t_send = now_ms();
	if (m == NULL || rte_eth_tx_burst(0, 0, &m, 1) != 1)
		FAIL("rxintr", "port 0 could not send");
	rte_eal_wait_lcore(lcore);
	if (rxw.n_events < 1)
		FAIL("rxintr", "rte_epoll_wait returned %d (60 s): no interrupt", rxw.n_events);
	if (rxw.got < 1)
		FAIL("rxintr", "woken, but no frame on port 1 queue 0");
	printf("GVAPP: PASS rxintr sleeping thread woken %" PRIu64 " ms after the send, %u frame(s)\n",
	       rxw.wake_ms - t_send, rxw.got);
	return 0;
}

/*
 * fwd: the frames of tests/guest/gv_mig_peer.c (gv_mig_frame.h) go
 * across; a STOP frame ends the run. Idle polls sleep 50 us so that the
 * vCPU can halt (TCG: a host CPU is freed for the migration). TX counts
 * beyond what was forwarded are the RARPs the driver sent after a
 * migration (GUEST_ANNOUNCE); printed for the host to match.
 */
static bool is_stop(struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct gv_mig_hdr *h = (const struct gv_mig_hdr *)(eh + 1);

	return m->data_len >= sizeof(*eh) + sizeof(*h) &&
	       eh->ether_type == rte_cpu_to_be_16(GV_MIG_ETHERTYPE) && h->magic == GV_MIG_MAGIC &&
	       h->kind == GV_MIG_STOP;
}

static int do_fwd(unsigned int max_s)
{
	struct rte_mbuf *m[32];
	uint64_t rx[2] = {0}, tx[2] = {0}, drop[2] = {0}, deadline;
	struct rte_eth_stats es[2];
	struct rte_eth_dev_info info;
	uint16_t p, n, k, j, sent;
	bool stop = false, data = false;
	unsigned int avail;

	if (ports_up("fwd", true))
		return 1;
	if (rte_eth_dev_info_get(0, &info))
		FAIL("fwd", "port 0: no info");
	/* the host labels its figures with the driver */
	printf("GVAPP-WAIT migrate %s\n", info.driver_name);
	fflush(stdout);
	deadline = now_ms() + (uint64_t)max_s * 1000;
	while (!stop) {
		bool idle = true;

		for (p = 0; p < 2; p++) {
			n = rte_eth_rx_burst(p, 0, m, 32);
			if (n == 0)
				continue;
			idle = false;
			rx[p] += n;
			for (k = j = 0; k < n; k++) {
				if (is_stop(m[k])) {
					/* STOP frames the peer still sent for the
					 * previous step may come first: only a STOP
					 * after this step's traffic ends it */
					stop = data;
					rte_pktmbuf_free(m[k]);
					drop[p]++;
				} else {
					m[j++] = m[k];
				}
			}
			data |= j > 0;
			sent = rte_eth_tx_burst(!p, 0, m, j);
			tx[p] += sent;
			drop[p] += j - sent;
			if (sent < j)
				rte_pktmbuf_free_bulk(m + sent, j - sent);
		}
		if (idle) {
			if (now_ms() > deadline)
				FAIL("fwd", "no STOP frame within %u s (forwarded %" PRIu64
					    " and %" PRIu64 ")", max_s, tx[0], tx[1]);
			rte_delay_us_sleep(50);
		}
	}
	/* what the peer still sends (more STOP frames) is counted, not forwarded */
	deadline = now_ms() + 200;
	while (now_ms() < deadline)
		for (p = 0; p < 2; p++) {
			n = rte_eth_rx_burst(p, 0, m, 32);
			rx[p] += n;
			drop[p] += n;
			rte_pktmbuf_free_bulk(m, n);
		}
	for (p = 0; p < 2; p++) {
		if (rte_eth_stats_get(p, &es[p]))
			FAIL("fwd", "port %u: no stats", p);
		printf("GVAPP: fwd port %u: rx %" PRIu64 " (stats %" PRIu64 "), forwarded %" PRIu64
		       ", dropped %" PRIu64 ", tx stats %" PRIu64 "\n",
		       p, rx[p], es[p].ipackets, tx[p], drop[p], es[p].opackets);
	}
	for (p = 0; p < 2; p++) {
		if (es[p].ipackets != rx[p])
			FAIL("fwd", "port %u: ipackets %" PRIu64 ", the app received %" PRIu64, p,
			     es[p].ipackets, rx[p]);
		if (es[!p].opackets < tx[p] || es[!p].opackets - tx[p] > 64)
			FAIL("fwd", "port %u: opackets %" PRIu64 ", the app sent %" PRIu64 " on it",
			     !p, es[!p].opackets, tx[p]);
	}
	for (p = 0; p < 2; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	avail = rte_mempool_avail_count(pool);
	if (avail != pool->size)
		FAIL("fwd", "%u of %u mbufs back in the pool after close", avail, pool->size);
	printf("GVAPP: PASS fwd forwarded %" PRIu64 " + %" PRIu64
	       " frames, counters exact, announce frames %" PRIu64 " %" PRIu64
	       ", all %u mbufs back after close\n",
	       tx[0], tx[1], es[0].opackets - tx[1], es[1].opackets - tx[0], avail);
	return 0;
}

/* After a failure: the port's link and its non-zero xstats. */
static void dump_port(uint16_t port)
{
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *vals = NULL;
	struct rte_eth_link link;
	int n, i;

	if (rte_eth_link_get_nowait(port, &link) == 0)
		printf("GVAPP: port %u link %s\n", port, link.link_status ? "up" : "down");
	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n <= 0)
		return;
	names = calloc((size_t)n, sizeof(*names));
	vals = calloc((size_t)n, sizeof(*vals));
	if (names && vals && rte_eth_xstats_get_names(port, names, (unsigned int)n) == n &&
	    rte_eth_xstats_get(port, vals, (unsigned int)n) == n)
		for (i = 0; i < n; i++)
			if (vals[i].value)
				printf("GVAPP: port %u %s %" PRIu64 "\n", port,
				       names[vals[i].id].name, vals[i].value);
	free(names);
	free(vals);
}

int main(int argc, char **argv)
{
	const char *mode;
	uint16_t p;
	int ret, n;

	n = rte_eal_init(argc, argv);
	if (n < 0) {
		printf("GVAPP: FAIL eal: rte_eal_init failed\n");
		return 1;
	}
	argc -= n;
	argv += n;
	if (argc < 2) {
		printf("GVAPP: FAIL usage: ... -- payload N | lsc | rxintr | mq Q | fwd S | ctrl DEV\n");
		return 2;
	}
	mode = argv[1];
	if (rte_eth_dev_count_avail() != 2) {
		printf("GVAPP: FAIL %s: %u ports probed, 2 expected\n", mode,
		       rte_eth_dev_count_avail());
		return 1;
	}
	pool = rte_pktmbuf_pool_create("gvapp", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       rte_socket_id());
	if (pool == NULL) {
		printf("GVAPP: FAIL %s: mbuf pool\n", mode);
		return 1;
	}
	if (!strcmp(mode, "payload"))
		ret = do_payload(argc > 2 ? (uint32_t)atoi(argv[2]) : 1000);
	else if (!strcmp(mode, "lsc"))
		ret = do_lsc();
	else if (!strcmp(mode, "rxintr"))
		ret = do_rxintr();
	else if (!strcmp(mode, "mq")) {
		nq = argc > 2 ? (uint16_t)atoi(argv[2]) : 2;
		if (nq < 1 || nq > MAX_Q)
			nq = 2;
		ret = do_payload(argc > 3 ? (uint32_t)atoi(argv[3]) : 1000);
	} else if (!strcmp(mode, "fwd")) {
		ret = do_fwd(argc > 2 ? (unsigned int)atoi(argv[2]) : 600);
	} else if (!strcmp(mode, "ctrl")) {
		ret = do_ctrl(argc > 2 ? argv[2] : "/dev/ttyS1");
	} else {
		printf("GVAPP: FAIL unknown mode %s\n", mode);
		ret = 2;
	}
	if (ret == 1)
		RTE_ETH_FOREACH_DEV(p)
			dump_port(p);
	fflush(stdout);
	RTE_ETH_FOREACH_DEV(p)
	{
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_eal_cleanup();
	return ret;
}
