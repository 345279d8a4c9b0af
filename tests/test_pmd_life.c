/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pmd_life.c - a gvirtio port's life against DPDK's vhost-user
 * back-end (net_vhost), both in this process:
 *  - 100 stop / reconfigure / start cycles with ring sizes 256, 512, 1024
 *    in turn, traffic each way between them, every mbuf back after each
 *    stop, and the back-end running the ring size asked for; then the
 *    running port is hot-unplugged (rte_dev_remove);
 *  - an exhausted pool: RX refill fails and is counted (rx_nombuf), RX
 *    resumes once the application gives mbufs back, nothing leaks; also
 *    with a pool smaller than one refill burst, and with chains (full RX
 *    path, MTU 9000, no mergeable buffers);
 *  - a back-end that goes away: the link goes down, bursts are harmless,
 *    stop gives every mbuf back, start without a back-end fails cleanly,
 *    and start with a new one (client mode) connects to it and runs; in
 *    server mode a new back-end connects and traffic resumes by itself,
 *    and again after a stop/start;
 *  - devargs errors: each bad key or value fails the probe, leaves no
 *    port behind, and the process goes on probing good ports.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "gv_pmd_harness.h"

#define POOL_MBUFS 2047

/* What a test holds; the teardown releases it even after a failed assertion. */
struct res {
	struct gvh_pair pair, pair2;
	struct rte_mempool *gmp, *vmp;
	struct rte_mbuf *held[4096];
	unsigned int nheld;
};

static struct res R;

static int res_setup(void **state)
{
	memset(&R, 0, sizeof(R));
	R.pair.vh = R.pair.gv = R.pair2.vh = R.pair2.gv = GVH_NO_PORT;
	*state = &R;
	return 0;
}

static int res_teardown(void **state)
{
	struct res *r = *state;

	if (r->nheld)
		rte_pktmbuf_free_bulk(r->held, r->nheld);
	r->nheld = 0;
	gvh_pair_destroy(&r->pair2);
	gvh_pair_destroy(&r->pair);
	rte_mempool_free(r->gmp);
	rte_mempool_free(r->vmp);
	r->gmp = r->vmp = NULL;
	return 0;
}

