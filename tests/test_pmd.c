/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd.c - the gvirtio PMD (net_gvirtio_user) against DPDK's own
 * vhost-user back-end (net_vhost), both in this process, over a unix
 * socket: the whole matrix
 *   {split, packed} x {mrg_rxbuf on, off} x {datapath simple, full, inorder}
 *   x {64, 1500, and 9000 bytes with mergeable buffers} on the scalar paths
 *   (vectorized=0), and the vector RX path (vectorized=1: both layouts,
 *   mergeable buffers on and off, simple / inorder, 64 and 1500 bytes)
 *   with, on inorder, the vector TX path.
 * Per case, frames go each way (gvirtio TX -> vhost RX, vhost TX ->
 * gvirtio RX) and must arrive complete, in order, with the right length
 * and payload; the counters of both ports agree; the back-end negotiated
 * the layout and features asked for; the chosen paths (xstats rx_path,
 * tx_path) are the expected ones; the per-queue xstats agree and no
 * hardening counter moved; both private pools (no cache) are full again
 * after stop.
 * Also: the path rules without datapath= (offloads, in_order=0,
 * mrg_rxbuf=0, 9000 B chains without mergeable buffers, vectorized=) and forced paths
 * that cannot serve a configuration (the start fails, nothing is held);
 * and the frame checker itself (it catches each kind of damage).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "gv_path.h"
#include "gv_pmd_harness.h"

#define BIT(n) (1ULL << (n))
#define F_MRG_RXBUF 15
#define F_INDIRECT 28
#define F_PACKED 34
#define F_IN_ORDER 35

#define POOL_MBUFS 2047

struct mcase {
	bool packed, mrg;
	bool vec; /* vectorized=1 */
	enum gv_force_path dp;
	uint32_t len;
	char name[64];
	/* resources, released by the teardown even after a failed assertion */
	struct gvh_pair pair;
	struct rte_mempool *gmp, *vmp;
};

static const char *dp_name(enum gv_force_path dp)
{
	return dp == GV_FORCE_SIMPLE ? "simple" : dp == GV_FORCE_INORDER ? "inorder" : "full";
}

/* Frames per direction: enough to wrap every ring several times. */
static uint32_t frames_for(uint32_t len)
{
	return len <= 64 ? 10000 : len <= 1500 ? 4000 : 1500;
}

/* The vector RX path this CPU and EAL allow, else the scalar one. */
static enum gv_rx_path_id best_vec(void)
{
	return gv_rx_path_usable(GV_RX_VEC_AVX2) ? GV_RX_VEC_AVX2
	       : gv_rx_path_usable(GV_RX_VEC_SSE) ? GV_RX_VEC_SSE : GV_RX_SIMPLE;
}

/* The vector RX path this CPU and EAL allow, else the scalar one for mergeable buffers or not. */
static enum gv_rx_path_id best_vec_or_scalar(bool mrg)
{
	enum gv_rx_path_id p = best_vec();

	return p == GV_RX_SIMPLE && mrg ? GV_RX_MRG : p;
}

static enum gv_rx_path_id expect_rx(const struct mcase *c)
{
	if (c->vec && c->dp != GV_FORCE_FULL)
		return best_vec_or_scalar(c->mrg);
	if (c->mrg)
		return GV_RX_MRG;
	/* datapath=inorder is simple on RX (the core handles IN_ORDER). */
	return c->dp == GV_FORCE_FULL ? GV_RX_FULL : GV_RX_SIMPLE;
}

/* The vector TX path (IN_ORDER) where this CPU and EAL allow it, else in-order. */
static enum gv_tx_path_id best_tx_vec(void)
{
	return gv_tx_path_usable(GV_TX_VEC_SSE) ? GV_TX_VEC_SSE : GV_TX_INORDER;
}

static enum gv_tx_path_id expect_tx(const struct mcase *c)
{
	if (c->dp == GV_FORCE_INORDER && c->vec)
		return best_tx_vec();
	return c->dp == GV_FORCE_SIMPLE ? GV_TX_SIMPLE
	       : c->dp == GV_FORCE_INORDER ? GV_TX_INORDER : GV_TX_FULL;
}

