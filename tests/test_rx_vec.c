/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_rx_vec.c - the vector RX paths (drivers/net/virtio/gv_rx_vec.c on
 * split rings, gv_rx_vec_packed.c on packed rings) over the loopback
 * device, every case on both layouts: which path vectorized=1 gets under EAL's
 * SIMD limit (argv[1] is passed to EAL: --force-max-simd-bitwidth=64
 * must give the scalar path, =128 SSE, the default the widest the CPU
 * has), asserted from the port's xstats and its log; the default
 * (vector with IN_ORDER, else scalar) and vectorized=0; the scalar paths
 * where the vector one is not eligible (mergeable buffers, RX offloads,
 * large frames), with the log saying why; traffic of every length on ring
 * sizes from 32 to 1024 (packed: also 100 and 1000, not powers of two)
 * with the bytes, order, counters and size bins
 * checked; multicast/broadcast counted on the scalar path and TX, not on
 * vector RX (its log says so); stop/start cycles give every mbuf back; a pool smaller than
 * the ring; a start whose RX ring cannot enter fixed mode fails and
 * gives every mbuf back.
 */
#include <stdlib.h>

#include <rte_cpuflags.h>
#include <rte_vect.h>

#include <ethdev_driver.h>

#include "gv_path.h"
#include "gv_queue.h"
#include "gv_test_loop.h"
#include "gv_vq_priv.h"

/* GV_RX_* of gv_pmd.h, as the rx_path xstat reports them. */
enum { RX_SIMPLE = 0, RX_MRG = 1, RX_FULL = 2, RX_VEC_SSE = 3, RX_VEC_AVX2 = 4 };

static unsigned int simd_limit; /* --force-max-simd-bitwidth, 0: EAL's default */

/* What vectorized=1 must get on an eligible port, from the CPU and the limit. */
static int expected_vec_path(void)
{
#ifdef RTE_ARCH_X86
	unsigned int limit = simd_limit ? simd_limit : RTE_VECT_SIMD_256;

	if (limit >= 256 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_AVX2) > 0)
		return RX_VEC_AVX2;
	if (limit >= 128 && rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) > 0)
		return RX_VEC_SSE;
#endif
	return RX_SIMPLE;
}

/* The same with mergeable buffers: the mergeable path where no vector one. */
static int expected_path(bool mrg)
{
	int want = expected_vec_path();

	return want == RX_SIMPLE && mrg ? RX_MRG : want;
}

static const char *path_log(int path)
{
	return path == RX_VEC_AVX2 ? "rx path vectorized (AVX2)"
	       : path == RX_VEC_SSE ? "rx path vectorized (SSE)" : "rx path simple";
}

static uint64_t xstat(const struct port *p, const char *name)
{
	uint64_t id, v;

	assert_int_equal(rte_eth_xstats_get_id_by_name(p->id, name, &id), 0);
	assert_int_equal(rte_eth_xstats_get_by_id(p->id, &id, &v, 1), 1);
	return v;
}

/* The port's chosen RX path is `path`; its log and rx_burst_mode_get say so. */
static void check_path(const struct port *p, int path)
{
	struct rte_eth_burst_mode mode;

	assert_int_equal(xstat(p, "rx_path"), (uint64_t)path);
	assert_true(log_has(path_log(path)));
	memset(&mode, 0, sizeof(mode));
	assert_int_equal(rte_eth_rx_burst_mode_get(p->id, 0, &mode), 0);
	assert_string_equal(mode.info, path_log(path) + strlen("rx path "));
	if (path < RX_VEC_SSE)
		assert_true(log_has("vectorized=1: no vector rx path fits"));
}

/* "packed_vq=L,<rest>" */
static const char *with_layout(char *buf, size_t len, int packed, const char *rest)
{
	snprintf(buf, len, "packed_vq=%d,%s", packed, rest);
	return buf;
}

