/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loop_tx.c - packets a TX path cannot post as one descriptor with
 * the header in their headroom, through the loopback software device, on
 * every TX path without offloads and both layouts: the vector path
 * (IN_ORDER; it copies such a packet into one fresh mbuf), in-order and
 * simple (they post a chain). Each path gets, mixed with plain packets,
 * chains of two mbufs, packets shared with the application (refcnt 2),
 * indirect clones from a pool without data room, and packets with no
 * headroom: every one arrives in
 * order, byte for byte; the application's reference is left intact; no
 * mbuf leaks. On the vector path also: a chain longer than one mbuf of
 * its pool is dropped and counted (oerrors); with the pool empty the
 * burst stops before the packet and sends it once an mbuf is back; and
 * when the pool's mbufs wait in the TX ring, sent, a reclaim finds them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gv_test_loop.h"
#include "gv_path.h"
#include "gv_queue.h"

/* The clones' own pool: no data room, as applications make them. */
static struct rte_mempool *mp_ind;

struct tx_case {
	const char *args;
	bool vec; /* expects the vector TX path (where the CPU has it) */
};

static const struct tx_case cases[] = {
	{ "packed_vq=0,mrg_rxbuf=0", true },
	{ "packed_vq=0,mrg_rxbuf=1,vectorized=1,queue_size=64", true },
	{ "packed_vq=0,vectorized=0", false },
	{ "packed_vq=0,in_order=0", false },
	{ "packed_vq=1", true },
	{ "packed_vq=1,mrg_rxbuf=0,queue_size=100", true },
	{ "packed_vq=1,vectorized=0", false },
	{ "packed_vq=1,in_order=0", false },
};

/* frame() number seq, `len` bytes, as a chain: bytes [0, cut) in one mbuf of `pool`, the rest in another. */
static struct rte_mbuf *split_frame(struct rte_mempool *pool, const struct rte_ether_addr *dst,
				    uint32_t len, uint32_t seq, uint32_t cut)
{
	struct rte_mbuf *f = frame(len > 2048 ? mp_big : mp, dst, len, seq, -1);
	struct rte_mbuf *a = rte_pktmbuf_alloc(pool), *b = rte_pktmbuf_alloc(pool);

	assert_non_null(a);
	assert_non_null(b);
	memcpy(rte_pktmbuf_append(a, (uint16_t)cut), rte_pktmbuf_mtod(f, char *), cut);
	memcpy(rte_pktmbuf_append(b, (uint16_t)(len - cut)), rte_pktmbuf_mtod_offset(f, char *, cut),
	       len - cut);
	rte_pktmbuf_free(f);
	assert_int_equal(rte_pktmbuf_chain(a, b), 0);
	return a;
}

/* Packet seq of the mix: kind seq % 6 (plain, chain, shared, indirect, no headroom, plain). */
static struct rte_mbuf *odd_frame(const struct rte_ether_addr *dst, uint32_t seq,
				  struct rte_mbuf **held, uint32_t *nheld)
{
	const uint32_t len = flen(seq);
	struct rte_mbuf *m, *c;
	char *d;

	switch (seq % 6) {
	case 1:
		return split_frame(mp, dst, len, seq, 40);
	case 2: /* the application keeps a reference */
		m = frame(mp, dst, len, seq, -1);
		rte_mbuf_refcnt_update(m, 1);
		held[(*nheld)++] = m;
		return m;
	case 3: /* an indirect clone from a pool without data room: its data is the original's */
		m = frame(mp, dst, len, seq, -1);
		c = rte_pktmbuf_clone(m, mp_ind);
		assert_non_null(c);
		rte_pktmbuf_free(m);
		assert_true(RTE_MBUF_CLONED(c));
		return c;
	case 4: /* data at the buffer's start: no room for the header */
		m = frame(mp, dst, len, seq, -1);
		d = rte_pktmbuf_mtod(m, char *);
		memmove(m->buf_addr, d, len);
		m->data_off = 0;
		return m;
	default:
		return frame(mp, dst, len, seq, -1);
	}
}

static void mix(const struct tx_case *tc)
{
	struct port_cfg cfg = { 0 };
	struct rte_mbuf *held[64], *tx[32], *r[64];
	struct rte_ether_addr mac;
	struct rte_eth_stats es;
	uint32_t nheld = 0, seq = 0;
	uint64_t path = 99;
	struct port p;

	print_message("%s\n", tc->args);
	assert_int_equal(port_probe(&p, tc->args), 0);
	port_start(&p, &cfg);
	assert_int_equal(rte_eth_xstats_get_id_by_name(p.id, "tx_path", &path), 0);
	assert_int_equal(rte_eth_xstats_get_by_id(p.id, &path, &path, 1), 1);
	if (tc->vec && gv_tx_path_usable(GV_TX_VEC_SSE))
		assert_int_equal(path, GV_TX_VEC_SSE);
	else
		assert_int_not_equal(path, GV_TX_VEC_SSE);
	rte_eth_macaddr_get(p.id, &mac);
	/* 10 bursts of 32: several laps of the smallest ring. */
	for (uint32_t b = 0; b < 10; b++) {
		uint16_t k;

		nheld = 0;
		for (uint32_t i = 0; i < RTE_DIM(tx); i++)
			tx[i] = odd_frame(&mac, seq + i, held, &nheld);
		send_all(&p, 0, tx, RTE_DIM(tx));
		k = recv_all(&p, 0, r, RTE_DIM(r));
		assert_int_equal(k, RTE_DIM(tx));
		for (uint16_t i = 0; i < k; i++) {
			assert_int_equal(r[i]->pkt_len, flen(seq + i));
			check_frame(r[i], &mac, seq + i);
		}
		free_all(r, k);
		/* Sent mbufs back: the application's references are its own again. */
		rte_eth_tx_done_cleanup(p.id, 0, 0);
		for (uint32_t i = 0; i < nheld; i++) {
			assert_int_equal(rte_mbuf_refcnt_read(held[i]), 1);
			rte_pktmbuf_free(held[i]);
		}
		seq += RTE_DIM(tx);
	}
	assert_int_equal(rte_eth_stats_get(p.id, &es), 0);
	assert_int_equal(es.opackets, seq);
	assert_int_equal(es.oerrors, 0);
	assert_int_equal(stats(&p).tx_chains, seq);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	assert_int_equal(rte_mempool_in_use_count(mp_ind), 0);
}

