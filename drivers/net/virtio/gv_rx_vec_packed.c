/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rx_vec_packed.c - the vectorized RX paths on a packed ring: the
 * simple RX path (one mbuf per packet, no offloads, mergeable buffers
 * as on split) on the core's fixed mode of a packed ring
 * (common/ring/gv_vq_fixed.h), SSE4.2 and AVX2 bodies; the twin
 * of gv_rx_vec.c (split), chosen the same way.
 *
 * A burst takes used descriptors 8 (AVX2) or 4 (SSE4.2) at a time from
 * the used position: one vector check that the group is used in this lap
 * with ids in step (flags and ids), then a read barrier, then a second
 * load of the group and one vector check that every id is its position
 * and every length is within the buffer and longer than the virtio-net
 * header; the mbufs are made fresh packets
 * with two 16-byte stores each, bytes and size bins counted in vectors.
 * Groups stop at the ring's end and at the number of buffers in flight;
 * in-step descriptors are then taken one at a time (across the ring end)
 * with the same checks. A descriptor that is used but fails a check, and
 * every descriptor while a buffer is out of order, go one by one through
 * the core's fixed-mode verb gvf_take_one, which validates and counts
 * like gv_vq_get_used(): the queue breaks on a bad id, length or flags; a
 * runt is an error and its mbuf is freed. Refill takes mbufs from the
 * pool straight into the core's cookie array, writes each descriptor
 * whole (the batch's first flags last, at the kick decision).
 */
#include "gv_rx_vec.h"

#ifdef RTE_ARCH_X86

/*
 * Where a call's groups start: entry k0 of the burst at ring position
 * pos0 in lap wrap; `want`: what the descriptor at pos0 holds in its id
 * and flags lane once used in step (id pos0, the lap's used bits).
 */
struct vecp_span {
	const struct gv_packed_desc *ring;
	void *const *cks;
	uint32_t k0, pos0, groups, hdr, lim, want;
};

static __rte_always_inline struct vecp_span vecp_span(const struct gv_rxq *rxq, uint32_t k0,
						      uint32_t cap, uint32_t width)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint32_t num = gvf_num(vq);
	uint32_t pos0 = gvf_used_pos(vq, GV_LAYOUT_PACKED) + k0, wrap = gvf_packed_used_wrap(vq);
	struct vecp_span sp;

	if (pos0 >= num) {
		pos0 -= num;
		wrap ^= 1;
	}
	sp.ring = gvf_packed_ring(vq);
	sp.cks = gvf_cookies(vq, GV_LAYOUT_PACKED);
	sp.k0 = k0;
	sp.pos0 = pos0;
	sp.groups = RTE_MIN(cap - k0, num - pos0) / width;
	sp.hdr = rxq->hdr_size;
	sp.lim = gvf_len(vq, GV_LAYOUT_PACKED) - rxq->hdr_size - 1 - rxq->mrg;
	sp.want = pos0 | GVPF_USED_BITS(wrap) << 16;
	return sp;
}

/* A lane holding id | flags << 16: the id and the AVAIL/USED bits. */
#define GVP_IDF_MASK ((int)(0xffffu | (GV_DESC_F_AVAIL | GV_DESC_F_USED) << 16))

/*
 * The second halves (len, id, flags) of four descriptors as 32-bit lanes
 * of two vectors: lens = (len0..len3), idf = (id | flags << 16, 0..3).
 */
struct vecp_tails {
	__m128i lens, idf;
};

static GV_SSE struct vecp_tails vecp_tails4(const struct gv_packed_desc *d)
{
	const __m128i d0 = _mm_loadu_si128((const __m128i *)&d[0]);
	const __m128i d1 = _mm_loadu_si128((const __m128i *)&d[1]);
	const __m128i d2 = _mm_loadu_si128((const __m128i *)&d[2]);
	const __m128i d3 = _mm_loadu_si128((const __m128i *)&d[3]);
	/* (len0, idf0, len1, idf1), (len2, idf2, len3, idf3) */
	const __m128 t01 = _mm_castsi128_ps(_mm_unpackhi_epi64(d0, d1));
	const __m128 t23 = _mm_castsi128_ps(_mm_unpackhi_epi64(d2, d3));
	struct vecp_tails t = {
		_mm_castps_si128(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(2, 0, 2, 0))),
		_mm_castps_si128(_mm_shuffle_ps(t01, t23, _MM_SHUFFLE(3, 1, 3, 1))),
	};

	GV_OPAQUE(t.lens);
	GV_OPAQUE(t.idf);
	return t;
}