#define CHECK(call)                                                            \
	do {                                                                   \
		if ((call) != 0)                                               \
			fail_msg("%s: %s", #call, gvh_error());                \
	} while (0)

/* `n` frames of `len` bytes each way; the sequence numbers start at seq0. */
static void traffic(const struct gvh_pair *p, struct res *r, uint32_t n, uint32_t len,
		    uint64_t seq0)
{
	struct gvh_flow out = { .tx_port = p->gv, .rx_port = p->vh, .tx_mp = r->gmp,
				.len = len, .count = n, .seq0 = seq0 };
	struct gvh_flow in = { .tx_port = p->vh, .rx_port = p->gv, .tx_mp = r->vmp,
			       .len = len, .count = n, .seq0 = seq0 + n };

	if (gvh_transfer(&out))
		fail_msg("gvirtio -> vhost, %u x %u B: %s", n, len, gvh_error());
	if (gvh_transfer(&in))
		fail_msg("vhost -> gvirtio, %u x %u B: %s", n, len, gvh_error());
}

static void make_pools(struct res *r, unsigned int gv_mbufs)
{
	r->gmp = gvh_pool(gv_mbufs);
	r->vmp = gvh_pool(POOL_MBUFS);
	assert_non_null(r->gmp);
	assert_non_null(r->vmp);
}

/* ------------------------------------------------------------- cycles -- */

static void test_cycles(void **state)
{
	static const uint16_t sizes[] = { 256, 512, 1024 };
	struct res *r = *state;
	struct gvh_port_conf vc = { 0 }, gc = { 0 };
	struct rte_eth_stats gs, vs;
	uint64_t frames = 0;
	double t0 = gvh_now();

	make_pools(r, POOL_MBUFS);
	vc.mp = r->vmp;
	gc.mp = r->gmp;
	gvh_pair_init(&r->pair);
	CHECK(gvh_vhost_add(&r->pair, false, &vc));
	CHECK(gvh_gv_add(&r->pair, "", &gc));
	CHECK(gvh_pair_start(&r->pair, 5.0));
	traffic(&r->pair, r, 64, 64, 0);
	frames += 64;
	for (unsigned int i = 0; i < 100; i++) {
		uint16_t nd = sizes[i % RTE_DIM(sizes)], got = 0;
		uint32_t len = 60 + (i * 97) % 1455; /* 60..1514 */

		assert_int_equal(rte_eth_dev_stop(r->pair.gv), 0);
		if (!gvh_pool_full(r->gmp))
			fail_msg("cycle %u: %u of %u mbufs back after stop", i,
				 gvh_pool_avail(r->gmp), r->gmp->size);
		gc.nb_desc = nd;
		if (i % 2 == 0) {
			/* Reconfigure the port (renegotiates), then its queues. */
			CHECK(gvh_port_setup(r->pair.gv, &gc));
		} else {
			CHECK(rte_eth_rx_queue_setup(r->pair.gv, 0, nd, SOCKET_ID_ANY, NULL,
						     r->gmp));
			CHECK(rte_eth_tx_queue_setup(r->pair.gv, 0, nd, SOCKET_ID_ANY, NULL));
		}
		assert_int_equal(rte_eth_dev_start(r->pair.gv), 0);
		CHECK(gvh_wait_link(r->pair.vh, true, 5.0));
		CHECK(gvh_wait_link(r->pair.gv, true, 5.0));
		/* The back-end runs the rings at the size the queues were set up with. */
		CHECK(gvh_vhost_ring_size(r->pair.vh, 0, &got));
		assert_int_equal(got, nd);
		CHECK(gvh_vhost_ring_size(r->pair.vh, 1, &got));
		assert_int_equal(got, nd);
		assert_int_equal(rte_eth_stats_reset(r->pair.gv), 0);
		assert_int_equal(rte_eth_stats_reset(r->pair.vh), 0);
		traffic(&r->pair, r, 64, len, (uint64_t)(i + 1) << 20);
		frames += 64;
		/* Both sides counted this cycle's frames. */
		assert_int_equal(rte_eth_stats_get(r->pair.gv, &gs), 0);
		assert_int_equal(rte_eth_stats_get(r->pair.vh, &vs), 0);
		assert_int_equal(gs.opackets, 64);
		assert_int_equal(vs.ipackets, 64);
		assert_int_equal(gs.ipackets, 64);
		assert_int_equal(vs.opackets, 64);
		assert_int_equal(gs.obytes, 64ull * len);
		assert_int_equal(vs.ibytes, 64ull * len);
		assert_int_equal(gs.ibytes, 64ull * len);
		assert_int_equal(vs.obytes, 64ull * len);
	}
	/* Hot-unplug of the running port: it goes, and so do its mbufs. */
	{
		struct rte_eth_dev_info info;
		uint16_t gv = r->pair.gv;

		assert_int_equal(rte_eth_dev_info_get(gv, &info), 0);
		assert_int_equal(rte_dev_remove(info.device), 0);
		r->pair.gv = GVH_NO_PORT;
		assert_false(rte_eth_dev_is_valid_port(gv));
	}
	if (!gvh_pool_full(r->gmp))
		fail_msg("%u of %u mbufs back after removal", gvh_pool_avail(r->gmp), r->gmp->size);
	CHECK(gvh_wait_link(r->pair.vh, false, 5.0));
	assert_int_equal(rte_eth_dev_stop(r->pair.vh), 0);
	assert_true(gvh_pool_full(r->vmp));
	print_message("  100 cycles, %" PRIu64 " frames each way, %.2f s\n", frames, gvh_now() - t0);
}

/* ----------------------------------------------------- exhausted pool -- */

/*
 * The back-end sends and the application keeps every frame it receives,
 * until RX stalls: a gvirtio RX burst (which refills) brings nothing and
 * right after it the back-end finds no buffer for a frame. Both run in
 * this thread, so that state is stable. The frames received (held in
 * r->held), or -1 if RX never stalled.
 */
static int rx_until_stall(struct res *r, uint64_t seq0)
{
	const struct gvh_pair *p = &r->pair;
	double end = gvh_now() + 5.0;
	uint64_t sent = 0;

	while (gvh_now() < end) {
		uint16_t nr = rte_eth_rx_burst(p->gv, 0, r->held + r->nheld,
					       (uint16_t)RTE_MIN(32u, RTE_DIM(r->held) - r->nheld));
		struct rte_mbuf *m = gvh_pkt_alloc(r->vmp, seq0 + sent, 200);
		uint16_t k;

		r->nheld += nr;
		if (!m)
			fail_msg("the back-end's pool is empty");
		k = rte_eth_tx_burst(p->vh, 0, &m, 1);
		if (k == 0)
			rte_pktmbuf_free(m);
		sent += k;
		if (nr == 0 && k == 0)
			return (int)r->nheld;
	}
	return -1;
}

/*
 * An RX pool of gv_mbufs: the application holds on to what it receives
 * until RX stalls; it must have been able to receive at least min_held
 * frames (every mbuf, less what a partial chain needs), refill failures
 * are counted, and RX resumes once the mbufs come back.
 */
static void exhausted_pool(struct res *r, unsigned int gv_mbufs, const char *devargs,
			   uint16_t mtu, unsigned int min_held)
{
	struct gvh_port_conf vc = { 0 }, gc = { .nb_desc = 256, .mtu = mtu };
	struct rte_eth_stats st;
	uint64_t nombuf0, xnombuf = 0;
	int got;

	make_pools(r, gv_mbufs);
	vc.mp = r->vmp;
	gc.mp = r->gmp;
	gvh_pair_init(&r->pair);
	CHECK(gvh_vhost_add(&r->pair, false, &vc));
	CHECK(gvh_gv_add(&r->pair, devargs, &gc));
	CHECK(gvh_pair_start(&r->pair, 5.0));
	assert_int_equal(rte_eth_stats_get(r->pair.gv, &st), 0);
	nombuf0 = st.rx_nombuf;

	/* The application ends up with (nearly) every mbuf of the pool. */
	got = rx_until_stall(r, 0);
	if (got < 0)
		fail_msg("RX never stalled (%u frames held)", r->nheld);
	if ((unsigned int)got < min_held)
		fail_msg("RX stalled after %d frames into a pool of %u mbufs (%u free)", got,
			 gv_mbufs, gvh_pool_avail(r->gmp));
	for (int i = 0; i < got; i++)
		assert_int_equal(gvh_pkt_check(r->held[i], (uint64_t)i, 200), 0);
	/* Stalled: still nothing comes in. Refill failures are counted. */
	for (int i = 0; i < 16; i++) {
		struct rte_mbuf *m = gvh_pkt_alloc(r->vmp, (uint64_t)got, 200), *x[4];

		assert_non_null(m);
		assert_int_equal(rte_eth_rx_burst(r->pair.gv, 0, x, 4), 0);
		if (rte_eth_tx_burst(r->pair.vh, 0, &m, 1) == 1)
			fail_msg("the back-end placed a frame with no RX buffer posted");
		rte_pktmbuf_free(m);
	}
	assert_int_equal(rte_eth_stats_get(r->pair.gv, &st), 0);
	assert_true(st.rx_nombuf > nombuf0);
	CHECK(gvh_xstat(r->pair.gv, "rx_q0_nombuf", &xnombuf));
	assert_int_equal(xnombuf, st.rx_nombuf);
	assert_int_equal(st.ipackets, (uint64_t)got);

	/* Given back, the mbufs are posted again and RX resumes, in order. */
	rte_pktmbuf_free_bulk(r->held, r->nheld);
	r->nheld = 0;
	{
		struct gvh_flow in = { .tx_port = r->pair.vh, .rx_port = r->pair.gv,
				       .tx_mp = r->vmp, .len = 200, .count = 1000,
				       .seq0 = (uint64_t)got };

		if (gvh_transfer(&in))
			fail_msg("RX after the mbufs came back: %s", gvh_error());
	}
	assert_int_equal(rte_eth_dev_stop(r->pair.gv), 0);
	if (!gvh_pool_full(r->gmp))
		fail_msg("%u of %u mbufs back after stop", gvh_pool_avail(r->gmp), r->gmp->size);
	assert_int_equal(rte_eth_dev_stop(r->pair.vh), 0);
	assert_true(gvh_pool_full(r->vmp));
}

/* A pool smaller than the RX ring (256) but larger than one refill (64). */
static void test_nombuf(void **state)
{
	exhausted_pool(*state, 100, "", 0, 100);
}

/* A pool smaller than one refill burst: RX must still work. */
static void test_nombuf_tiny(void **state)
{
	exhausted_pool(*state, 40, "", 0, 40);
}

/*
 * Chains (full RX path, no mergeable buffers, MTU 9000: 5 mbufs a chain)
 * from a pool of 40: a 200-byte frame keeps one mbuf, the rest are
 * posted again; at the end fewer than a chain's worth may stay unused.
 */
static void test_nombuf_chains(void **state)
{
	exhausted_pool(*state, 40, "mrg_rxbuf=0,datapath=full", 9000, 40 - 4);
}

/* ----------------------------------------------------- back-end gone -- */

/* With the back-end gone: bursts move nothing and lose nothing. */
static void bursts_without_backend(struct res *r, uint16_t port)
{
	for (int i = 0; i < 8; i++) {
		struct rte_mbuf *m[16], *x[16];
		uint16_t k;

		for (int j = 0; j < 16; j++) {
			m[j] = gvh_pkt_alloc(r->gmp, (uint64_t)j, 128);
			assert_non_null(m[j]);
		}
		k = rte_eth_tx_burst(port, 0, m, 16);
		if (k < 16)
			rte_pktmbuf_free_bulk(m + k, 16 - k);
		k = rte_eth_rx_burst(port, 0, x, 16);
		if (k)
			rte_pktmbuf_free_bulk(x, k);
	}
}

static void test_backend_gone_client(void **state)
{
	struct res *r = *state;
	struct gvh_port_conf vc = { 0 }, gc = { 0 };
	struct rte_eth_link link;

	make_pools(r, POOL_MBUFS);
	vc.mp = r->vmp;
	gc.mp = r->gmp;
	gvh_pair_init(&r->pair);
	CHECK(gvh_vhost_add(&r->pair, false, &vc));
	CHECK(gvh_gv_add(&r->pair, "", &gc));
	CHECK(gvh_pair_start(&r->pair, 5.0));
	traffic(&r->pair, r, 500, 1000, 0);
	/* Frames in flight in the TX ring when the back-end goes. */
	for (int j = 0; j < 32; j++) {
		struct rte_mbuf *m = gvh_pkt_alloc(r->gmp, 5000 + j, 300);

		assert_non_null(m);
		if (rte_eth_tx_burst(r->pair.gv, 0, &m, 1) != 1)
			rte_pktmbuf_free(m);
	}

	CHECK(gvh_port_remove(&r->pair.vh));
	CHECK(gvh_wait_link(r->pair.gv, false, 5.0));
	assert_int_equal(rte_eth_link_get_nowait(r->pair.gv, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_DOWN);
	bursts_without_backend(r, r->pair.gv);

	assert_int_equal(rte_eth_dev_stop(r->pair.gv), 0);
	if (!gvh_pool_full(r->gmp))
		fail_msg("%u of %u mbufs back after stop", gvh_pool_avail(r->gmp), r->gmp->size);
	/* No back-end to start with: start fails and holds on to nothing. */
	assert_true(rte_eth_dev_start(r->pair.gv) < 0);
	assert_true(gvh_pool_full(r->gmp));
	assert_int_equal(rte_eth_link_get_nowait(r->pair.gv, &link), 0);
	assert_int_equal(link.link_status, RTE_ETH_LINK_DOWN);
	bursts_without_backend(r, r->pair.gv);
	assert_int_equal(rte_eth_dev_stop(r->pair.gv), 0);
	assert_true(gvh_pool_full(r->gmp));

	/* A new back-end listens on the socket: the next start connects to it. */
	gvh_pair_init(&r->pair2);
	snprintf(r->pair2.sock, sizeof(r->pair2.sock), "%s", r->pair.sock);
	CHECK(gvh_vhost_add(&r->pair2, false, &vc));
	r->pair2.gv = r->pair.gv; /* the same gvirtio port */
	r->pair.gv = GVH_NO_PORT;
	CHECK(gvh_pair_start(&r->pair2, 5.0));
	traffic(&r->pair2, r, 500, 1000, 10000);
	assert_int_equal(rte_eth_dev_stop(r->pair2.gv), 0);
	assert_true(gvh_pool_full(r->gmp));
	assert_int_equal(rte_eth_dev_stop(r->pair2.vh), 0);
	assert_true(gvh_pool_full(r->vmp));
}

static void test_backend_gone_server(void **state)
{
	struct res *r = *state;
	struct gvh_port_conf vc = { 0 }, gc = { 0 };
	double t;

	make_pools(r, POOL_MBUFS);
	vc.mp = r->vmp;
	gc.mp = r->gmp;
	gvh_pair_init(&r->pair);
	/*
	 * The back-end as a client first: it retries every second in the
	 * background, and the gvirtio probe (server) waits for it.
	 */
	CHECK(gvh_vhost_add(&r->pair, true, &vc));
	t = gvh_now();
	CHECK(gvh_gv_add(&r->pair, "server=1", &gc));
	print_message("  server probe waited %.2f s for the back-end\n", gvh_now() - t);
	CHECK(gvh_pair_start(&r->pair, 5.0));
	traffic(&r->pair, r, 500, 1000, 0);

	CHECK(gvh_port_remove(&r->pair.vh));
	CHECK(gvh_wait_link(r->pair.gv, false, 5.0));
	bursts_without_backend(r, r->pair.gv);

	/* A new back-end on the same socket: the running port takes it up. */
	gvh_pair_init(&r->pair2);
	snprintf(r->pair2.sock, sizeof(r->pair2.sock), "%s", r->pair.sock);
	CHECK(gvh_vhost_add(&r->pair2, true, &vc));
	CHECK(rte_eth_dev_start(r->pair2.vh));
	r->pair2.gv = r->pair.gv; /* the same gvirtio port */
	r->pair.gv = GVH_NO_PORT;
	t = gvh_now();
	CHECK(gvh_wait_link(r->pair2.vh, true, 10.0));
	CHECK(gvh_wait_link(r->pair2.gv, true, 5.0));
	print_message("  new back-end up after %.2f s\n", gvh_now() - t);
	traffic(&r->pair2, r, 500, 1000, 10000);

	/* And after a stop/start of the port. */
	assert_int_equal(rte_eth_dev_stop(r->pair2.gv), 0);
	assert_true(gvh_pool_full(r->gmp));
	assert_int_equal(rte_eth_dev_start(r->pair2.gv), 0);
	CHECK(gvh_wait_link(r->pair2.vh, true, 5.0));
	CHECK(gvh_wait_link(r->pair2.gv, true, 5.0));
	traffic(&r->pair2, r, 500, 1000, 20000);
	assert_int_equal(rte_eth_dev_stop(r->pair2.gv), 0);
	if (!gvh_pool_full(r->gmp))
		fail_msg("%u of %u mbufs back after stop", gvh_pool_avail(r->gmp), r->gmp->size);
	assert_int_equal(rte_eth_dev_stop(r->pair2.vh), 0);
	assert_true(gvh_pool_full(r->vmp));
}

/* ------------------------------------------------------------ devargs -- */

static unsigned int probe_seq;

/* Probe net_gvirtio_user with `args` (after the name); the port id or -errno. */
static int probe(const char *args, char *name, size_t len)
{
	char buf[600];
	uint16_t port;
	int ret;

	snprintf(name, len, "net_gvirtio_userd%u", probe_seq++);
	snprintf(buf, sizeof(buf), "%s%s%s", name, *args ? "," : "", args);
	ret = rte_dev_probe(buf);
	if (ret)
		return ret < 0 ? ret : -EINVAL;
	ret = rte_eth_dev_get_port_by_name(name, &port);
	return ret ? ret : port;
}

static void test_devargs(void **state)
{
	struct res *r = *state;
	struct gvh_port_conf vc = { 0 };
	char sock[160], nosock[160], longpath[200], args[400], name[40];
	uint16_t nports;
	uint16_t port;
	int ret;
	/* Each makes an otherwise good probe (path=<live socket>) fail. */
	static const char *const bad[] = {
		"bogus=1",	   "server=2",	     "server=",	      "queues=0",
		"queues=129",	   "queues=x",	     "queues=-1",     "queue_size=1",
		"queue_size=40000", "queue_size=abc", "mac=zz",	      "mac=01:00:5e:00:00:01",
		"mac=02:00:00:00:00", "packed_vq=x", "packed_vq=2",   "mrg_rxbuf=yes",
		"in_order=3",	   "datapath=fast",  "datapath=",     "speed=-1",
		"speed=fast",	   "speed",
	};

	r->vmp = gvh_pool(POOL_MBUFS);
	assert_non_null(r->vmp);
	vc.mp = r->vmp;
	gvh_pair_init(&r->pair);
	CHECK(gvh_vhost_add(&r->pair, false, &vc)); /* a live socket */
	snprintf(sock, sizeof(sock), "path=%s", r->pair.sock);
	snprintf(nosock, sizeof(nosock), "path=%s/nobody.sock", gvh_sock_dir());
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[sizeof(longpath) - 1] = 0;
	memcpy(longpath, "path=/tmp/", 10);
	nports = rte_eth_dev_count_avail();

	/* The control: the good devargs probe. */
	snprintf(args, sizeof(args), "%s,server=0,queues=1,queue_size=512,mac=02:11:22:33:44:55,"
		 "packed_vq=1,mrg_rxbuf=0,in_order=0,datapath=full,speed=10000", sock);
	ret = probe(args, name, sizeof(name));
	assert_true(ret >= 0);
	port = (uint16_t)ret;
	{
		struct rte_ether_addr mac, want = { { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 } };

		assert_int_equal(rte_eth_macaddr_get(port, &mac), 0);
		assert_true(rte_is_same_ether_addr(&mac, &want));
	}
	CHECK(gvh_port_remove(&port));
	assert_int_equal(rte_eth_dev_count_avail(), nports);

	for (size_t i = 0; i < RTE_DIM(bad); i++) {
		snprintf(args, sizeof(args), "%s,%s", sock, bad[i]);
		ret = probe(args, name, sizeof(name));
		if (ret >= 0)
			fail_msg("\"%s\" was accepted", args);
		assert_int_equal(rte_eth_dev_get_port_by_name(name, &port), -ENODEV);
		assert_int_equal(rte_eth_dev_count_avail(), nports);
	}
	/* No path, an empty one, one too long for a socket, nobody there. */
	assert_true(probe("", name, sizeof(name)) < 0);
	assert_true(probe("queues=1", name, sizeof(name)) < 0);
	assert_true(probe("path=", name, sizeof(name)) < 0);
	assert_true(probe(longpath, name, sizeof(name)) < 0);
	assert_true(probe(nosock, name, sizeof(name)) < 0);
	assert_int_equal(rte_eth_dev_count_avail(), nports);

	/* The process goes on: a good port still probes, starts and carries traffic. */
	gvh_pair_destroy(&r->pair);
	rte_mempool_free(r->vmp);
	make_pools(r, POOL_MBUFS);
	{
		struct gvh_port_conf vc2 = { .mp = r->vmp }, gc = { .mp = r->gmp };

		gvh_pair_init(&r->pair);
		CHECK(gvh_vhost_add(&r->pair, false, &vc2));
		uint16_t size = 0;

		/* No ring size from the application: queue_size= decides. */
		CHECK(gvh_gv_add(&r->pair, "queue_size=128", &gc));
		CHECK(gvh_pair_start(&r->pair, 5.0));
		CHECK(gvh_vhost_ring_size(r->pair.vh, 0, &size));
		assert_int_equal(size, 128);
		CHECK(gvh_vhost_ring_size(r->pair.vh, 1, &size));
		assert_int_equal(size, 128);
		traffic(&r->pair, r, 100, 64, 0);
	}
}

int main(void)
{
	static const char *const levels[] = { "pmd.net.gvirtio:info", "lib.vhost.*:warning",
					      "pmd.net.vhost:warning", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cycles, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_nombuf, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_nombuf_tiny, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_nombuf_chains, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_backend_gone_client, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_backend_gone_server, res_setup, res_teardown),
		cmocka_unit_test_setup_teardown(test_devargs, res_setup, res_teardown),
	};
	double t0;
	int ret;

	if (gvh_eal_init("gvtest", levels) || !gvh_sock_dir()) {
		fprintf(stderr, "%s\n", gvh_error());
		return 1;
	}
	t0 = gvh_now();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	printf("test_pmd_life: %.1f s\n", gvh_now() - t0);
	gvh_cleanup();
	return ret;
}