static void flow_report(const char *dir, const struct gvh_flow *f)
{
	print_message("  %s: sent %" PRIu64 " received %" PRIu64 " bad len %" PRIu64
		      " seq %" PRIu64 " payload %" PRIu64 " segs %" PRIu64 " (%s)\n",
		      dir, f->sent, f->received, f->bad_len, f->bad_seq, f->bad_payload,
		      f->bad_segs, gvh_error());
}

/*
 * The per-queue xstats agree with the port counters, and a sane back-end
 * tripped none of the hardening counters (bad ids, lengths, flags, ...).
 */
static void check_queue_xstats(uint16_t port, const struct rte_eth_stats *st)
{
	static const char *const hard[] = { "bad_id", "id_not_inflight", "bad_len",
					    "bad_flags", "bad_used_idx", "bad_order" };
	char name[64];
	uint64_t v = 99;

	assert_int_equal(gvh_xstat(port, "rx_q0_good_packets", &v), 0);
	assert_int_equal(v, st->ipackets);
	assert_int_equal(gvh_xstat(port, "rx_q0_good_bytes", &v), 0);
	assert_int_equal(v, st->ibytes);
	assert_int_equal(gvh_xstat(port, "tx_q0_good_packets", &v), 0);
	assert_int_equal(v, st->opackets);
	assert_int_equal(gvh_xstat(port, "tx_q0_good_bytes", &v), 0);
	assert_int_equal(v, st->obytes);
	assert_int_equal(gvh_xstat(port, "rx_q0_errors", &v), 0);
	assert_int_equal(v, 0);
	for (size_t i = 0; i < RTE_DIM(hard); i++)
		for (int dir = 0; dir < 2; dir++) {
			snprintf(name, sizeof(name), "%s_q0_%s", dir ? "tx" : "rx", hard[i]);
			v = 99;
			if (gvh_xstat(port, name, &v))
				fail_msg("%s", gvh_error());
			if (v != 0)
				fail_msg("%s = %" PRIu64, name, v);
		}
}

static int case_teardown(void **state)
{
	struct mcase *c = *state;

	gvh_pair_destroy(&c->pair);
	rte_mempool_free(c->gmp);
	rte_mempool_free(c->vmp);
	c->gmp = c->vmp = NULL;
	return 0;
}