/*
 * Whole groups of 4 in-step descriptors from entry *kp of the burst, at
 * most `cap` entries in all, not reaching the ring's end: each group is
 * used in step (id and flags lanes, first load), then, after the read
 * barrier, valid (the same, and header < length <= buffer; second
 * load). The packets go to pkts[*kp...], bytes and size bins to the
 * queue's counters. Out of line (below): a call per burst, so the burst
 * template needs no target attribute.
 */
static GV_SSE void vecp_groups4(struct gv_rxq *rxq, struct rte_mbuf **pkts, uint32_t *kp,
				uint32_t cap, const enum gv_barrier B)
{
	const struct vecp_span sp = vecp_span(rxq, *kp, cap, 4);
	const struct gv_packed_desc *ring = sp.ring;
	void *const *cks = sp.cks;
	const uint32_t k0 = sp.k0, groups = sp.groups;
	const __m128i hdr1 = _mm_set1_epi32((int)(sp.hdr + 1));
	const __m128i lim = _mm_set1_epi32((int)sp.lim);
	const __m128i hdrv = _mm_set1_epi32((int)sp.hdr);
	const __m128i rearm_ol = _mm_set_epi64x((long long)rxq->mbuf_ol,
						(long long)rxq->mbuf_rearm);
	const __m128i idf_mask = _mm_set1_epi32(GVP_IDF_MASK);
	__m128i want = _mm_add_epi32(_mm_set1_epi32((int)sp.want), _mm_setr_epi32(0, 1, 2, 3));
	struct vec_acc4 acc;
	uint32_t g, pos;

	vec_acc4_init(&acc);
	for (g = 0, pos = sp.pos0; g < groups; g++, pos += 4) {
		struct vecp_tails t = vecp_tails4(&ring[pos]);
		__m128i ok, x, plen, c0, c1;
		struct rte_mbuf *m[4];

		if (unlikely(_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(t.idf, idf_mask), want)) !=
			     0xffff))
			break; /* not all used yet, or not in step: singles and the general verb say */
		/* The flags loads before the loads of ids and lengths. */
		gv_rmb(B);
		t = vecp_tails4(&ring[pos]);
		x = _mm_sub_epi32(t.lens, hdr1);
		ok = _mm_and_si128(_mm_cmpeq_epi32(_mm_and_si128(t.idf, idf_mask), want),
				   _mm_cmpeq_epi32(_mm_max_epu32(x, lim), lim));
		if (unlikely(_mm_movemask_epi8(ok) != 0xffff))
			break;
		want = _mm_add_epi32(want, _mm_set1_epi32(4));
		plen = _mm_sub_epi32(t.lens, hdrv);
		vec_acc4_add(&acc, plen);
		/* The mbufs: loaded once, stored out and used from registers. */
		c0 = _mm_loadu_si128((const __m128i *)&cks[pos]);
		c1 = _mm_loadu_si128((const __m128i *)&cks[pos + 2]);
		_mm_storeu_si128((__m128i *)&pkts[k0 + 4 * g], c0);
		_mm_storeu_si128((__m128i *)&pkts[k0 + 4 * g + 2], c1);
		_mm_storeu_si128((__m128i *)&m[0], c0);
		_mm_storeu_si128((__m128i *)&m[2], c1);
		vec_init4(rearm_ol, plen, m[0], m[1], m[2], m[3]);
	}
	*kp = k0 + 4 * g;
	if (g != 0)
		vec_acc4_flush(&acc, &rxq->q.st, 4 * g);
}

/*
 * The AVX2 copies: tuned for a CPU that has it, so 256-bit loads are not
 * split in two (the default tuning's choice for unaligned ones).
 */
#define GVP_AVX2 __rte_always_inline __attribute__((target("avx2,tune=haswell")))

/*
 * The same halves of eight descriptors, lanes in the order
 * (0 2 4 6 | 1 3 5 7).
 */
struct vecp_tails8 {
	__m256i lens, idf;
};

static GVP_AVX2 struct vecp_tails8 vecp_tails8(const struct gv_packed_desc *d)
{
	/* (len0, idf0, len2, idf2 | len1, idf1, len3, idf3), the same for 4..7 */
	const __m256 a = _mm256_castsi256_ps(_mm256_unpackhi_epi64(
		_mm256_loadu_si256((const __m256i *)&d[0]), _mm256_loadu_si256((const __m256i *)&d[2])));
	const __m256 b = _mm256_castsi256_ps(_mm256_unpackhi_epi64(
		_mm256_loadu_si256((const __m256i *)&d[4]), _mm256_loadu_si256((const __m256i *)&d[6])));
	struct vecp_tails8 t = {
		_mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0))),
		_mm256_castps_si256(_mm256_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1))),
	};

	GV_OPAQUE(t.lens);
	GV_OPAQUE(t.idf);
	return t;
}