static void path_choice(int packed)
{
	struct port_cfg cfg = { 0 };
	struct port p;
	int want = expected_vec_path();
	char a[160];

	print_message("packed_vq=%d, SIMD limit %u: expecting %s\n", packed, simd_limit,
		      path_log(want));
	log_start();
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0,vectorized=1")),
			 0);
	port_start(&p, &cfg);
	check_path(&p, want);
	port_remove(&p);
	/* Without the devarg: the vector path with IN_ORDER (the default), else scalar. */
	log_start();
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0")), 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), (uint64_t)want);
	assert_true(log_has(path_log(want)));
	assert_false(log_has("vectorized=1"));
	port_remove(&p);
	log_start();
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0,in_order=0")),
			 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), RX_SIMPLE);
	assert_false(log_has("vectorized"));
	port_remove(&p);
	/* vectorized=0: scalar, in order or not. */
	log_start();
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0,vectorized=0")),
			 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), RX_SIMPLE);
	assert_false(log_has("vectorized"));
	port_remove(&p);
	/* Mergeable buffers: the same rules, the mergeable path where no vector one. */
	log_start();
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=1")), 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), (uint64_t)expected_path(true));
	port_remove(&p);
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=1,in_order=0")),
			 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), RX_MRG);
	port_remove(&p);
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=1,vectorized=0")),
			 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), RX_MRG);
	port_remove(&p);
}

static void test_path_choice(void **state)
{
	(void)state;
	path_choice(0);
	path_choice(1);
}

/* vectorized=1 where no vector path fits: the scalar rules, and the log says why. */
static void test_not_eligible(void **state)
{
	static const struct {
		const char *args;
		uint64_t rxo;
		uint16_t mtu;
		int path;
	} cases[] = {
		{ "packed_vq=0,mrg_rxbuf=1,mtu=9000,vectorized=1", 0, 9000, RX_MRG },
		{ "packed_vq=1,mrg_rxbuf=1,mtu=9000,vectorized=1", 0, 9000, RX_MRG },
		{ "packed_vq=1,mrg_rxbuf=1,vectorized=1", RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, RX_MRG },
		{ "packed_vq=1,mrg_rxbuf=0,vectorized=1", RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, RX_FULL },
		{ "packed_vq=0,mrg_rxbuf=0,vectorized=1", RTE_ETH_RX_OFFLOAD_UDP_CKSUM, 0, RX_FULL },
		{ "packed_vq=0,mrg_rxbuf=0,mtu=9000,vectorized=1", 0, 9000, RX_FULL },
		{ "packed_vq=0,mrg_rxbuf=0,datapath=full,vectorized=1", 0, 0, RX_FULL },
	};

	(void)state;
	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		struct port_cfg cfg = { .rxo = cases[i].rxo, .mtu = cases[i].mtu };
		struct port p;

		print_message("%s rx offloads 0x%" PRIx64 "\n", cases[i].args, cases[i].rxo);
		log_start();
		assert_int_equal(port_probe(&p, cases[i].args), 0);
		port_start(&p, &cfg);
		assert_int_equal(xstat(&p, "rx_path"), (uint64_t)cases[i].path);
		assert_true(log_has("vectorized=1: no vector rx path fits"));
		port_remove(&p);
	}
}

/* 60..2000 bytes: every size bin, both sides of each threshold. */
static uint32_t vlen(uint32_t i)
{
	return 60 + (i * 37) % 1941;
}

/*
 * Frames of every length from 60 to 2000 bytes through the loopback, in
 * bursts of 1 to 32 so that the used ring wraps at every offset: each
 * comes back once, in order, with its bytes; packets, bytes and size bins
 * agree with what was sent; no error, no hardening counter.
 */
