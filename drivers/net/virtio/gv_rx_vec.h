/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rx_vec.h - what the vector RX paths of both ring layouts share
 * (gv_rx_vec.c: split, gv_rx_vec_packed.c: packed): a short pool, a
 * returned buffer taken one by one (runts are errors), the refill, the
 * general verb's loop and the end of a burst for either layout (the
 * layout a literal `L`: each copy calls one layout's code through the
 * core's fixed-mode verbs, gv_vq_fixed.h; no run-time choice), and on
 * x86 the vector pieces: four mbufs made fresh packets from four lengths, size bins and bytes
 * counted in vectors of four or eight lengths. Multicast and broadcast
 * are not counted on these paths (as on DPDK's vector paths): that needs
 * a read of each packet, a cache miss when the device's core wrote it;
 * vectorized=0 keeps them. Internal to the PMD.
 */
#ifndef GV_RX_VEC_H
#define GV_RX_VEC_H

#include "gv_rxtx.h"
#include "gv_vq_fixed.h"

#ifdef RTE_ARCH_X86
#include <immintrin.h>
#endif

static_assert(offsetof(struct rte_mbuf, ol_flags) == offsetof(struct rte_mbuf, rearm_data) + 8,
	      "mbuf layout");
static_assert(offsetof(struct rte_mbuf, hash) ==
	      offsetof(struct rte_mbuf, rx_descriptor_fields1) + 12, "mbuf layout");

/* gv_rx_vec_packed.c: the packed ring's bursts (x86). */
uint16_t gv_rxp_vec_sse_smp(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t gv_rxp_vec_sse_mand(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t gv_rxp_vec_avx2_smp(void *q, struct rte_mbuf **pkts, uint16_t n);
uint16_t gv_rxp_vec_avx2_mand(void *q, struct rte_mbuf **pkts, uint16_t n);

/*
 * The pool could not give n at once: fewer (halving) while any can be
 * had, so the ring takes what there is. How many it got; when none, the
 * free room left is counted as allocation failures.
 */
static __rte_noinline uint32_t vec_alloc_short(struct gv_rxq *rxq, void **slots, uint32_t n)
{
	while ((n /= 2) != 0 && rte_mempool_get_bulk(rxq->mp, slots, n) != 0)
		;
	if (n == 0)
		rxq->nombuf += gvb_num_free(rxq->q.vq);
	return n;
}

/* A returned buffer that is not a packet: freed (posted mbufs come raw from the pool). */
static __rte_always_inline void vec_drop(const struct gv_rxq *rxq, struct rte_mbuf *m)
{
	gv_rx_init_mbuf(rxq, m, 0);
	rte_pktmbuf_free(m);
}

/*
 * A buffer a general verb returned with `len` bytes written: a packet
 * into pkts[*nrx] (counted), or a runt (an error, the mbuf freed).
 *
 * With mergeable buffers the device must fill every buffer of a packet
 * but its last (virtio 1.x, 5.1.6.4), so a buffer it did not fill is a
 * whole packet; the vector checks pass only those. A filled one comes
 * here and may start a packet of several buffers (a frame longer than the
 * port's MTU, or than an mbuf): it and the buffers after it are chained
 * as on the mergeable path (gv_rx_mrg_add), all through here until the
 * packet is whole (the bursts test mrg_head).
 */
static __rte_always_inline void vec_one(struct gv_rxq *rxq, struct rte_mbuf *m, uint32_t len,
					struct rte_mbuf **pkts, uint16_t *nrx, uint64_t *bytes)
{
	const uint16_t hdr = rxq->hdr_size;

	if (rxq->mrg && (rxq->mrg_head || len >= rxq->seg_len)) {
		m = gv_rx_mrg_add(rxq, m, len);
		if (m) {
			*bytes += m->pkt_len;
			count_size(&rxq->q.st, m->pkt_len);
			pkts[(*nrx)++] = m;
		}
		return;
	}
	if (unlikely(len <= hdr)) {
		rxq->q.st.errors++;
		vec_drop(rxq, m);
		return;
	}
	gv_rx_init_mbuf(rxq, m, len - hdr);
	*bytes += len - hdr;
	count_size(&rxq->q.st, len - hdr);
	pkts[(*nrx)++] = m;
}

/* ------------------------------------ both layouts, by the literal L -- */

/*
 * Post buffers on every free position (up to the ring's end, then from
 * 0), raw from the pool straight into the core's cookie array; then kick
 * (packed: the batch's first flags are published there).
 */
static __rte_always_inline void vec_refill(struct gv_rxq *rxq, const enum gv_layout L,
					   const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint64_t front = rxq->front;
	uint32_t n;
	void **slots;

	while ((slots = gvf_post_slots(vq, &n, L)), n != 0) {
		if (unlikely(rte_mempool_get_bulk(rxq->mp, slots, n) != 0) &&
		    (n = vec_alloc_short(rxq, slots, n)) == 0)
			break;
		gvf_post_commit(vq, n, rxq->addr_off, front, L);
	}
	kick(&rxq->q, L, B);
}

/*
 * A queue's first buffers on the vector path (port start, restart): the
 * ring into fixed mode, then a refill. 0, or the core's error when the
 * ring cannot enter fixed mode (logged; nothing posted).
 */
static __rte_always_inline int vec_refill_first(struct gv_rxq *rxq, const enum gv_layout L)
{
	struct gv_vq *vq = rxq->q.vq;
	const int ret = gvf_enable(vq, rxq->seg_len, L);

	if (ret) {
		GV_LOG(ERR, "%s: rx queue %u: cannot set up the vector path's ring (%s)",
		       rxq->q.hw->name, rxq->q.queue_id, strerror(-ret));
		return ret;
	}
	if (rxq->q.hw->barrier == GV_BARRIER_MANDATORY)
		vec_refill(rxq, L, GV_BARRIER_MANDATORY);
	else
		vec_refill(rxq, L, GV_BARRIER_SMP);
	return 0;
}

/*
 * Entries one by one through the core's general verb (out of order,
 * runts, anything odd) into pkts[nrx...]; the packets kept. Where it
 * stops differs by layout: split's used index said which entries are
 * there (gvf_ready), so it takes the burst's entries nrx..end-1 (runts
 * dropped on the way still count as entries); packed has no index and
 * takes descriptors until `end` packets, or one not used yet. A packet of
 * several mergeable buffers that the split burst's entries leave open is
 * completed from the entries after them where they are there (a burst
 * of one still returns it). A broken queue stops both: its mbuf stays
 * posted, detach gives it back.
 */
static __rte_always_inline uint16_t vec_slow_body(struct gv_rxq *rxq, struct rte_mbuf **pkts,
						  uint16_t nrx, uint32_t end, uint64_t *bytes,
						  const enum gv_layout L, const enum gv_barrier B)
{
	uint32_t k = nrx; /* split: the next entry of the burst */

	while (L == GV_LAYOUT_SPLIT ? k++ < end : nrx < end) {
		void *ck;
		uint32_t len;

		if (gvf_take_one(rxq->q.vq, &ck, &len, L, B) <= 0)
			return nrx;
		vec_one(rxq, ck, len, pkts, &nrx, bytes);
	}
	/* The packet took none of pkts[] yet: there is room for it. */
	while (L == GV_LAYOUT_SPLIT && rxq->mrg_head && gvf_ready(rxq->q.vq, 1, L, B) == 1) {
		void *ck;
		uint32_t len;

		if (gvf_take_one(rxq->q.vq, &ck, &len, L, B) <= 0)
			break;
		vec_one(rxq, ck, len, pkts, &nrx, bytes);
	}
	return nrx;
}

/* The end of a burst: counters, a refill when due, a broken queue logged. */
static __rte_always_inline void vec_finish(struct gv_rxq *rxq, uint16_t nrx, uint64_t bytes,
					   const enum gv_layout L, const enum gv_barrier B)
{
	rxq->q.st.bytes += bytes;
	rxq->q.st.packets += nrx;
	if (gvf_room(rxq->q.vq) >= rxq->refill_thresh)
		vec_refill(rxq, L, B);
	if (unlikely(gvb_broken(rxq->q.vq)))
		gv_queue_broken(&rxq->q, "rx");
}

/*
 * The rare work out of line, so the bursts stay small: the general verb's
 * loop, and the end of a poll that found nothing (the poll only tests
 * whether it is due). A copy per layout and barrier policy; vec_slow and
 * vec_finish_idle pick the one for (L, B).
 */
#define GV_VEC_COLD(sfx, L, B)                                                                  \
	static __rte_noinline __rte_unused uint16_t vec_slow_##sfx(                               \
		struct gv_rxq *rxq, struct rte_mbuf **pkts, uint16_t nrx, uint32_t end,          \
		uint64_t *bytes)                                                                 \
	{                                                                                        \
		return vec_slow_body(rxq, pkts, nrx, end, bytes, L, B);                          \
	}                                                                                        \
	static __rte_noinline __rte_unused void vec_finish_idle_##sfx(struct gv_rxq *rxq)        \
	{                                                                                        \
		vec_finish(rxq, 0, 0, L, B);                                                     \
	}

GV_VEC_COLD(split_smp, GV_LAYOUT_SPLIT, GV_BARRIER_SMP)
GV_VEC_COLD(split_mand, GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY)
GV_VEC_COLD(packed_smp, GV_LAYOUT_PACKED, GV_BARRIER_SMP)
GV_VEC_COLD(packed_mand, GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY)
#undef GV_VEC_COLD

static __rte_always_inline uint16_t vec_slow(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					     uint16_t nrx, uint32_t end, uint64_t *bytes,
					     const enum gv_layout L, const enum gv_barrier B)
{
	const bool mand = B == GV_BARRIER_MANDATORY;

	if (L == GV_LAYOUT_SPLIT)
		return (mand ? vec_slow_split_mand : vec_slow_split_smp)(rxq, pkts, nrx, end, bytes);
	return (mand ? vec_slow_packed_mand : vec_slow_packed_smp)(rxq, pkts, nrx, end, bytes);
}

static __rte_always_inline void vec_finish_idle(struct gv_rxq *rxq, const enum gv_layout L,
						const enum gv_barrier B)
{
	const bool mand = B == GV_BARRIER_MANDATORY;

	if (L == GV_LAYOUT_SPLIT)
		(mand ? vec_finish_idle_split_mand : vec_finish_idle_split_smp)(rxq);
	else
		(mand ? vec_finish_idle_packed_mand : vec_finish_idle_packed_smp)(rxq);
}

#ifdef RTE_ARCH_X86

#define GV_SSE __rte_always_inline __attribute__((target("sse4.2")))

/*
 * The device wrote these bytes: a compiler must not load them again
 * after the check (an opaque copy in a register).
 */
#define GV_OPAQUE(v) __asm__ volatile("" : "+x"(v))

/* Bytes 4j..4j+3 of a vector of lengths into pkt_len, the low two into data_len. */
#define GV_FIELDS_SHUF(j)                                                                  \
	_mm_setr_epi8(-1, -1, -1, -1, 4 * (j), 4 * (j) + 1, 4 * (j) + 2, 4 * (j) + 3, 4 * (j), \
		      4 * (j) + 1, -1, -1, -1, -1, -1, -1)

/* Four mbufs from four packet lengths (lanes 0..3 of plen). */
static GV_SSE void vec_init4(__m128i rearm_ol, __m128i plen, struct rte_mbuf *m0,
			     struct rte_mbuf *m1, struct rte_mbuf *m2, struct rte_mbuf *m3)
{
	const size_t ra = offsetof(struct rte_mbuf, rearm_data);
	const size_t df = offsetof(struct rte_mbuf, rx_descriptor_fields1);

	_mm_storeu_si128((__m128i *)((char *)m0 + ra), rearm_ol);
	_mm_storeu_si128((__m128i *)((char *)m1 + ra), rearm_ol);
	_mm_storeu_si128((__m128i *)((char *)m2 + ra), rearm_ol);
	_mm_storeu_si128((__m128i *)((char *)m3 + ra), rearm_ol);
	_mm_storeu_si128((__m128i *)((char *)m0 + df), _mm_shuffle_epi8(plen, GV_FIELDS_SHUF(0)));
	_mm_storeu_si128((__m128i *)((char *)m1 + df), _mm_shuffle_epi8(plen, GV_FIELDS_SHUF(1)));
	_mm_storeu_si128((__m128i *)((char *)m2 + df), _mm_shuffle_epi8(plen, GV_FIELDS_SHUF(2)));
	_mm_storeu_si128((__m128i *)((char *)m3 + df), _mm_shuffle_epi8(plen, GV_FIELDS_SHUF(3)));
}

/*
 * Size bins and bytes of the n packets a call took: ge[t] of them are at
 * least 64, 65, 128, 256, 512, 1024, 1519 bytes long (t = 0..6).
 */
static __rte_always_inline void vec_stats(struct gv_qstats *st, const uint32_t ge[8], uint32_t n,
					  uint32_t bytes)
{
	st->size_bins[0] += n - ge[0];
	for (unsigned int t = 1; t < 7; t++)
		st->size_bins[t] += ge[t - 1] - ge[t];
	st->size_bins[7] += ge[6];
	st->bytes += bytes;
}

/*
 * Size bins on 16-bit lanes, two thresholds per compare: a group's lengths
 * are packed to signed 16 bits (saturating at 32767, above every
 * threshold); each accumulator lane counts the packets longer than its
 * threshold - 1. GV_GE(t): that bound for threshold t; GV_GE_NONE fills
 * the unused eighth lane group (nothing is longer than 32767 there).
 */
#define GV_GE(t) ((int16_t)((t) - 1))
#define GV_GE_NONE ((int16_t)0x7fff)

/*
 * Bytes and size bins of groups of four packet lengths, in vectors:
 * accumulator j counts thresholds 2j (low half) and 2j + 1 (high half).
 */
struct vec_acc4 {
	__m128i sum, ge0, ge1, ge2, ge3;
};

static GV_SSE void vec_acc4_init(struct vec_acc4 *a)
{
	a->sum = a->ge0 = a->ge1 = a->ge2 = a->ge3 = _mm_setzero_si128();
}

static GV_SSE void vec_acc4_add(struct vec_acc4 *a, __m128i plen)
{
	const __m128i t0 = _mm_setr_epi16(GV_GE(64), GV_GE(64), GV_GE(64), GV_GE(64), GV_GE(65),
					  GV_GE(65), GV_GE(65), GV_GE(65));
	const __m128i t1 = _mm_setr_epi16(GV_GE(128), GV_GE(128), GV_GE(128), GV_GE(128), GV_GE(256),
					  GV_GE(256), GV_GE(256), GV_GE(256));
	const __m128i t2 = _mm_setr_epi16(GV_GE(512), GV_GE(512), GV_GE(512), GV_GE(512), GV_GE(1024),
					  GV_GE(1024), GV_GE(1024), GV_GE(1024));
	const __m128i t3 = _mm_setr_epi16(GV_GE(1519), GV_GE(1519), GV_GE(1519), GV_GE(1519),
					  GV_GE_NONE, GV_GE_NONE, GV_GE_NONE, GV_GE_NONE);
	const __m128i d16 = _mm_packs_epi32(plen, plen);

	a->sum = _mm_add_epi32(a->sum, plen);
	a->ge0 = _mm_sub_epi16(a->ge0, _mm_cmpgt_epi16(d16, t0));
	a->ge1 = _mm_sub_epi16(a->ge1, _mm_cmpgt_epi16(d16, t1));
	a->ge2 = _mm_sub_epi16(a->ge2, _mm_cmpgt_epi16(d16, t2));
	a->ge3 = _mm_sub_epi16(a->ge3, _mm_cmpgt_epi16(d16, t3));
}

/* Into the queue's counters: the n packets added. */
static GV_SSE void vec_acc4_flush(const struct vec_acc4 *a, struct gv_qstats *st, uint32_t n)
{
	const __m128i one = _mm_set1_epi16(1);
	uint32_t ge[8];
	__m128i sum;

	/* Lane sums: thresholds 0..3, then 4..7. */
	_mm_storeu_si128((__m128i *)ge, _mm_hadd_epi32(_mm_madd_epi16(a->ge0, one),
						       _mm_madd_epi16(a->ge1, one)));
	_mm_storeu_si128((__m128i *)&ge[4], _mm_hadd_epi32(_mm_madd_epi16(a->ge2, one),
							   _mm_madd_epi16(a->ge3, one)));
	sum = _mm_add_epi32(a->sum, _mm_srli_si128(a->sum, 8));
	vec_stats(st, ge, n, (uint32_t)_mm_cvtsi128_si32(_mm_add_epi32(sum, _mm_srli_si128(sum, 4))));
}

#define GV_AVX2 __rte_always_inline __attribute__((target("avx2")))

/*
 * The same for groups of eight lengths in a 256-bit vector (any order of
 * the entries): accumulator j counts thresholds j (low half) and j + 4
 * (high half).
 */
struct vec_acc8 {
	__m256i sum, ge0, ge1, ge2, ge3;
};

static GV_AVX2 void vec_acc8_init(struct vec_acc8 *a)
{
	a->sum = a->ge0 = a->ge1 = a->ge2 = a->ge3 = _mm256_setzero_si256();
}

static GV_AVX2 void vec_acc8_add(struct vec_acc8 *a, __m256i plen)
{
	/* Whole constants (one load each, or a memory operand), not built from halves. */
#define GV_GE2(a, b) GV_GE(a), GV_GE(a), GV_GE(a), GV_GE(a), GV_GE(a), GV_GE(a), GV_GE(a), \
		     GV_GE(a), b, b, b, b, b, b, b, b
	const __m256i t0 = _mm256_setr_epi16(GV_GE2(64, GV_GE(512)));
	const __m256i t1 = _mm256_setr_epi16(GV_GE2(65, GV_GE(1024)));
	const __m256i t2 = _mm256_setr_epi16(GV_GE2(128, GV_GE(1519)));
	const __m256i t3 = _mm256_setr_epi16(GV_GE2(256, GV_GE_NONE));
#undef GV_GE2
	const __m256i d16 = _mm256_broadcastsi128_si256(
		_mm_packs_epi32(_mm256_castsi256_si128(plen), _mm256_extracti128_si256(plen, 1)));

	a->sum = _mm256_add_epi32(a->sum, plen);
	a->ge0 = _mm256_sub_epi16(a->ge0, _mm256_cmpgt_epi16(d16, t0));
	a->ge1 = _mm256_sub_epi16(a->ge1, _mm256_cmpgt_epi16(d16, t1));
	a->ge2 = _mm256_sub_epi16(a->ge2, _mm256_cmpgt_epi16(d16, t2));
	a->ge3 = _mm256_sub_epi16(a->ge3, _mm256_cmpgt_epi16(d16, t3));
}

static GV_AVX2 void vec_acc8_flush(const struct vec_acc8 *a, struct gv_qstats *st, uint32_t n)
{
	const __m256i one = _mm256_set1_epi16(1);
	uint32_t ge[8];
	__m256i r;
	__m128i x;

	/* Lane sums: low half thresholds 0..3, high half 4..7. */
	r = _mm256_hadd_epi32(_mm256_hadd_epi32(_mm256_madd_epi16(a->ge0, one),
						_mm256_madd_epi16(a->ge1, one)),
			      _mm256_hadd_epi32(_mm256_madd_epi16(a->ge2, one),
						_mm256_madd_epi16(a->ge3, one)));
	_mm256_storeu_si256((__m256i *)ge, r);
	x = _mm_add_epi32(_mm256_castsi256_si128(a->sum), _mm256_extracti128_si256(a->sum, 1));
	x = _mm_add_epi32(x, _mm_srli_si128(x, 8));
	vec_stats(st, ge, n, (uint32_t)_mm_cvtsi128_si32(_mm_add_epi32(x, _mm_srli_si128(x, 4))));
}

#endif /* RTE_ARCH_X86 */

#endif /* GV_RX_VEC_H */
