/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loop.c - the PMD end to end over the loopback device
 * (net_gvirtio_loop), in-process EAL, no VM and no vhost back-end:
 * traffic comes back with the right bytes on every ring layout and
 * datapath, mergeable on and off, jumbo frames, small rings; an oversized
 * frame without mergeable buffers is dropped and counted; rx/tx
 * free thresholds (refill and reclaim points) are checked, kept and
 * reported by the queue info queries; tx_done_cleanup; the power
 * monitor condition (get_monitor_addr) across ring wraps; devargs errors
 * fail the probe; link changes (LSC) and the announce; receive filters,
 * VLAN filters and queue pairs set through the control queue. RSS and
 * offloads: test_loop_offload.c.
 */
#define ALLOW_EXPERIMENTAL_API /* rte_eth_get_monitor_addr */
#include <string.h>

#include <rte_cycles.h>
#include <rte_power_intrinsics.h>

#include "gv_features.h"
#include "gv_path.h"
#include "gv_test_loop.h"

/* ------------------------------------------------------------- traffic -- */

struct traffic_case {
	const char *args;
	uint16_t mtu; /* port MTU, 0: default */
	uint32_t max_len; /* largest frame sent */
};

static const struct traffic_case traffic_cases[] = {
	{ "packed_vq=0,mrg_rxbuf=1", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=1", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,datapath=simple", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,in_order=1,datapath=inorder", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=1,in_order=0,datapath=full", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=1,in_order=1,datapath=full", 0, 1514 },
	/* full path, frames that fit one mbuf: one-mbuf buffers, raw from the pool */
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,datapath=full", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,in_order=1,datapath=full", 0, 1514 },
	/* jumbo frames: mergeable buffers, or chains of mbufs (full RX path) */
	{ "packed_vq=0,mrg_rxbuf=1,mtu=9000", 9000, 9014 },
	{ "packed_vq=1,mrg_rxbuf=0,mtu=9000", 9000, 9014 },
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,mtu=9000", 9000, 9014 },
	/* small rings: the device caps them at queue_size */
	{ "packed_vq=1,mrg_rxbuf=1,queue_size=64", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,queue_size=64", 0, 1514 },
	/* the vector RX path (no mergeable buffers): in and out of order, small rings */
	{ "packed_vq=0,mrg_rxbuf=0,vectorized=1", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,vectorized=1", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,queue_size=64,vectorized=1", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,queue_size=32,vectorized=1", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,vectorized=1", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,in_order=0,queue_size=100,vectorized=1", 0, 1514 },
	/* not eligible: the scalar paths serve it */
	{ "packed_vq=0,mrg_rxbuf=0,mtu=9000,vectorized=1", 9000, 9014 },
	/* the RX header's line chosen against the default (rx_hdr_line=) */
	{ "packed_vq=0,mrg_rxbuf=1,rx_hdr_line=own", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=1,rx_hdr_line=own", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=1,in_order=0,datapath=simple,vectorized=0,rx_hdr_line=own", 0,
	  1514 },
	{ "packed_vq=1,mrg_rxbuf=1,in_order=0,datapath=full,rx_hdr_line=own", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=1,mtu=9000,rx_hdr_line=own", 9000, 9014 },
	{ "packed_vq=0,mrg_rxbuf=0,rx_hdr_line=shared", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,rx_hdr_line=shared", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,in_order=0,datapath=simple,rx_hdr_line=shared", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,in_order=0,mtu=9000,rx_hdr_line=shared", 9000, 9014 },
	/* mandatory barriers asked for (barrier=), scalar and vector paths */
	{ "packed_vq=0,mrg_rxbuf=1,barrier=mandatory", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=1,in_order=0,datapath=full,barrier=mandatory", 0, 1514 },
	{ "packed_vq=0,mrg_rxbuf=0,vectorized=1,barrier=mandatory", 0, 1514 },
	{ "packed_vq=1,mrg_rxbuf=0,vectorized=1,barrier=auto", 0, 1514 },
};

/*
 * The port runs the bursts of its paths compiled for its layout and for
 * the barriers asked for: mandatory with barrier=mandatory, SMP otherwise
 * (the loopback device does not offer ORDER_PLATFORM unless told).
 */
static void check_burst_copies(const struct port *p, const char *args)
{
	const struct rte_eth_dev *dev = &rte_eth_devices[p->id];
	const struct gv_hw *hw = dev->data->dev_private;
	const bool mand = strstr(args, "barrier=mandatory") != NULL;
	const int packed = hw->layout == GV_LAYOUT_PACKED;

	assert_int_equal(hw->barrier, mand ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP);
	assert_ptr_equal(dev->rx_pkt_burst, gv_port_rx_path(hw)->p.burst[packed][mand]);
	assert_ptr_equal(dev->tx_pkt_burst, gv_port_tx_path(hw)->p.burst[packed][mand]);
}

static void test_traffic(void **state)
{
	const struct traffic_case *tc = *state;
	struct port_cfg cfg = { .mtu = tc->mtu };
	struct port p;
	struct rte_ether_addr mac;
	const uint32_t total = 300;
	struct gv_loop_stats s;
	uint32_t seq = 0, rx = 0, hdr, frame_off;
	bool shared;

	print_message("devargs: %s\n", tc->args);
	assert_int_equal(port_probe(&p, tc->args), 0);
	port_start(&p, &cfg);
	check_burst_copies(&p, tc->args);
	rte_eth_macaddr_get(p.id, &mac);
	/* The virtio-net header: 12 bytes with VERSION_1 or MRG_RXBUF, else 10. */
	s = stats(&p);
	hdr = s.features & ((1ULL << GV_F_VERSION_1) | (1ULL << GV_NET_F_MRG_RXBUF)) ? 12 : 10;
	/*
	 * Where the frame starts: after a header that shares its first cache
	 * line (with mergeable buffers, or rx_hdr_line=shared), at the
	 * headroom's end (the header in the line before: without them, or
	 * rx_hdr_line=own; gv_rxtx.h gv_rx_front).
	 */
	shared = strstr(tc->args, "rx_hdr_line=") ? strstr(tc->args, "rx_hdr_line=shared") != NULL
						  : (s.features & (1ULL << GV_NET_F_MRG_RXBUF)) != 0;
	frame_off = RTE_PKTMBUF_HEADROOM + (shared ? hdr : 0);
	while (seq < total) {
		struct rte_mbuf *tx[32], *r[64];
		uint16_t n = 32, k;

		for (uint16_t i = 0; i < n; i++) {
			uint32_t len = tc->max_len > 1514 && i % 4 == 0 ? tc->max_len - i : flen(seq + i);

			tx[i] = frame(len > 2048 ? mp_big : mp, &mac, len, seq + i, -1);
		}
		send_all(&p, 0, tx, n);
		k = recv_all(&p, 0, r, 64);
		assert_int_equal(k, n);
		for (uint16_t i = 0; i < k; i++) {
			const uint32_t len = r[i]->pkt_len;

			check_frame(r[i], &mac, seq + i); /* in order, its bytes */
			if (len > 2048)
				assert_true(r[i]->nb_segs > 1 || r[i]->buf_len > len);
			/* A fresh packet mbuf, however the last user left it. */
			assert_int_equal(r[i]->data_off, frame_off);
			assert_int_equal(r[i]->ol_flags, 0);
			assert_int_equal(r[i]->packet_type, 0);
			assert_int_equal(r[i]->port, p.id);
			/* Leave it as an application may before freeing it. */
			r[i]->data_off = 0;
			r[i]->ol_flags = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_L4_CKSUM_BAD;
			r[i]->packet_type = RTE_PTYPE_L2_ETHER;
		}
		free_all(r, k);
		rx += k;
		seq += n;
	}
	s = stats(&p);
	assert_int_equal(s.rx_delivered, rx);
	assert_int_equal(s.tx_chains, seq);
	assert_int_equal(s.drop_no_buffer + s.drop_too_big + s.drop_bad_hdr + s.drop_mac, 0);
	port_remove(&p);
}

/* ------------------------------------------------------------ oversize -- */

static void test_oversize(void **state)
{
	struct port_cfg cfg = { 0 };
	struct port p;
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *r[8];
	struct gv_loop_stats s;
	uint16_t n;

	(void)state;
	/* The device allows 9000 bytes; the port's 2 KB RX mbufs do not. */
	assert_int_equal(port_probe(&p, "mrg_rxbuf=0,mtu=9000"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	m = frame(mp_big, &mac, 4000, 7, -1);
	send_all(&p, 0, &m, 1);
	assert_int_equal(recv_all(&p, 0, r, 8), 0);
	s = stats(&p);
	assert_int_equal(s.drop_too_big, 1);
	assert_int_equal(s.rx_delivered, 0);
	/* The buffer it could not use still serves the next frame. */
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	port_remove(&p);

	/* With mergeable buffers the same frame arrives in several mbufs. */
	assert_int_equal(port_probe(&p, "mrg_rxbuf=1,mtu=9000"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	m = frame(mp_big, &mac, 4000, 7, -1);
	send_all(&p, 0, &m, 1);
	n = recv_all(&p, 0, r, 8);
	assert_int_equal(n, 1);
	assert_int_equal(r[0]->pkt_len, 4000);
	assert_true(r[0]->nb_segs >= 2);
	free_all(r, n);
	/* Above the device's MTU: dropped even with mergeable buffers. */
	m = frame(mp_big, &mac, 9100, 8, -1);
	send_all(&p, 0, &m, 1);
	assert_int_equal(recv_all(&p, 0, r, 8), 0);
	assert_int_equal(stats(&p).drop_too_big, 1);
	port_remove(&p);
}

/* ------------------------------------------------- queue thresholds -- */

/* n frames to dst in bursts of 20; how many the device delivered. */
static uint64_t send_frames(const struct port *p, const struct rte_ether_addr *dst, uint32_t n,
			    uint32_t seq)
{
	uint64_t before = stats(p).rx_delivered;

	for (uint32_t i = 0; i < n; i += 20) {
		struct rte_mbuf *tx[20];
		uint16_t k = (uint16_t)RTE_MIN(20u, n - i);

		for (uint16_t j = 0; j < k; j++)
			tx[j] = frame(mp, dst, 60 + (seq + i + j) % 200, seq + i + j, -1);
		send_all(p, 0, tx, k);
	}
	return stats(p).rx_delivered - before;
}

static uint16_t recv_free(const struct port *p)
{
	struct rte_mbuf *r[256];
	uint16_t n = recv_all(p, 0, r, RTE_DIM(r));

	free_all(r, n);
	return n;
}

/*
 * rx_free_thresh / tx_free_thresh: the ring size or more fails the
 * queue's set-up; a valid one is what the queue info reports, and RX
 * refills only once that many buffers are free: at 255 of 256, 200 frames
 * taken leave 56 buffers posted, so of 100 more 44 find none; once the
 * ring is empty it is refilled whole. The default (32) loses nothing.
 */
static void queue_thresholds(const char *args)
{
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	struct rte_eth_rxq_info ri;
	struct rte_eth_txq_info ti;
	struct rte_ether_addr mac;
	struct port_cfg cfg = { 0 };
	struct port p;

	print_message("%s\n", args);
	memset(&conf, 0, sizeof(conf));
	memset(&rxc, 0, sizeof(rxc));
	memset(&txc, 0, sizeof(txc));
	assert_int_equal(port_probe(&p, args), 0);
	assert_int_equal(rte_eth_dev_configure(p.id, 1, 1, &conf), 0);
	rxc.rx_free_thresh = 256;
	txc.tx_free_thresh = 256;
	assert_int_equal(rte_eth_rx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, &rxc, mp), -EINVAL);
	assert_int_equal(rte_eth_tx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, &txc), -EINVAL);
	rxc.rx_free_thresh = 255;
	txc.tx_free_thresh = 200;
	assert_int_equal(rte_eth_rx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, &rxc, mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, &txc), 0);
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	assert_int_equal(rte_eth_rx_queue_info_get(p.id, 0, &ri), 0);
	assert_int_equal(ri.nb_desc, 256);
	assert_int_equal(ri.conf.rx_free_thresh, 255);
	assert_int_equal(ri.scattered_rx, strstr(args, "mrg_rxbuf=1") != NULL);
	assert_ptr_equal(ri.mp, mp);
	assert_int_equal(ri.rx_buf_size, RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM);
	assert_int_equal(rte_eth_tx_queue_info_get(p.id, 0, &ti), 0);
	assert_int_equal(ti.nb_desc, 256);
	assert_int_equal(ti.conf.tx_free_thresh, 200);
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(send_frames(&p, &mac, 200, 0), 200);
	assert_int_equal(recv_free(&p), 200);
	assert_int_equal(send_frames(&p, &mac, 100, 200), 56);
	assert_int_equal(stats(&p).drop_no_buffer, 44);
	assert_int_equal(recv_free(&p), 56);
	assert_int_equal(send_frames(&p, &mac, 100, 300), 100);
	assert_int_equal(recv_free(&p), 100);
	assert_int_equal(stats(&p).drop_no_buffer, 44);
	port_remove(&p);

	/* No threshold asked for: 32 each, and nothing is lost. */
	assert_int_equal(port_probe(&p, args), 0);
	port_start(&p, &cfg);
	assert_int_equal(rte_eth_rx_queue_info_get(p.id, 0, &ri), 0);
	assert_int_equal(ri.conf.rx_free_thresh, 32);
	assert_int_equal(rte_eth_tx_queue_info_get(p.id, 0, &ti), 0);
	assert_int_equal(ti.conf.tx_free_thresh, 32);
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(send_frames(&p, &mac, 200, 0), 200);
	assert_int_equal(recv_free(&p), 200);
	assert_int_equal(send_frames(&p, &mac, 100, 200), 100);
	assert_int_equal(recv_free(&p), 100);
	assert_int_equal(stats(&p).drop_no_buffer, 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/*
 * Mergeable buffers with 9000-byte frames in 2 KB mbufs (5 buffers each):
 * a refill point of 255 would let the ring sit with 4 buffers posted after
 * 252 small frames, where no large frame fits and nothing frees a slot.
 * The start lowers it to 252 (256 - 5 + 1), says so, and the large frame
 * after the small ones arrives. The same when the MTU is raised on the
 * running port (from a path for one-mbuf frames, which then chains).
 */
static void mrg_refill_cap(const char *args, bool running)
{
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxc;
	struct rte_eth_rxq_info ri;
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *r[8];
	struct port p;
	uint16_t n;

	print_message("%s, mtu 9000%s, rx_free_thresh 255\n", args,
		      running ? " set on the running port" : "");
	memset(&conf, 0, sizeof(conf));
	memset(&rxc, 0, sizeof(rxc));
	assert_int_equal(log_capture_open(), 0);
	log_start();
	assert_int_equal(port_probe(&p, args), 0);
	assert_int_equal(rte_eth_dev_configure(p.id, 1, 1, &conf), 0);
	if (!running)
		assert_int_equal(rte_eth_dev_set_mtu(p.id, 9000), 0);
	rxc.rx_free_thresh = 255;
	assert_int_equal(rte_eth_rx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, &rxc, mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	if (running) {
		/* 1500: frames fit one mbuf (a vector path where the CPU has one), 255 stands. */
		assert_int_equal(rte_eth_rx_queue_info_get(p.id, 0, &ri), 0);
		assert_int_equal(ri.conf.rx_free_thresh, 255);
		assert_int_equal(rte_eth_dev_set_mtu(p.id, 9000), 0);
	}
	assert_int_equal(rte_eth_rx_queue_info_get(p.id, 0, &ri), 0);
	assert_int_equal(ri.conf.rx_free_thresh, 252);
	assert_true(log_has("rx_free_thresh 255 lowered to 252"));
	log_capture_close();
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(send_frames(&p, &mac, 240, 0), 240);
	assert_int_equal(recv_free(&p), 240);
	assert_int_equal(send_frames(&p, &mac, 12, 240), 12);
	assert_int_equal(recv_free(&p), 12);
	m = frame(mp_big, &mac, 9000, 252, -1);
	send_all(&p, 0, &m, 1);
	n = recv_all(&p, 0, r, 8);
	assert_int_equal(n, 1);
	assert_int_equal(r[0]->pkt_len, 9000);
	check_frame(r[0], &mac, 252);
	free_all(r, n);
	assert_int_equal(stats(&p).drop_no_buffer, 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* One port per RX path kind: mergeable, vector (where the CPU has one), full; both layouts. */
static const char *const rx_path_args[] = {
	"packed_vq=0,mrg_rxbuf=1",
	"packed_vq=1,mrg_rxbuf=1",
	"packed_vq=0,mrg_rxbuf=0",
	"packed_vq=1,mrg_rxbuf=0",
	"packed_vq=0,mrg_rxbuf=0,in_order=0,datapath=full",
	"packed_vq=1,mrg_rxbuf=0,in_order=0,datapath=simple",
};

static void test_queue_thresholds(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < RTE_DIM(rx_path_args); i++)
		queue_thresholds(rx_path_args[i]);
	mrg_refill_cap("packed_vq=0,mrg_rxbuf=1,mtu=9000", false);
	mrg_refill_cap("packed_vq=1,mrg_rxbuf=1,mtu=9000", false);
	mrg_refill_cap("packed_vq=0,mrg_rxbuf=1,mtu=9000", true);
	mrg_refill_cap("packed_vq=1,mrg_rxbuf=1,mtu=9000", true);
}

/* ------------------------------------------------------ tx cleanup -- */

/*
 * rte_eth_tx_done_cleanup: 40 frames to an address the device filters
 * (sent, then dropped there) stay in the TX ring (no burst reclaimed them
 * yet); a cleanup of 10 gives back 10 mbufs, one of 0 (no limit) the
 * other 30, a third nothing. On each TX path and layout.
 */
static void tx_cleanup(const char *args)
{
	static const struct rte_ether_addr other = { { 0x02, 0, 0, 0, 0, 0x99 } };
	struct port_cfg cfg = { 0 };
	struct port p;
	struct rte_mbuf *tx[40];
	struct rte_ether_addr mac;
	unsigned int base;

	print_message("%s\n", args);
	assert_int_equal(port_probe(&p, args), 0);
	port_start(&p, &cfg);
	base = rte_mempool_in_use_count(mp); /* the RX ring's buffers */
	for (uint32_t i = 0; i < RTE_DIM(tx); i++)
		tx[i] = frame(mp, &other, 60 + i, i, -1);
	send_all(&p, 0, tx, RTE_DIM(tx));
	assert_int_equal(stats(&p).drop_mac, RTE_DIM(tx));
	assert_int_equal(rte_mempool_in_use_count(mp), base + RTE_DIM(tx));
	assert_int_equal(rte_eth_tx_done_cleanup(p.id, 0, 10), 10);
	assert_int_equal(rte_mempool_in_use_count(mp), base + RTE_DIM(tx) - 10);
	assert_int_equal(rte_eth_tx_done_cleanup(p.id, 0, 0), RTE_DIM(tx) - 10);
	assert_int_equal(rte_mempool_in_use_count(mp), base);
	assert_int_equal(rte_eth_tx_done_cleanup(p.id, 0, 0), 0);
	/* The ring still sends. */
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void test_tx_cleanup(void **state)
{
	(void)state;
	tx_cleanup("packed_vq=0"); /* the vector TX path (both layouts), where the CPU has it */
	tx_cleanup("packed_vq=0,vectorized=0");
	tx_cleanup("packed_vq=1");
	tx_cleanup("packed_vq=1,vectorized=0");
	tx_cleanup("packed_vq=0,in_order=0,datapath=simple");
	tx_cleanup("packed_vq=1,in_order=0,datapath=full");
	tx_cleanup("packed_vq=0,in_order=1,datapath=full");
}

/* ------------------------------------------------------ power monitor -- */

/* The condition's answer now: -1 a packet is waiting (do not sleep), 0 none. */
static int monitor_says(const struct rte_power_monitor_cond *pmc)
{
	assert_int_equal(pmc->size, 2);
	return pmc->fn(*(volatile uint16_t *)pmc->addr, pmc->opaque);
}

/*
 * rte_eth_get_monitor_addr: a condition taken with the RX ring empty says
 * "sleep"; once a frame arrives the same condition says "wake"; taken
 * again after the frame is received, "sleep" again. One frame at a time
 * for three laps of the ring (the packed wrap counter flips), then a
 * stopped port gives no condition.
 */
static void monitor(const char *args)
{
	struct port_cfg cfg = { 0 };
	struct rte_power_monitor_cond pmc;
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *r[4];
	struct port p;

	print_message("%s\n", args);
	assert_int_equal(port_probe(&p, args), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	for (uint32_t i = 0; i < 3 * 256; i++) {
		memset(&pmc, 0, sizeof(pmc));
		assert_int_equal(rte_eth_get_monitor_addr(p.id, 0, &pmc), 0);
		assert_int_equal(monitor_says(&pmc), 0);
		m = frame(mp, &mac, flen(i), i, -1);
		send_all(&p, 0, &m, 1);
		assert_int_equal(monitor_says(&pmc), -1);
		assert_int_equal(recv_all(&p, 0, r, 4), 1);
		free_all(r, 1);
	}
	assert_int_equal(rte_eth_get_monitor_addr(p.id, 0, &pmc), 0);
	assert_int_equal(monitor_says(&pmc), 0);
	assert_int_equal(rte_eth_dev_stop(p.id), 0);
	assert_int_not_equal(rte_eth_get_monitor_addr(p.id, 0, &pmc), 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void test_monitor(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < RTE_DIM(rx_path_args); i++)
		monitor(rx_path_args[i]);
}

/* ------------------------------------------------------------- devargs -- */

static void test_devargs(void **state)
{
	static const char *const bad[] = {
		"queues=0", "queues=129", "queue_size=1", "queue_size=40000", "packed_vq=2",
		"mrg_rxbuf=yes", "in_order=", "features=0x400", "features=zz", "mac=01:00:5e:00:00:01",
		"mac=nonsense", "mtu=10", "speed=-1", "datapath=fast", "vectorized=2", "bogus=1",
	};
	struct port p;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		print_message("devargs %s: must fail\n", bad[i]);
		assert_true(port_probe(&p, bad[i]) < 0);
		assert_true(rte_eth_dev_get_port_by_name(p.name, &p.id) != 0);
	}
	assert_int_equal(port_probe(&p, "queues=16,queue_size=32768,features=0x1200000000000000,"
				    "mac=02:11:22:33:44:55,mtu=68,speed=25000,datapath=full"), 0);
	{
		struct rte_ether_addr mac;
		struct rte_eth_dev_info info;

		rte_eth_macaddr_get(p.id, &mac);
		assert_memory_equal(mac.addr_bytes, "\x02\x11\x22\x33\x44\x55", 6);
		assert_int_equal(rte_eth_dev_info_get(p.id, &info), 0);
		assert_int_equal(info.max_rx_queues, 16);
		assert_int_equal(info.max_mtu, 68);
	}
	assert_int_equal(rte_eal_hotplug_remove("vdev", p.name), 0);
	assert_int_equal(rte_pmd_gvirtio_loop_stats(RTE_MAX_ETHPORTS - 1, NULL), -ENODEV);
}

/* ----------------------------------------------- queue start / stop -- */

static uint8_t queue_state(uint16_t port, bool rx, uint16_t q)
{
	struct rte_eth_rxq_info ri;
	struct rte_eth_txq_info ti;

	if (rx) {
		assert_int_equal(rte_eth_rx_queue_info_get(port, q, &ri), 0);
		return ri.queue_state;
	}
	assert_int_equal(rte_eth_tx_queue_info_get(port, q, &ti), 0);
	return ti.queue_state;
}

/*
 * Deferred start leaves queue pair 1 stopped while pair 0 runs; a stopped
 * queue's bursts move nothing; what the device delivered to a stopped RX
 * queue is received once it starts; stop/start of the port starts every
 * queue but the deferred ones again; every mbuf comes back.
 */
static void test_queue_start_stop(void **state)
{
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxc = { .rx_deferred_start = 1 };
	struct rte_eth_txconf txc = { .tx_deferred_start = 1 };
	struct rte_eth_rxq_info ri;
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *r[4];
	struct port p;

	(void)state;
	assert_int_equal(port_probe(&p, "queues=2"), 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(p.id, 2, 2, &conf), 0);
	for (uint16_t q = 0; q < 2; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, q ? &rxc : NULL, mp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, q ? &txc : NULL), 0);
	}
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	p.nq = 2;
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(rte_eth_rx_queue_info_get(p.id, 1, &ri), 0);
	assert_int_equal(ri.conf.rx_deferred_start, 1);
	assert_int_equal(queue_state(p.id, true, 0), RTE_ETH_QUEUE_STATE_STARTED);
	assert_int_equal(queue_state(p.id, false, 0), RTE_ETH_QUEUE_STATE_STARTED);
	assert_int_equal(queue_state(p.id, true, 1), RTE_ETH_QUEUE_STATE_STOPPED);
	assert_int_equal(queue_state(p.id, false, 1), RTE_ETH_QUEUE_STATE_STOPPED);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);

	/* TX 1 stopped: nothing goes out; started: the frame lands in stopped RX 1. */
	m = frame(mp, &mac, 100, 7, -1);
	assert_int_equal(rte_eth_tx_burst(p.id, 1, &m, 1), 0);
	assert_int_equal(rte_eth_dev_tx_queue_start(p.id, 1), 0);
	assert_int_equal(queue_state(p.id, false, 1), RTE_ETH_QUEUE_STATE_STARTED);
	send_all(&p, 1, &m, 1);
	for (int i = 0; i < 100; i++)
		assert_int_equal(rte_eth_rx_burst(p.id, 1, r, 4), 0);
	assert_int_equal(stats(&p).rx_queue[1], 1);
	assert_int_equal(rte_eth_dev_rx_queue_start(p.id, 1), 0);
	assert_int_equal(recv_all(&p, 1, r, 4), 1);
	check_frame(r[0], &mac, 7);
	free_all(r, 1);
	assert_int_equal(one_way(&p, &mac, -1, 1, 1), 1);

	/* Stopped again, then the port: the port's start leaves only the deferred ones stopped. */
	assert_int_equal(rte_eth_dev_rx_queue_stop(p.id, 0), 0);
	assert_int_equal(queue_state(p.id, true, 0), RTE_ETH_QUEUE_STATE_STOPPED);
	assert_int_equal(rte_eth_rx_burst(p.id, 0, r, 4), 0);
	assert_int_equal(rte_eth_dev_stop(p.id), 0);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	assert_int_equal(queue_state(p.id, true, 0), RTE_ETH_QUEUE_STATE_STARTED);
	assert_int_equal(queue_state(p.id, true, 1), RTE_ETH_QUEUE_STATE_STOPPED);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	port_remove(&p);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
}

/* ---------------------------------------------------------------- link -- */

static int lsc_events;

static int lsc_cb(uint16_t port, enum rte_eth_event_type ev, void *arg, void *ret)
{
	(void)port;
	(void)arg;
	(void)ret;
	if (ev == RTE_ETH_EVENT_INTR_LSC)
		lsc_events++;
	return 0;
}

static void test_link(void **state)
{
	struct port_cfg cfg = { .lsc = true };
	struct port p;
	struct rte_eth_link link;
	struct rte_ether_addr mac;
	struct rte_mbuf *r[4];
	uint16_t n;

	(void)state;
	assert_int_equal(port_probe(&p, "speed=10000"), 0);
	assert_int_equal(rte_eth_dev_callback_register(p.id, RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL),
			 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	assert_int_equal(rte_eth_link_get_nowait(p.id, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_UP);
	assert_int_equal(link.link_speed, 10000);

	lsc_events = 0;
	assert_int_equal(rte_pmd_gvirtio_loop_set_link(p.id, false), 0);
	assert_int_equal(lsc_events, 1);
	assert_int_equal(rte_eth_link_get_nowait(p.id, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_DOWN);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 0);
	assert_int_equal(stats(&p).drop_link_down, 1);
	assert_int_equal(rte_pmd_gvirtio_loop_set_link(p.id, false), 0);
	assert_int_equal(lsc_events, 1); /* no change, no event */

	assert_int_equal(rte_pmd_gvirtio_loop_set_link(p.id, true), 0);
	assert_int_equal(lsc_events, 2);
	assert_int_equal(rte_eth_link_get_nowait(p.id, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_UP);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);

	/* Announce: the driver sends a RARP from its MAC, then ANNOUNCE_ACK. */
	assert_true(stats(&p).features & (1ull << 21)); /* GUEST_ANNOUNCE */
	assert_int_equal(rte_pmd_gvirtio_loop_announce(p.id), 0);
	assert_false(stats(&p).status & 2);
	n = recv_all(&p, 0, r, 4);
	assert_int_equal(n, 1);
	assert_int_equal(rte_be_to_cpu_16(rte_pktmbuf_mtod(r[0], struct rte_ether_hdr *)->ether_type),
			 RTE_ETHER_TYPE_RARP);
	assert_memory_equal(rte_pktmbuf_mtod(r[0], struct rte_ether_hdr *)->src_addr.addr_bytes,
			    mac.addr_bytes, 6);
	free_all(r, n);
	assert_int_equal(stats(&p).ctrl_err, 0);
	rte_eth_dev_callback_unregister(p.id, RTE_ETH_EVENT_INTR_LSC, lsc_cb, NULL);
	port_remove(&p);
}

/* ------------------------------------------- control queue and filters -- */

static void test_filters(void **state)
{
	struct port_cfg cfg = { 0 };
	struct port p;
	struct rte_ether_addr mac, other = { { 0x02, 0, 0, 0, 0, 0x99 } },
				   bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
				   mcast = { { 0x01, 0x00, 0x5e, 0, 0, 1 } },
				   mine = { { 0x02, 0xaa, 0, 0, 0, 1 } };
	struct gv_loop_stats s;

	(void)state;
	assert_int_equal(port_probe(&p, ""), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	s = stats(&p);
	assert_false(s.promisc);
	assert_true(s.ctrl_ok > 0);
	assert_int_equal(s.ctrl_err, 0);

	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	assert_int_equal(one_way(&p, &bcast, -1, 0, 0), 1);
	assert_int_equal(one_way(&p, &other, -1, 0, 0), 0);
	assert_int_equal(one_way(&p, &mcast, -1, 0, 0), 0);
	assert_int_equal(stats(&p).drop_mac, 2);

	assert_int_equal(rte_eth_allmulticast_enable(p.id), 0);
	assert_true(stats(&p).allmulti);
	assert_int_equal(one_way(&p, &mcast, -1, 0, 0), 1);
	assert_int_equal(rte_eth_allmulticast_disable(p.id), 0);
	assert_int_equal(one_way(&p, &mcast, -1, 0, 0), 0);
	assert_int_equal(rte_eth_dev_set_mc_addr_list(p.id, &mcast, 1), 0);
	s = stats(&p);
	assert_int_equal(s.n_mc, 1);
	assert_memory_equal(s.mc[0], mcast.addr_bytes, 6);
	assert_int_equal(one_way(&p, &mcast, -1, 0, 0), 1);

	assert_int_equal(rte_eth_dev_mac_addr_add(p.id, &other, 0), 0);
	s = stats(&p);
	assert_int_equal(s.n_uc, 1);
	assert_memory_equal(s.uc[0], other.addr_bytes, 6);
	assert_int_equal(one_way(&p, &other, -1, 0, 0), 1);

	assert_int_equal(rte_eth_dev_default_mac_addr_set(p.id, &mine), 0);
	assert_memory_equal(stats(&p).mac, mine.addr_bytes, 6);
	assert_int_equal(one_way(&p, &mine, -1, 0, 0), 1);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 0);

	assert_int_equal(rte_eth_promiscuous_enable(p.id), 0);
	assert_true(stats(&p).promisc);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	assert_int_equal(stats(&p).ctrl_err, 0);
	port_remove(&p);
}

static void test_vlan_filter(void **state)
{
	struct port_cfg cfg = { .rxo = RTE_ETH_RX_OFFLOAD_VLAN_FILTER };
	struct port p;
	struct rte_ether_addr mac;
	struct gv_loop_stats s;

	(void)state;
	assert_int_equal(port_probe(&p, ""), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	assert_true(stats(&p).features & (1ull << 19)); /* CTRL_VLAN */
	/* An empty table drops every tagged frame (spec 5.1.6.5.3). */
	assert_int_equal(one_way(&p, &mac, 100, 0, 0), 0);
	assert_int_equal(rte_eth_dev_vlan_filter(p.id, 100, 1), 0);
	s = stats(&p);
	assert_true(s.vlan[100 / 64] & (1ull << (100 % 64)));
	assert_int_equal(one_way(&p, &mac, 100, 0, 0), 1);
	assert_int_equal(one_way(&p, &mac, 200, 0, 0), 0);
	assert_int_equal(one_way(&p, &mac, -1, 0, 0), 1);
	assert_int_equal(rte_eth_dev_vlan_filter(p.id, 100, 0), 0);
	assert_int_equal(one_way(&p, &mac, 100, 0, 0), 0);
	assert_int_equal(stats(&p).drop_vlan, 3);
	port_remove(&p);
}

static void test_multiqueue(void **state)
{
	struct port_cfg cfg = { .nq = 4 };
	struct port p;
	struct rte_ether_addr mac;
	struct gv_loop_stats s;

	(void)state;
	assert_int_equal(port_probe(&p, "queues=4"), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	s = stats(&p);
	assert_int_equal(s.vq_pairs, 4);
	for (uint16_t q = 0; q < 4; q++)
		assert_int_equal(one_way(&p, &mac, -1, q, q), 1);
	s = stats(&p);
	for (uint16_t q = 0; q < 4; q++)
		assert_int_equal(s.rx_queue[q], 1);
	/* The port's own per-queue counters say the same. */
	{
		struct rte_eth_stats es;

		assert_int_equal(rte_eth_stats_get(p.id, &es), 0);
		for (uint16_t q = 0; q < 4; q++) {
			assert_int_equal(es.q_ipackets[q], 1);
			assert_int_equal(es.q_opackets[q], 1);
		}
		assert_int_equal(es.ipackets, 4);
		assert_int_equal(es.opackets, 4);
	}
	port_remove(&p);
}
/* The speed comes from the device's config space (SPEED_DUPLEX). */
static void test_speed(void **state)
{
	struct port_cfg cfg = { 0 };
	struct rte_eth_link link;
	struct port p;

	(void)state;
	assert_int_equal(port_probe(&p, "speed=25000"), 0);
	port_start(&p, &cfg);
	assert_int_equal(rte_eth_link_get_nowait(p.id, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_UP);
	assert_int_equal(link.link_speed, 25000);
	port_remove(&p);
}

/*
 * A device that never answers its control queue: the command the start
 * replays fails within the bound (1 s per command), the start reports it,
 * the process goes on, and the port closes cleanly with every mbuf back.
 */
static void test_ctrl_silent(void **state)
{
	struct rte_eth_conf conf;
	struct port p;
	uint64_t t0, hz = rte_get_timer_hz();
	int ret;

	(void)state;
	assert_int_equal(port_probe(&p, "ctrl_silent=1"), 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(p.id, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, NULL, mp), 0);
	assert_int_equal(rte_eth_tx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, NULL), 0);
	t0 = rte_get_timer_cycles();
	ret = rte_eth_dev_start(p.id);
	assert_true(ret < 0);
	assert_true(rte_get_timer_cycles() - t0 < 5 * hz);
	assert_int_equal(rte_eal_hotplug_remove("vdev", p.name), 0);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* ---------------------------------------------------------------- main -- */

int main(void)
{
	struct CMUnitTest tests[48];
	size_t n = 0;

	if (gvl_eal_init("test_loop"))
		return 1;
	for (size_t i = 0; i < sizeof(traffic_cases) / sizeof(traffic_cases[0]); i++)
		tests[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(test_traffic,
									  (void *)&traffic_cases[i]);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_oversize);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_queue_thresholds);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_tx_cleanup);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_monitor);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_devargs);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_queue_start_stop);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_link);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_filters);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_vlan_filter);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_multiqueue);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_speed);
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_ctrl_silent);
	return _cmocka_run_group_tests("test_loop", tests, n, NULL, NULL) ? 1 : 0;
}