static void test_matrix_case(void **state)
{
	struct mcase *c = *state;
	uint16_t mtu = c->len > RTE_ETHER_MAX_LEN ? 9000 : 0;
	struct gvh_port_conf vconf = { .mtu = mtu }, gconf = { .mtu = mtu };
	struct gvh_flow out = { 0 }, in = { 0 };
	struct rte_eth_stats gs, vs;
	uint64_t feat = 0, rxp = 99, txp = 99;
	uint32_t n = frames_for(c->len);
	char args[128];
	double t0 = gvh_now();

	c->gmp = gvh_pool(POOL_MBUFS);
	c->vmp = gvh_pool(POOL_MBUFS);
	assert_non_null(c->gmp);
	assert_non_null(c->vmp);
	vconf.mp = c->vmp;
	gconf.mp = c->gmp;
	gvh_pair_init(&c->pair);
	if (gvh_vhost_add(&c->pair, false, &vconf))
		fail_msg("%s", gvh_error());
	snprintf(args, sizeof(args), "packed_vq=%d,mrg_rxbuf=%d,datapath=%s,vectorized=%d",
		 c->packed, c->mrg, dp_name(c->dp), c->vec);
	if (gvh_gv_add(&c->pair, args, &gconf))
		fail_msg("%s", gvh_error());
	if (gvh_pair_start(&c->pair, 5.0))
		fail_msg("%s", gvh_error());

	/* What the back-end agreed to, seen from its side. */
	assert_int_equal(gvh_vhost_features(c->pair.vh, &feat), 0);
	assert_int_equal(!!(feat & BIT(F_PACKED)), c->packed);
	assert_int_equal(!!(feat & BIT(F_MRG_RXBUF)), c->mrg);
	/* datapath=simple is the path without IN_ORDER: it is not asked for. */
	assert_int_equal(!!(feat & BIT(F_IN_ORDER)), c->dp != GV_FORCE_SIMPLE);
	/* Indirect tables only for the full path (chains). */
	assert_int_equal(!!(feat & BIT(F_INDIRECT)), c->dp == GV_FORCE_FULL);

	/* The paths the PMD chose. */
	assert_int_equal(gvh_xstat(c->pair.gv, "rx_path", &rxp), 0);
	assert_int_equal(gvh_xstat(c->pair.gv, "tx_path", &txp), 0);
	assert_int_equal(rxp, expect_rx(c));
	assert_int_equal(txp, expect_tx(c));

	/* gvirtio TX -> vhost RX */
	out.tx_port = c->pair.gv;
	out.rx_port = c->pair.vh;
	out.tx_mp = c->gmp;
	out.len = c->len;
	out.count = n;
	if (gvh_transfer(&out)) {
		flow_report("gvirtio->vhost", &out);
		fail_msg("gvirtio -> vhost: %s", gvh_error());
	}
	/* vhost TX -> gvirtio RX */
	in.tx_port = c->pair.vh;
	in.rx_port = c->pair.gv;
	in.tx_mp = c->vmp;
	in.len = c->len;
	in.count = n;
	in.seq0 = 1000000;
	if (gvh_transfer(&in)) {
		flow_report("vhost->gvirtio", &in);
		fail_msg("vhost -> gvirtio: %s", gvh_error());
	}
	/* Frames larger than an mbuf travel as chains both ways. */
	if (c->len > 2048) {
		assert_true(out.max_segs > 1);
		assert_true(in.max_segs > 1);
	}

	/* Both sides count the same. */
	assert_int_equal(rte_eth_stats_get(c->pair.gv, &gs), 0);
	assert_int_equal(rte_eth_stats_get(c->pair.vh, &vs), 0);
	assert_int_equal(gs.opackets, n);
	assert_int_equal(gs.opackets, vs.ipackets);
	assert_int_equal(gs.obytes, (uint64_t)n * c->len);
	assert_int_equal(gs.obytes, vs.ibytes);
	assert_int_equal(vs.opackets, n);
	assert_int_equal(gs.ipackets, vs.opackets);
	assert_int_equal(gs.ibytes, (uint64_t)n * c->len);
	assert_int_equal(gs.ibytes, vs.obytes);
	assert_int_equal(gs.ierrors, 0);
	assert_int_equal(gs.oerrors, 0);
	assert_int_equal(gs.rx_nombuf, 0);
	check_queue_xstats(c->pair.gv, &gs);

	/* Stopped, every mbuf is back: the RX ring's, the TX ring's. */
	assert_int_equal(rte_eth_dev_stop(c->pair.gv), 0);
	assert_int_equal(gvh_xstat(c->pair.gv, "rx_path", &rxp), 0);
	assert_int_equal(rxp, GV_RX_PATH_MAX);
	assert_true(gvh_pool_full(c->gmp));
	assert_int_equal(rte_eth_dev_stop(c->pair.vh), 0);
	assert_true(gvh_pool_full(c->vmp));
	print_message("  %-40s %u frames each way, %.2f s\n", c->name, n, gvh_now() - t0);
}