static void run_traffic(const char *args, uint32_t total)
{
	struct port_cfg cfg = { .mtu = 2000 - RTE_ETHER_HDR_LEN };
	struct port p;
	struct rte_ether_addr mac;
	uint64_t bytes = 0, bins[8] = { 0 };
	uint32_t seq = 0, rx = 0;
	char all[192];

	snprintf(all, sizeof(all), "%s,mtu=%u", args, cfg.mtu);
	print_message("devargs: %s, %u frames\n", all, total);
	log_start();
	assert_int_equal(port_probe(&p, all), 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"),
			 (uint64_t)expected_path(strstr(args, "mrg_rxbuf=1") != NULL));
	rte_eth_macaddr_get(p.id, &mac);
	while (seq < total) {
		struct rte_mbuf *tx[32], *r[64];
		uint16_t n = (uint16_t)(1 + (seq / 7) % 32), k;

		if (n > total - seq)
			n = (uint16_t)(total - seq);
		for (uint16_t i = 0; i < n; i++)
			tx[i] = frame(mp, &mac, vlen(seq + i), seq + i, -1);
		send_all(&p, 0, tx, n);
		k = recv_all(&p, 0, r, 64);
		assert_int_equal(k, n);
		for (uint16_t i = 0; i < k; i++) {
			uint32_t len = r[i]->pkt_len;

			assert_int_equal(len, vlen(seq + i));
			assert_int_equal(r[i]->data_len, len);
			assert_int_equal(r[i]->nb_segs, 1);
			assert_int_equal(r[i]->port, p.id);
			assert_int_equal(r[i]->ol_flags, 0);
			assert_int_equal(r[i]->packet_type, 0);
			assert_int_equal(rte_mbuf_refcnt_read(r[i]), 1);
			check_frame(r[i], &mac, seq + i);
			bytes += len;
			bins[len == 64 ? 1 : len < 64 ? 0 : len <= 127 ? 2 : len <= 255 ? 3
			     : len <= 511 ? 4 : len <= 1023 ? 5 : len <= 1518 ? 6 : 7]++;
		}
		free_all(r, k);
		rx += k;
		seq += n;
	}
	assert_int_equal(xstat(&p, "rx_good_packets"), rx);
	assert_int_equal(xstat(&p, "rx_good_bytes"), bytes);
	assert_int_equal(xstat(&p, "rx_errors"), 0);
	for (unsigned int b = 0; b < 8; b++) {
		static const char *const name[8] = {
			"rx_q0_undersize_packets",     "rx_q0_size_64_packets",
			"rx_q0_size_65_127_packets",   "rx_q0_size_128_255_packets",
			"rx_q0_size_256_511_packets",  "rx_q0_size_512_1023_packets",
			"rx_q0_size_1024_1518_packets", "rx_q0_size_1519_max_packets",
		};

		/* Every bin is hit (60 and 64 bytes come by often enough). */
		assert_true(bins[b] > 0 || total < 1000);
		assert_int_equal(xstat(&p, name[b]), bins[b]);
	}
	assert_int_equal(xstat(&p, "rx_q0_bad_id") + xstat(&p, "rx_q0_id_not_inflight") +
				 xstat(&p, "rx_q0_bad_len") + xstat(&p, "rx_q0_bad_used_idx") +
				 xstat(&p, "rx_q0_bad_order"),
			 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void test_traffic(void **state)
{
	(void)state;
	run_traffic("packed_vq=0,mrg_rxbuf=0,vectorized=1", 3000);
	run_traffic("packed_vq=0,mrg_rxbuf=0,in_order=0,vectorized=1", 3000);
	run_traffic("packed_vq=0,mrg_rxbuf=0,queue_size=32,vectorized=1", 2000);
	run_traffic("packed_vq=0,mrg_rxbuf=0,in_order=0,queue_size=1024,vectorized=1", 3000);
	run_traffic("packed_vq=0,mrg_rxbuf=0,features=0x1000000000,vectorized=1", 1000);
}

/* The same on packed rings, also sizes that are not powers of two. */
static void test_traffic_packed(void **state)
{
	(void)state;
	run_traffic("packed_vq=1,mrg_rxbuf=0,vectorized=1", 3000);
	run_traffic("packed_vq=1,mrg_rxbuf=0,in_order=0,vectorized=1", 3000);
	run_traffic("packed_vq=1,mrg_rxbuf=0,queue_size=32,vectorized=1", 2000);
	run_traffic("packed_vq=1,mrg_rxbuf=0,queue_size=100,vectorized=1", 2000);
	run_traffic("packed_vq=1,mrg_rxbuf=0,in_order=0,queue_size=1000,vectorized=1", 3000);
	run_traffic("packed_vq=1,mrg_rxbuf=0,features=0x1000000000,vectorized=1", 1000);
}

/* Mergeable buffers on: the same traffic, every frame in one buffer. */
static void test_traffic_mrg(void **state)
{
	(void)state;
	run_traffic("packed_vq=0,mrg_rxbuf=1,vectorized=1", 3000);
	run_traffic("packed_vq=0,mrg_rxbuf=1,in_order=0,queue_size=64,vectorized=1", 2000);
	run_traffic("packed_vq=1,mrg_rxbuf=1,vectorized=1", 3000);
	run_traffic("packed_vq=1,mrg_rxbuf=1,in_order=0,queue_size=100,vectorized=1", 2000);
}

/*
 * Frame lengths for mrg_chains: short of a full 2048-byte buffer (2036
 * bytes of frame after the 12-byte header), exactly full, and 2037 to
 * 9000 bytes (2 to 5 buffers).
 */
static uint32_t mrg_len(uint32_t i)
{
	static const uint32_t l[] = { 60,  2036, 1500, 2037, 64,   4000, 6000,
				      2035, 3000, 100, 8000, 2036, 2036, 5000, 9000 };

	return l[i % RTE_DIM(l)];
}

/*
 * A port with mergeable buffers, MTU 1500 (the vector path where the CPU
 * has one), the device's MTU 9000; `more` devargs.
 */
static void mrg_port(struct port *p, int packed, const char *more, struct rte_ether_addr *mac)
{
	struct port_cfg cfg = { 0 };
	char a[160], b[128];

	snprintf(b, sizeof(b), "mrg_rxbuf=1,mtu=9000,vectorized=1%s", more);
	print_message("%s\n", with_layout(a, sizeof(a), packed, b));
	assert_int_equal(port_probe(p, a), 0);
	port_start(p, &cfg);
	assert_int_equal(xstat(p, "rx_path"), (uint64_t)expected_path(true));
	rte_eth_macaddr_get(p->id, mac);
}

/*
 * Mergeable buffers on the vector path. The device must fill every buffer
 * of a packet but its last, so only a filled buffer can start a packet of
 * several. The port's MTU is 1500 (so the vector path), the device's 9000:
 * frames short of a full buffer (the vector checks), frames that fill one
 * exactly (num_buffers 1, read from the header), and frames the device
 * spreads over 2 to 5 buffers, mixed, sent in bursts of 1 to 9 and taken
 * in bursts of 1 to 5, so such a packet starts and ends anywhere in a
 * burst: each arrives once, in order, byte for byte, chained where it did
 * not fit one buffer, even when the burst asked for one packet only; the
 * counters agree; no error; no mbuf is left.
 */
static void mrg_chains(int packed, const char *more)
{
	struct port p;
	struct rte_ether_addr mac;
	uint64_t bytes = 0, big = 0, chained = 0;
	uint32_t seq = 0;
	const uint32_t total = 1500;

	mrg_port(&p, packed, more, &mac);
	while (seq < total) {
		struct rte_mbuf *tx[9], *r[5];
		const uint16_t n = (uint16_t)(1 + seq % 9), per = (uint16_t)(1 + (seq / 9) % 5);
		uint16_t got = 0;

		for (uint16_t i = 0; i < n; i++) {
			const uint32_t len = mrg_len(seq + i);

			tx[i] = frame(len > 2048 ? mp_big : mp, &mac, len, seq + i, -1);
		}
		send_all(&p, 0, tx, n);
		/* The device is synchronous: every packet is there, whole. */
		while (got < n) {
			const uint16_t k = rte_eth_rx_burst(p.id, 0, r, RTE_MIN(per, n - got));

			assert_true(k > 0);
			for (uint16_t i = 0; i < k; i++) {
				const uint32_t len = mrg_len(seq + got + i);

				assert_int_equal(r[i]->pkt_len, len);
				/* Buffers of 2048 bytes, the first one's 12 the header. */
				assert_int_equal(r[i]->nb_segs, (len + 12 + 2047) / 2048);
				/* The header shared the frame's first cache line. */
				assert_int_equal(r[i]->data_off, RTE_PKTMBUF_HEADROOM + 12);
				assert_int_equal(rte_mbuf_refcnt_read(r[i]), 1);
				assert_int_equal(r[i]->port, p.id);
				assert_int_equal(r[i]->ol_flags, 0);
				check_frame(r[i], &mac, seq + got + i);
				bytes += len;
				big += len > 1518;
				chained += r[i]->nb_segs > 1;
			}
			free_all(r, k);
			got = (uint16_t)(got + k);
		}
		assert_int_equal(rte_eth_rx_burst(p.id, 0, r, 5), 0);
		seq += n;
	}
	assert_true(chained > total / 3);
	assert_int_equal(xstat(&p, "rx_good_packets"), total);
	assert_int_equal(xstat(&p, "rx_good_bytes"), bytes);
	assert_int_equal(xstat(&p, "rx_q0_size_1519_max_packets"), big);
	assert_int_equal(xstat(&p, "rx_errors"), 0);
	assert_int_equal(xstat(&p, "rx_q0_bad_id") + xstat(&p, "rx_q0_id_not_inflight") +
				 xstat(&p, "rx_q0_bad_len") + xstat(&p, "rx_q0_bad_used_idx") +
				 xstat(&p, "rx_q0_bad_order"),
			 0);
	assert_int_equal(stats(&p).drop_too_big + stats(&p).drop_no_buffer, 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	assert_int_equal(rte_mempool_in_use_count(mp_big), 0);
}

static void test_mrg_chains(void **state)
{
	(void)state;
	for (int packed = 0; packed < 2; packed++) {
		mrg_chains(packed, "");
		mrg_chains(packed, ",in_order=0");
		mrg_chains(packed, ",queue_size=64");
		mrg_chains(packed, packed ? ",queue_size=100" : ",queue_size=32");
	}
}

/*
 * A packet of several buffers seen in part: the device publishes all but
 * its last buffer (rte_pmd_gvirtio_loop_rx_hold) and the driver polls:
 * nothing yet, the packet is open; then the device publishes that buffer
 * and eight one-buffer frames after it: the next bursts give the whole
 * packet first, then the eight, in order, byte for byte (no buffer of the
 * open packet taken as a packet of its own).
 */
static void mrg_held(int packed, const char *more)
{
	struct port p;
	struct rte_ether_addr mac;
	uint32_t seq = 0;

	mrg_port(&p, packed, more, &mac);
	assert_int_equal(rte_pmd_gvirtio_loop_rx_hold(p.id, true), 0);
	for (uint32_t round = 0; round < 200; round++) {
		struct rte_mbuf *tx[8], *r[16];
		const uint32_t big = 2049 + (round * 997) % 6000;
		uint16_t k;

		tx[0] = frame(mp_big, &mac, big, seq, -1);
		send_all(&p, 0, tx, 1);
		assert_int_equal(rte_eth_rx_burst(p.id, 0, r, 8), 0);
		for (uint16_t i = 0; i < 8; i++)
			tx[i] = frame(mp, &mac, 60 + (round + i * 181) % 1400, seq + 1 + i, -1);
		send_all(&p, 0, tx, 8);
		k = recv_all(&p, 0, r, 16);
		assert_int_equal(k, 9);
		assert_int_equal(r[0]->pkt_len, big);
		assert_true(r[0]->nb_segs > 1);
		for (uint16_t i = 0; i < k; i++) {
			if (i)
				assert_int_equal(r[i]->pkt_len, 60 + (round + (i - 1) * 181) % 1400);
			check_frame(r[i], &mac, seq + i);
		}
		free_all(r, k);
		seq += 9;
	}
	assert_int_equal(xstat(&p, "rx_good_packets"), seq);
	assert_int_equal(xstat(&p, "rx_errors"), 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	assert_int_equal(rte_mempool_in_use_count(mp_big), 0);
}

static void test_mrg_held(void **state)
{
	(void)state;
	mrg_held(0, "");
	mrg_held(0, ",queue_size=32");
	mrg_held(1, "");
	mrg_held(1, ",queue_size=100");
}

/*
 * Multicast and broadcast counters: frames to the port's own address, to
 * broadcast and to two multicast groups (all-multicast on). TX counts
 * them on every path; scalar RX counts them; vector RX keeps them at 0
 * and its log says so (it reads no packet: gv_rx_vec.h).
 */
static void l2_counters(int packed, int vec)
{
	static const struct rte_ether_addr dst[4] = {
		{ { 0 } }, /* the port's own, filled in */
		{ { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } },
		{ { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 } },
		{ { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 } },
	};
	struct port_cfg cfg = { 0 };
	struct port p;
	struct rte_ether_addr to[4];
	uint64_t want[4] = { 0 };
	uint32_t seq = 0, rx = 0;
	int path = vec ? expected_vec_path() : RX_SIMPLE;
	char a[96];

	snprintf(a, sizeof(a), "packed_vq=%d,mrg_rxbuf=0,vectorized=%d", packed, vec);
	/* No vector path here (the CPU or EAL's SIMD limit): the scalar one is checked twice. */
	print_message("%s: %s\n", a, path_log(path));
	log_start();
	assert_int_equal(port_probe(&p, a), 0);
	port_start(&p, &cfg);
	assert_int_equal(xstat(&p, "rx_path"), (uint64_t)path);
	assert_int_equal(rte_eth_allmulticast_enable(p.id), 0);
	memcpy(to, dst, sizeof(to));
	rte_eth_macaddr_get(p.id, &to[0]);
	while (seq < 600) {
		struct rte_mbuf *tx[32], *r[64];
		/* Bursts of 1 to 32, so groups of 4 and 8 and singles all see each kind. */
		uint16_t n = (uint16_t)(1 + (seq / 5) % 32), k;

		for (uint16_t i = 0; i < n; i++) {
			/* Mostly unicast, a group address every few frames. */
			unsigned int d = (seq + i) % 7 < 4 ? 0 : (seq + i) % 7 - 3;

			tx[i] = frame(mp, &to[d], 60 + (seq + i) % 100, seq + i, -1);
			want[d]++;
		}
		send_all(&p, 0, tx, n);
		k = recv_all(&p, 0, r, 64);
		assert_int_equal(k, n);
		for (uint16_t i = 0; i < k; i++) {
			unsigned int d = (seq + i) % 7 < 4 ? 0 : (seq + i) % 7 - 3;

			check_frame(r[i], &to[d], seq + i);
		}
		free_all(r, k);
		rx += k;
		seq += n;
	}
	assert_int_equal(xstat(&p, "rx_good_packets"), rx);
	assert_int_equal(xstat(&p, "tx_q0_broadcast_packets"), want[1]);
	assert_int_equal(xstat(&p, "tx_q0_multicast_packets"), want[2] + want[3]);
	if (path >= RX_VEC_SSE) {
		assert_int_equal(xstat(&p, "rx_q0_broadcast_packets"), 0);
		assert_int_equal(xstat(&p, "rx_q0_multicast_packets"), 0);
		assert_true(log_has("vector rx keeps no multicast/broadcast counters"));
	} else {
		assert_int_equal(xstat(&p, "rx_q0_broadcast_packets"), want[1]);
		assert_int_equal(xstat(&p, "rx_q0_multicast_packets"), want[2] + want[3]);
		assert_false(log_has("keeps no multicast"));
	}
	assert_true(want[1] > 0 && want[2] > 0 && want[3] > 0);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void test_l2_counters(void **state)
{
	(void)state;
	for (int packed = 0; packed < 2; packed++) {
		l2_counters(packed, 0);
		l2_counters(packed, 1);
	}
}

/* Stop/start cycles with traffic in between: every mbuf comes back. */
static void restart(int packed)
{
	struct port_cfg cfg = { 0 };
	struct port p;
	struct rte_ether_addr mac;
	char a[160];

	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0,vectorized=1")),
			 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	for (int cycle = 0; cycle < 20; cycle++) {
		struct rte_mbuf *tx[16], *r[32];
		uint16_t n = (uint16_t)(1 + cycle % 16), k;

		for (uint16_t i = 0; i < n; i++)
			tx[i] = frame(mp, &mac, flen(cycle + i), i, -1);
		send_all(&p, 0, tx, n);
		/* Leave some on the ring over the stop. */
		k = cycle % 2 ? recv_all(&p, 0, r, 32) : 0;
		assert_true(cycle % 2 == 0 || k == n);
		free_all(r, k);
		assert_int_equal(rte_eth_dev_stop(p.id), 0);
		assert_int_equal(rte_mempool_in_use_count(mp), 0);
		assert_int_equal(rte_eth_dev_start(p.id), 0);
		assert_int_equal(xstat(&p, "rx_path"), (uint64_t)expected_vec_path());
	}
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static void test_restart(void **state)
{
	(void)state;
	restart(0);
	restart(1);
}

/*
 * A pool smaller than the ring: the refill posts what it gets (halving),
 * counts the rest as rx_nombuf, traffic still flows while the application
 * holds and returns mbufs, and every mbuf is back after stop.
 */
static void small_pool(int packed)
{
	struct rte_mempool *small = rte_pktmbuf_pool_create("gvvec_small", 100, 0, 0,
							    RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct port p;
	uint32_t rx = 0;
	char a[160];

	assert_non_null(small);
	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed, "mrg_rxbuf=0,vectorized=1")),
			 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(p.id, 1, 1, &conf), 0);
	assert_int_equal(rte_eth_rx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, NULL, small), 0);
	assert_int_equal(rte_eth_tx_queue_setup(p.id, 0, 256, SOCKET_ID_ANY, NULL), 0);
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	assert_int_equal(xstat(&p, "rx_path"), (uint64_t)expected_vec_path());
	/* 100 of 256 posted: the pool is empty, the shortfall counted. */
	assert_int_equal(rte_mempool_avail_count(small), 0);
	assert_true(xstat(&p, "rx_mbuf_allocation_errors") > 0);
	rte_eth_macaddr_get(p.id, &mac);
	for (uint32_t round = 0; round < 40; round++) {
		struct rte_mbuf *tx[16], *r[32];
		uint16_t k;

		for (uint16_t i = 0; i < 16; i++)
			tx[i] = frame(mp, &mac, flen(round * 16 + i), round * 16 + i, -1);
		send_all(&p, 0, tx, 16);
		k = recv_all(&p, 0, r, 32);
		assert_int_equal(k, 16);
		for (uint16_t i = 0; i < k; i++)
			assert_int_equal(r[i]->pkt_len, flen(round * 16 + i));
		free_all(r, k);
		rx += k;
	}
	assert_int_equal(xstat(&p, "rx_good_packets"), rx);
	port_remove(&p);
	assert_int_equal(rte_mempool_avail_count(small), 100);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	rte_mempool_free(small);
}

static void test_small_pool(void **state)
{
	(void)state;
	small_pool(0);
	small_pool(1);
}

/*
 * The ring of an RX queue cannot enter fixed mode (the core refuses a
 * broken queue; the test breaks queue 1's before the start, as a bad
 * device write would): the start fails with that error and the log names
 * the port and queue; queue 0's buffers, posted before, are back in the
 * pool. The stop path reset the ring, so the next start runs and the
 * queue moves traffic; after close the pool is full.
 */
static void enable_fails(int packed)
{
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	struct rte_mbuf *tx[8], *r[16];
	struct gv_rxq *rxq;
	struct port p;
	char a[160], want[96];

	assert_int_equal(port_probe(&p, with_layout(a, sizeof(a), packed,
						    "mrg_rxbuf=0,vectorized=1,queues=2")), 0);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(rte_eth_dev_configure(p.id, 2, 2, &conf), 0);
	for (uint16_t q = 0; q < 2; q++) {
		assert_int_equal(rte_eth_rx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, NULL, mp), 0);
		assert_int_equal(rte_eth_tx_queue_setup(p.id, q, 256, SOCKET_ID_ANY, NULL), 0);
	}
	rxq = rte_eth_devices[p.id].data->rx_queues[1];
	GV_VQ_FAIL(rxq->q.vq, bad_id);
	log_start();
	assert_int_equal(rte_eth_dev_start(p.id), -EIO);
	snprintf(want, sizeof(want), "%s: rx queue 1: cannot set up the vector path's ring",
		 p.name);
	assert_true(log_has(want));
	assert_false(rte_eth_devices[p.id].data->dev_started);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	/* Started for real: both queues hold buffers and move traffic. */
	assert_int_equal(rte_eth_dev_start(p.id), 0);
	assert_int_equal(xstat(&p, "rx_path"), (uint64_t)expected_vec_path());
	assert_int_equal(rte_mempool_in_use_count(mp), 2 * 256);
	rte_eth_macaddr_get(p.id, &mac);
	for (uint16_t q = 0; q < 2; q++) {
		uint16_t k;

		for (uint16_t i = 0; i < 8; i++)
			tx[i] = frame(mp, &mac, flen(i), i, -1);
		send_all(&p, q, tx, 8);
		k = recv_all(&p, q, r, 16);
		assert_int_equal(k, 8);
		for (uint16_t i = 0; i < k; i++)
			check_frame(r[i], &mac, i);
		free_all(r, k);
	}
	port_remove(&p);
	assert_int_equal(rte_mempool_avail_count(mp), mp->size);
}

static void test_enable_fails(void **state)
{
	(void)state;
	/* Without a vector path (SIMD limit 64) no ring enters fixed mode. */
	if (expected_vec_path() == RX_SIMPLE) {
		assert_true(simd_limit == 64 || rte_cpu_get_flag_enabled(RTE_CPUFLAG_SSE4_2) <= 0);
		return;
	}
	enable_fails(0);
	enable_fails(1);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path_choice),
		cmocka_unit_test(test_not_eligible),
		cmocka_unit_test(test_traffic),
		cmocka_unit_test(test_traffic_packed),
		cmocka_unit_test(test_traffic_mrg),
		cmocka_unit_test(test_mrg_chains),
		cmocka_unit_test(test_mrg_held),
		cmocka_unit_test(test_l2_counters),
		cmocka_unit_test(test_restart),
		cmocka_unit_test(test_small_pool),
		cmocka_unit_test(test_enable_fails),
	};
	static char prefix[64];
	char *eal[] = { argv[0], "--no-huge", "-m", "256", "--no-pci", "--no-telemetry",
			"--log-level=pmd.net.gvirtio:info", prefix, "-l", "0", NULL, NULL };
	int n = 10, ret;

	snprintf(prefix, sizeof(prefix), "--file-prefix=gvvec_%d", (int)getpid());
	if (argc > 1) {
		const char *v = strchr(argv[1], '=');

		eal[n++] = argv[1];
		simd_limit = v ? (unsigned int)atoi(v + 1) : 0;
	}
	if (rte_eal_init(n, eal) < 0) {
		fprintf(stderr, "rte_eal_init: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_vect_get_max_simd_bitwidth() != (simd_limit ? simd_limit : RTE_VECT_SIMD_256)) {
		fprintf(stderr, "EAL's SIMD limit is %u, not %u\n", rte_vect_get_max_simd_bitwidth(),
			simd_limit ? simd_limit : RTE_VECT_SIMD_256);
		return 1;
	}
	mp = rte_pktmbuf_pool_create("gvvec_mp", 4095, 128, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	mp_big = rte_pktmbuf_pool_create("gvvec_big", 1023, 0, 0, 16384 + RTE_PKTMBUF_HEADROOM,
					 SOCKET_ID_ANY);
	if (!mp || !mp_big || log_capture_open())
		return 1;
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	log_capture_close();
	rte_eal_cleanup();
	return ret;
}