/* vecp_groups4 with groups of 8 (AVX2). */
static GVP_AVX2 void vecp_groups8(struct gv_rxq *rxq, struct rte_mbuf **pkts, uint32_t *kp,
				  uint32_t cap, const enum gv_barrier B)
{
	const struct vecp_span sp = vecp_span(rxq, *kp, cap, 8);
	const struct gv_packed_desc *ring = sp.ring;
	void *const *cks = sp.cks;
	const uint32_t k0 = sp.k0, groups = sp.groups;
	const __m256i hdr1 = _mm256_set1_epi32((int)(sp.hdr + 1));
	const __m256i lim = _mm256_set1_epi32((int)sp.lim);
	const __m256i hdrv = _mm256_set1_epi32((int)sp.hdr);
	const __m128i rearm_ol = _mm_set_epi64x((long long)rxq->mbuf_ol,
						(long long)rxq->mbuf_rearm);
	const __m256i idf_mask = _mm256_set1_epi32(GVP_IDF_MASK);
	/* In the lanes' order. */
	__m256i want = _mm256_add_epi32(_mm256_set1_epi32((int)sp.want),
					_mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
	struct vec_acc8 acc;
	uint32_t g, pos;

	vec_acc8_init(&acc);
	for (g = 0, pos = sp.pos0; g < groups; g++, pos += 8) {
		struct vecp_tails8 t = vecp_tails8(&ring[pos]);
		__m256i ok, x, plen, c0, c1;
		struct rte_mbuf *m[8];

		if (unlikely(_mm256_movemask_epi8(_mm256_cmpeq_epi32(
				     _mm256_and_si256(t.idf, idf_mask), want)) != -1))
			break; /* not all used yet, or not in step: the 4s, singles, the general verb */
		/* The flags loads before the loads of ids and lengths. */
		gv_rmb(B);
		t = vecp_tails8(&ring[pos]);
		x = _mm256_sub_epi32(t.lens, hdr1);
		ok = _mm256_and_si256(_mm256_cmpeq_epi32(_mm256_and_si256(t.idf, idf_mask), want),
				      _mm256_cmpeq_epi32(_mm256_max_epu32(x, lim), lim));
		if (unlikely(_mm256_movemask_epi8(ok) != -1))
			break;
		want = _mm256_add_epi32(want, _mm256_set1_epi32(8));
		plen = _mm256_sub_epi32(t.lens, hdrv);
		vec_acc8_add(&acc, plen);
		/* The mbufs: loaded once, stored out and used from registers. */
		c0 = _mm256_loadu_si256((const __m256i *)&cks[pos]);
		c1 = _mm256_loadu_si256((const __m256i *)&cks[pos + 4]);
		_mm256_storeu_si256((__m256i *)&pkts[k0 + 8 * g], c0);
		_mm256_storeu_si256((__m256i *)&pkts[k0 + 8 * g + 4], c1);
		_mm256_storeu_si256((__m256i *)&m[0], c0);
		_mm256_storeu_si256((__m256i *)&m[4], c1);
		vec_init4(rearm_ol, _mm256_castsi256_si128(plen), m[0], m[2], m[4], m[6]);
		vec_init4(rearm_ol, _mm256_extracti128_si256(plen, 1), m[1], m[3], m[5], m[7]);
	}
	*kp = k0 + 8 * g;
	if (g != 0)
		vec_acc8_flush(&acc, &rxq->q.st, 8 * g);
}

/* The out-of-line group calls, per width and barrier policy. */
#define GVP_GROUPS(name, attr, body, B)                                                  \
	static __rte_noinline attr void name(struct gv_rxq *rxq, struct rte_mbuf **pkts, \
					     uint32_t *kp, uint32_t cap)                 \
	{                                                                                \
		body(rxq, pkts, kp, cap, B);                                             \
	}

GVP_GROUPS(vecp_g4_smp, __attribute__((target("sse4.2"))), vecp_groups4, GV_BARRIER_SMP)
GVP_GROUPS(vecp_g4_mand, __attribute__((target("sse4.2"))), vecp_groups4, GV_BARRIER_MANDATORY)
GVP_GROUPS(vecp_g8_smp, __attribute__((target("avx2,tune=haswell"))), vecp_groups8,
	   GV_BARRIER_SMP)
GVP_GROUPS(vecp_g8_mand, __attribute__((target("avx2,tune=haswell"))), vecp_groups8,
	   GV_BARRIER_MANDATORY)

/*
 * In-step descriptors one at a time from entry *kp (a group that would
 * reach the ring end, the tail of a burst), up to `end`. Stops at the
 * first that is not used yet (false) or is not in step or has flags no
 * lap allows (true: the general verb classifies it).
 */
static __rte_always_inline bool vecp_singles(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					     uint32_t *kp, uint32_t end, const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	const struct gv_packed_desc *ring = gvf_packed_ring(vq);
	const uint32_t num = gvf_num(vq), hdr = rxq->hdr_size;
	const uint32_t max = gvf_len(vq, GV_LAYOUT_PACKED) - rxq->mrg;
	uint32_t k = *kp, pos = gvf_used_pos(vq, GV_LAYOUT_PACKED) + k, wrap = gvf_packed_used_wrap(vq);
	bool odd = false;

	if (pos >= num) {
		pos -= num;
		wrap ^= 1;
	}
	for (; k < end; k++) {
		const struct gv_packed_desc *d = &ring[pos];
		const uint16_t f = gv_load16(&d->flags) & (GV_DESC_F_AVAIL | GV_DESC_F_USED);
		uint32_t id, len;
		struct rte_mbuf *m;

		if (f != GVPF_USED_BITS(wrap)) {
			/* Still available (AVAIL is the lap's): the usual end; else odd flags. */
			odd = !(f & GV_DESC_F_AVAIL) != !wrap;
			break;
		}
		/* The flags load before the loads of id and length. */
		gv_rmb(B);
		id = gv_load16(&d->id);
		len = gv_load32(&d->len);
		if (unlikely((id != pos) | (len <= hdr) | (len > max))) {
			odd = true;
			break;
		}
		m = gvf_cookie(vq, pos, GV_LAYOUT_PACKED);
		gv_rx_init_mbuf(rxq, m, len - hdr);
		rxq->q.st.bytes += len - hdr;
		count_size(&rxq->q.st, len - hdr);
		pkts[k] = m;
		if (++pos == num) {
			pos = 0;
			wrap ^= 1;
		}
	}
	*kp = k;
	return odd;
}

/*
 * The burst, SSE4.2 or AVX2 loads, for barrier policy B: groups while
 * they are used and valid in step, in-step descriptors one at a time
 * where a group would reach the ring end, anything else (or all, while a
 * buffer is out of order) by the general verb (vec_slow).
 */
static __rte_always_inline uint16_t vecp_burst(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					       uint16_t n, const bool avx2, const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	uint32_t k = 0;
	uint64_t bytes = 0;
	uint16_t nrx;
	bool odd = true;

	if (n > GV_BURST_MAX)
		n = GV_BURST_MAX;
	if (!gvb_used_maybe(vq, GV_LAYOUT_PACKED) || unlikely(!gvf_on(vq, GV_LAYOUT_PACKED))) {
		/* A poll that finds nothing: the refill retry out of line, if due. */
		if (unlikely(gvf_room(vq) >= rxq->refill_thresh || gvb_broken(vq)))
			vec_finish_idle(rxq, GV_LAYOUT_PACKED, B);
		return 0;
	}
	if (likely(gvf_in_step(vq, GV_LAYOUT_PACKED) && !rxq->mrg_head)) {
		const uint32_t cap = gvf_ready(vq, n, GV_LAYOUT_PACKED, B);
		uint32_t done;

		do {
			done = k;
			if (avx2 && cap - k >= 8)
				(B == GV_BARRIER_MANDATORY ? vecp_g8_mand : vecp_g8_smp)(rxq, pkts, &k,
											  cap);
			if (cap - k >= 4)
				(B == GV_BARRIER_MANDATORY ? vecp_g4_mand : vecp_g4_smp)(rxq, pkts, &k,
											  cap);
			odd = vecp_singles(rxq, pkts, &k, RTE_MIN(cap, k + 4), B);
		} while (!odd && k != done && k != cap);
		/* k == cap: n taken, or nothing more in flight. */
		gvf_take_in_step(vq, k, GV_LAYOUT_PACKED);
	}
	nrx = (uint16_t)k;
	if (unlikely(odd && k < n))
		nrx = vec_slow(rxq, pkts, nrx, n, &bytes, GV_LAYOUT_PACKED, B);
	vec_finish(rxq, nrx, bytes, GV_LAYOUT_PACKED, B);
	return nrx;
}

/* Exported to gv_rx_vec.c, whose path objects hold the packed copies too. */
GV_BURST(__attribute__((target("sse4.2"))), gv_rxp_vec_sse_smp, struct gv_rxq, vecp_burst, false,
	 GV_BARRIER_SMP)
GV_BURST(__attribute__((target("sse4.2"))), gv_rxp_vec_sse_mand, struct gv_rxq, vecp_burst, false,
	 GV_BARRIER_MANDATORY)
GV_BURST(__attribute__((target("avx2"))), gv_rxp_vec_avx2_smp, struct gv_rxq, vecp_burst, true,
	 GV_BARRIER_SMP)
GV_BURST(__attribute__((target("avx2"))), gv_rxp_vec_avx2_mand, struct gv_rxq, vecp_burst, true,
	 GV_BARRIER_MANDATORY)

#endif