/* The frame checker itself: every kind of damage is caught. */
static void test_frame_checker(void **state)
{
	struct rte_mempool *mp = gvh_pool(64);
	struct rte_mbuf *m, *s2, *s3;
	uint8_t *b;

	(void)state;
	assert_non_null(mp);
	m = gvh_pkt_alloc(mp, 7, 9000);
	assert_non_null(m);
	assert_int_equal(m->nb_segs, 5);
	assert_int_equal(gvh_pkt_check(m, 7, 9000), 0);
	assert_int_equal(gvh_pkt_check(m, 8, 9000), -2);
	assert_int_equal(gvh_pkt_check(m, 7, 8999), -1);
	/* One bit in the fourth segment. */
	b = rte_pktmbuf_mtod_offset(m->next->next->next, uint8_t *, 100);
	*b ^= 1;
	assert_int_equal(gvh_pkt_check(m, 7, 9000), -3);
	*b ^= 1;
	/* Two whole segments of the same length swapped. */
	s2 = m->next;
	s3 = s2->next;
	assert_int_equal(s2->data_len, s3->data_len);
	m->next = s3;
	s2->next = s3->next;
	s3->next = s2;
	assert_int_equal(gvh_pkt_check(m, 7, 9000), -3);
	m->next = s2;
	s3->next = s2->next;
	s2->next = s3;
	assert_int_equal(gvh_pkt_check(m, 7, 9000), 0);
	/* Segment lengths that do not add up to the packet length. */
	s2->data_len--;
	assert_int_equal(gvh_pkt_check(m, 7, 9000), -4);
	s2->data_len++;
	/* The Ethernet header. */
	b = rte_pktmbuf_mtod(m, uint8_t *);
	b[12] ^= 0x80;
	assert_int_equal(gvh_pkt_check(m, 7, 9000), -3);
	rte_pktmbuf_free(m);
	assert_true(gvh_pool_full(mp));
	rte_mempool_free(mp);
}

/*
 * The path rules without a forced class, and forced classes that cannot
 * serve the configuration (the start fails and holds on to nothing).
 */
#define RX_BEST_VEC 100
#define TX_BEST_VEC 101
#define RX_BEST_VEC_MRG 102

struct rule {
	const char *devargs;
	uint16_t mtu;
	uint64_t rxo, txo;
	/*
	 * Expected paths; -1: the start fails; RX_BEST_VEC: best_vec(),
	 * RX_BEST_VEC_MRG: best_vec_or_scalar(mergeable), TX_BEST_VEC: best_tx_vec().
	 */
	int rx, tx;
	char name[96];
	struct gvh_pair pair;
	struct rte_mempool *gmp, *vmp;
};

static void test_path_rule(void **state)
{
	struct rule *r = *state;
	struct gvh_port_conf vc = { .mtu = r->mtu }, gc = { .mtu = r->mtu, .rx_offloads = r->rxo,
							     .tx_offloads = r->txo };
	uint32_t len = r->mtu ? r->mtu : 1500;
	uint64_t rxp = 99, txp = 99;

	/* 9000 B chains: 5 mbufs for each of 256 RX descriptors and TX frames. */
	r->gmp = gvh_pool(2 * POOL_MBUFS + 1);
	r->vmp = gvh_pool(POOL_MBUFS);
	assert_non_null(r->gmp);
	assert_non_null(r->vmp);
	vc.mp = r->vmp;
	gc.mp = r->gmp;
	gvh_pair_init(&r->pair);
	if (gvh_vhost_add(&r->pair, false, &vc) || gvh_gv_add(&r->pair, r->devargs, &gc))
		fail_msg("%s", gvh_error());
	assert_int_equal(rte_eth_dev_start(r->pair.vh), 0);
	if (r->rx < 0) {
		assert_true(rte_eth_dev_start(r->pair.gv) < 0);
		assert_int_equal(gvh_xstat(r->pair.gv, "rx_path", &rxp), 0);
		assert_int_equal(rxp, GV_RX_PATH_MAX);
		assert_true(gvh_pool_full(r->gmp));
		return;
	}
	assert_int_equal(rte_eth_dev_start(r->pair.gv), 0);
	if (gvh_wait_link(r->pair.vh, true, 5.0) || gvh_wait_link(r->pair.gv, true, 5.0))
		fail_msg("%s", gvh_error());
	assert_int_equal(gvh_xstat(r->pair.gv, "rx_path", &rxp), 0);
	assert_int_equal(gvh_xstat(r->pair.gv, "tx_path", &txp), 0);
	assert_int_equal(rxp, r->rx == RX_BEST_VEC	   ? (int)best_vec()
			      : r->rx == RX_BEST_VEC_MRG ? (int)best_vec_or_scalar(true)
							 : r->rx);
	assert_int_equal(txp, r->tx == TX_BEST_VEC ? (int)best_tx_vec() : r->tx);
	{
		struct gvh_flow out = { .tx_port = r->pair.gv, .rx_port = r->pair.vh,
					.tx_mp = r->gmp, .len = len, .count = 300 };
		struct gvh_flow in = { .tx_port = r->pair.vh, .rx_port = r->pair.gv,
				       .tx_mp = r->vmp, .len = len, .count = 300, .seq0 = 300 };

		if (gvh_transfer(&out))
			fail_msg("gvirtio -> vhost: %s", gvh_error());
		if (gvh_transfer(&in))
			fail_msg("vhost -> gvirtio: %s", gvh_error());
		if (len > 2048)
			assert_true(in.max_segs > 1);
	}
	assert_int_equal(rte_eth_dev_stop(r->pair.gv), 0);
	assert_true(gvh_pool_full(r->gmp));
}