static void test_mix(void **state)
{
	(void)state;
	for (uint32_t i = 0; i < RTE_DIM(cases); i++)
		mix(&cases[i]);
}

/*
 * The vector path's limits: a 3000-byte chain of 2 KB mbufs cannot be
 * copied into one, so it is dropped (oerrors 1, nothing leaks); with its
 * pool empty, a chain waits (the burst returns 0, the packet is still the
 * application's) and goes once an mbuf is back; with the pool's mbufs
 * sent and waiting in the TX ring, it goes at once (they are reclaimed).
 */
static void vec_limits(const char *args)
{
	struct port_cfg cfg = { 0 };
	struct rte_mempool *small;
	struct rte_mbuf *m, *r[4], *rest[8];
	struct rte_ether_addr mac;
	struct rte_eth_stats es;
	unsigned int n = 0;
	struct port p;

	print_message("%s\n", args);
	assert_int_equal(port_probe(&p, args), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	m = split_frame(mp, &mac, 3000, 1, 1500);
	assert_int_equal(rte_eth_tx_burst(p.id, 0, &m, 1), 1);
	assert_int_equal(recv_all(&p, 0, r, 4), 0);
	assert_int_equal(rte_eth_stats_get(p.id, &es), 0);
	assert_int_equal(es.oerrors, 1);
	assert_int_equal(es.opackets, 0);
	assert_int_equal(stats(&p).tx_chains, 0);
	/* A pool of 10: the chain takes 2, the rest is held. */
	small = rte_pktmbuf_pool_create("gvt_small", 10, 0, 0, 2048 + RTE_PKTMBUF_HEADROOM,
					rte_socket_id());
	assert_non_null(small);
	m = split_frame(small, &mac, 200, 2, 100);
	while (n < RTE_DIM(rest) && (rest[n] = rte_pktmbuf_alloc(small)) != NULL)
		n++;
	assert_int_equal(n, 8);
	assert_int_equal(rte_eth_tx_burst(p.id, 0, &m, 1), 0);
	assert_int_equal(rte_mbuf_refcnt_read(m), 1);
	assert_int_equal(m->nb_segs, 2);
	rte_pktmbuf_free(rest[--n]);
	assert_int_equal(rte_eth_tx_burst(p.id, 0, &m, 1), 1);
	assert_int_equal(recv_all(&p, 0, r, 4), 1);
	assert_int_equal(r[0]->pkt_len, 200);
	check_frame(r[0], &mac, 2);
	free_all(r, 1);
	free_all(rest, (uint16_t)n);
	assert_int_equal(rte_eth_stats_get(p.id, &es), 0);
	assert_int_equal(es.oerrors, 1);
	assert_int_equal(es.opackets, 1);
	/*
	 * The pool's other mbufs sent and returned by the device, still in
	 * the TX ring (room to spare, so no burst reclaimed them): the copy
	 * finds an mbuf after reclaiming them, and the chain goes at once.
	 */
	m = split_frame(small, &mac, 200, 3, 100);
	n = 0;
	while (rte_mempool_avail_count(small) > 0 && n < RTE_DIM(rest)) {
		rest[n] = frame(small, &mac, 60 + n, 10 + n, -1);
		n++;
	}
	assert_true(n >= 6); /* all but the chain and the copy in the ring */
	send_all(&p, 0, rest, (uint16_t)n);
	for (unsigned int k = 0; k < n; k++) {
		assert_int_equal(recv_all(&p, 0, r, 1), 1);
		free_all(r, 1);
	}
	assert_int_equal(rte_mempool_avail_count(small), 0);
	assert_int_equal(rte_eth_tx_burst(p.id, 0, &m, 1), 1);
	assert_int_equal(recv_all(&p, 0, r, 4), 1);
	assert_int_equal(r[0]->pkt_len, 200);
	check_frame(r[0], &mac, 3);
	free_all(r, 1);
	assert_int_equal(rte_eth_stats_get(p.id, &es), 0);
	assert_int_equal(es.oerrors, 1);
	assert_int_equal(es.opackets, 2 + n);
	port_remove(&p);
	assert_int_equal(rte_mempool_in_use_count(small), 0);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	rte_mempool_free(small);
}

static void test_vec_limits(void **state)
{
	(void)state;
	if (!gv_tx_path_usable(GV_TX_VEC_SSE))
		skip();
	vec_limits("packed_vq=0,mrg_rxbuf=0");
	vec_limits("packed_vq=1,mrg_rxbuf=0");
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_vec_limits),
	};

	(void)argc;
	if (gvl_eal_init(argv[0]) < 0)
		return 1;
	mp_ind = rte_pktmbuf_pool_create("gvt_ind", 511, 0, 0, 0, rte_socket_id());
	if (mp_ind == NULL)
		return 1;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