static int rule_teardown(void **state)
{
	struct rule *r = *state;

	gvh_pair_destroy(&r->pair);
	rte_mempool_free(r->gmp);
	rte_mempool_free(r->vmp);
	r->gmp = r->vmp = NULL;
	return 0;
}

static struct rule rules[] = {
	/*
	 * With IN_ORDER, frames in one mbuf and no offload: the vector paths by
	 * default, mergeable buffers or not.
	 */
	{ "", 0, 0, 0, RX_BEST_VEC_MRG, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "", 0, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, RX_BEST_VEC_MRG, GV_TX_FULL, "", { 0 }, NULL,
	  NULL },
	{ "in_order=0", 0, 0, 0, GV_RX_MRG, GV_TX_SIMPLE, "", { 0 }, NULL, NULL },
	{ "packed_vq=1", 0, 0, 0, RX_BEST_VEC_MRG, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "vectorized=0", 0, 0, 0, GV_RX_MRG, GV_TX_INORDER, "", { 0 }, NULL, NULL },
	{ "", 0, RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, GV_RX_MRG, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	/* Frames larger than an mbuf with mergeable buffers: the mergeable path. */
	{ "", 9000, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, GV_RX_MRG, GV_TX_FULL, "", { 0 }, NULL,
	  NULL },
	/* Without mergeable buffers, IN_ORDER: the vector RX path by default. */
	{ "mrg_rxbuf=0", 0, 0, 0, RX_BEST_VEC, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0,in_order=0", 0, 0, 0, GV_RX_SIMPLE, GV_TX_SIMPLE, "", { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0,vectorized=0", 0, 0, 0, GV_RX_SIMPLE, GV_TX_INORDER, "", { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0", 0, RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, GV_RX_FULL, TX_BEST_VEC, "",
	  { 0 }, NULL, NULL },
	/* Frames larger than an mbuf without mergeable buffers: chains. */
	{ "mrg_rxbuf=0", 9000, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, GV_RX_FULL, GV_TX_FULL, "",
	  { 0 }, NULL, NULL },
	{ "packed_vq=1,mrg_rxbuf=0", 9000, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, GV_RX_FULL,
	  GV_TX_FULL, "", { 0 }, NULL, NULL },
	/* vectorized=1: the vector RX path where eligible, else the scalar rules. */
	{ "mrg_rxbuf=0,vectorized=1", 0, 0, 0, RX_BEST_VEC, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0,in_order=0,vectorized=1", 0, 0, 0, RX_BEST_VEC, GV_TX_SIMPLE, "", { 0 },
	  NULL, NULL },
	{ "vectorized=1", 0, 0, 0, RX_BEST_VEC_MRG, TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "in_order=0,vectorized=1", 0, 0, 0, RX_BEST_VEC_MRG, GV_TX_SIMPLE, "", { 0 }, NULL,
	  NULL },
	{ "packed_vq=1,mrg_rxbuf=0,vectorized=1", 0, 0, 0, RX_BEST_VEC, TX_BEST_VEC, "", { 0 },
	  NULL, NULL },
	{ "packed_vq=1,mrg_rxbuf=0,in_order=0,vectorized=1", 0, 0, 0, RX_BEST_VEC, GV_TX_SIMPLE, "",
	  { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0,vectorized=1", 0, RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, GV_RX_FULL,
	  TX_BEST_VEC, "", { 0 }, NULL, NULL },
	{ "mrg_rxbuf=0,vectorized=1", 9000, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, GV_RX_FULL,
	  GV_TX_FULL, "", { 0 }, NULL, NULL },
	/* Forced classes that cannot serve the configuration. */
	{ "mrg_rxbuf=0,datapath=simple", 9000, 0, 0, -1, -1, "", { 0 }, NULL, NULL },
	{ "in_order=0,datapath=inorder", 0, 0, 0, -1, -1, "", { 0 }, NULL, NULL },
	{ "datapath=simple", 0, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS, -1, -1, "", { 0 }, NULL, NULL },
	{ "packed_vq=1,in_order=0,datapath=inorder", 0, 0, 0, -1, -1, "", { 0 }, NULL, NULL },
};

int main(void)
{
	static const char *const levels[] = { "pmd.net.gvirtio:info", "lib.vhost.*:warning",
					      "pmd.net.vhost:warning", NULL };
	static const enum gv_force_path dps[] = { GV_FORCE_SIMPLE, GV_FORCE_FULL,
						  GV_FORCE_INORDER };
	static const uint32_t lens[] = { 64, 1500, 9000 };
	static struct mcase cases[64];
	struct CMUnitTest tests[64 + 1 + RTE_DIM(rules)];
	int n = 0, ret;
	double t0;

	if (gvh_eal_init("gvtest", levels)) {
		fprintf(stderr, "%s\n", gvh_error());
		return 1;
	}
	if (!gvh_sock_dir()) {
		fprintf(stderr, "%s\n", gvh_error());
		return 1;
	}
	for (int packed = 0; packed < 2; packed++)
		for (int mrg = 1; mrg >= 0; mrg--)
			for (size_t d = 0; d < RTE_DIM(dps) * 2; d++)
				for (size_t l = 0; l < RTE_DIM(lens); l++) {
					struct mcase *c = &cases[n];
					bool vec = d >= RTE_DIM(dps);

					if (lens[l] > 1500 && !mrg)
						continue; /* 9000 B needs mergeable buffers */
					/* vectorized=1: simple/inorder, frames in one mbuf */
					if (vec && (lens[l] > 1500 ||
						    dps[d % RTE_DIM(dps)] == GV_FORCE_FULL))
						continue;
					c->packed = packed;
					c->mrg = mrg;
					c->vec = vec;
					c->dp = dps[d % RTE_DIM(dps)];
					c->len = lens[l];
					snprintf(c->name, sizeof(c->name), "%s mrg=%d %s%s %u B",
						 packed ? "packed" : "split", mrg, dp_name(c->dp),
						 vec ? " vectorized" : "", c->len);
					gvh_pair_init(&c->pair); /* no ports yet: teardown is safe */
					tests[n] = (struct CMUnitTest){ c->name, test_matrix_case, NULL,
									case_teardown, c };
					n++;
				}
	tests[n++] = (struct CMUnitTest)cmocka_unit_test(test_frame_checker);
	for (size_t i = 0; i < RTE_DIM(rules); i++) {
		struct rule *r = &rules[i];

		snprintf(r->name, sizeof(r->name), "rule \"%s\" mtu %u rxo 0x%" PRIx64
			 " txo 0x%" PRIx64, r->devargs, r->mtu ? r->mtu : 1500, r->rxo, r->txo);
		gvh_pair_init(&r->pair);
		tests[n++] = (struct CMUnitTest){ r->name, test_path_rule, NULL, rule_teardown, r };
	}
	t0 = gvh_now();
	ret = _cmocka_run_group_tests("test_pmd", tests, (size_t)n, NULL, NULL);
	printf("test_pmd: %d cases in %.1f s\n", n, gvh_now() - t0);
	gvh_cleanup();
	return ret;
}
