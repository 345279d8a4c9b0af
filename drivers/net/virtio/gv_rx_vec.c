/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rx_vec.c - the vectorized RX paths: the simple RX path (one mbuf per
 * packet, no offloads; with mergeable buffers negotiated, a packet the
 * device spreads over several buffers is chained one buffer at a time:
 * gv_rx_vec.h vec_one) on a split ring in the
 * core's fixed mode (common/ring/gv_vq_fixed.h), with SSE4.2 and AVX2
 * bodies chosen at start from the CPU's flags and EAL's SIMD limit.
 *
 * A burst reads the used index once, then takes used entries 4 (SSE) or
 * 8 (AVX2) at a time: one vector check per group that every id is the
 * one posted at that used position and every length is within the buffer
 * (short of it with mergeable buffers) and longer than the virtio-net
 * header; the mbufs are made fresh packets
 * with two 16-byte stores each (rearm_data + ol_flags: a constant; the
 * packet type and lengths: shuffled from the used lengths); bytes and
 * size bins are counted per group, from the lengths (no packet is read:
 * multicast/broadcast are not counted, gv_rx_vec.h). Where a group would
 * wrap the ring end, entries are taken one at a time with the same checks. A
 * group that fails the check, and every entry while a buffer is out of
 * order or a packet of several buffers is being put together, go one
 * by one through the core's fixed-mode verb gvf_take_one,
 * which validates and counts like gv_vq_get_used(): the queue breaks on a
 * bad id, length or index; a runt packet is an error and its mbuf is
 * freed. Refill takes mbufs from the pool straight into the core's
 * cookie array and writes only descriptor addresses. A queue whose ring
 * cannot enter fixed mode fails the port's start (rx_vec_start
 * returns the error).
 *
 * The vector bodies are compiled with target attributes, so the default
 * build needs no -march; other architectures get no vector path. Packed
 * rings: gv_rx_vec_packed.c (this file's path objects take its bodies;
 * the start serves both); what both share (the refill, the
 * general verb's loop, the end of a burst, vector pieces): gv_rx_vec.h.
 */
#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "gv_offload.h"
#include "gv_rx_vec.h"

static bool rx_vec_sse_usable(void)
{
#ifdef RTE_ARCH_X86
	return gv_path_simd_ok(RTE_VECT_SIMD_128, RTE_CPUFLAG_SSE4_2);
#else
	return false;
#endif
}

static bool rx_vec_avx2_usable(void)
{
#ifdef RTE_ARCH_X86
	return gv_path_simd_ok(RTE_VECT_SIMD_256, RTE_CPUFLAG_AVX2);
#else
	return false;
#endif
}

/* Fixed mode and the first buffers, either layout (port start, restart). */
static int rx_vec_start(struct gv_rxq *rxq)
{
	if (rxq->q.hw->layout == GV_LAYOUT_PACKED)
		return vec_refill_first(rxq, GV_LAYOUT_PACKED);
	return vec_refill_first(rxq, GV_LAYOUT_SPLIT);
}

#ifdef RTE_ARCH_X86

/*
 * A group call's span: from entry k0 of the burst (used position pos0),
 * the whole groups of `width` entries among the `got` ready that do not
 * reach the ring's end; hdr and lim (header size, and the longest length
 * the groups take minus the header minus one) for the vector length
 * check: the buffer's length, one less with mergeable buffers (a filled
 * buffer goes one by one, gv_rx_vec.h vec_one).
 */
struct vec_span {
	const struct gv_split_used_elem *ring;
	void *const *cks;
	uint32_t k0, pos0, groups, hdr, lim;
};

static __rte_always_inline struct vec_span vec_span(const struct gv_rxq *rxq, uint32_t k0,
						    uint32_t got, uint32_t width)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint32_t mask = gvf_num(vq) - 1;
	const uint32_t pos0 = (gvf_used_pos(vq, GV_LAYOUT_SPLIT) + k0) & mask;
	const struct vec_span sp = {
		.ring = gvf_split_used(vq),
		.cks = gvf_cookies(vq, GV_LAYOUT_SPLIT),
		.k0 = k0,
		.pos0 = pos0,
		.groups = RTE_MIN(got - k0, mask + 1 - pos0) / width,
		.hdr = rxq->hdr_size,
		.lim = gvf_len(vq, GV_LAYOUT_SPLIT) - rxq->hdr_size - 1 - rxq->mrg,
	};

	return sp;
}

/*
 * Groups of 8 (AVX2) / 4 (SSE4.2) entries from *kp while there are that
 * many, they do not wrap the ring end and they are valid in step (id ==
 * position, header < length <= buffer, one vector check); the packets go
 * to pkts[*kp...], the queue's bytes and size bins are updated. Out of
 * line: a call per burst, so the burst template needs no target
 * attribute.
 */
static __rte_noinline __attribute__((target("avx2"))) void
vec_groups8(struct gv_rxq *rxq, struct rte_mbuf **pkts, uint32_t *kp, uint32_t got)
{
	const struct vec_span sp = vec_span(rxq, *kp, got, 8);
	const struct gv_split_used_elem *ring = sp.ring;
	void *const *cks = sp.cks;
	const uint32_t k0 = sp.k0, pos0 = sp.pos0, groups = sp.groups, hdr = sp.hdr;
	const __m256i hdr1 = _mm256_set1_epi32((int)(hdr + 1));
	const __m256i lim = _mm256_set1_epi32((int)sp.lim);
	const __m256i hdrv = _mm256_set1_epi32((int)hdr);
	const __m128i rearm_ol = _mm_set_epi64x((long long)rxq->mbuf_ol,
						(long long)rxq->mbuf_rearm);
	struct vec_acc8 acc;
	/* The ids expected at the group's positions, in the order the shuffle gives them. */
	__m256i want = _mm256_add_epi32(_mm256_set1_epi32((int)pos0),
					_mm256_setr_epi32(0, 1, 4, 5, 2, 3, 6, 7));
	uint32_t g, pos = pos0;

	vec_acc8_init(&acc);
	for (g = 0; g < groups; g++, pos += 8) {
		__m256i e0, e1, ids, lens, t, ok, plen, c0, c1;
		__m128i lo, hi;
		struct rte_mbuf *m[8];

		e0 = _mm256_loadu_si256((const __m256i *)&ring[pos]);
		e1 = _mm256_loadu_si256((const __m256i *)&ring[pos + 4]);
		GV_OPAQUE(e0);
		GV_OPAQUE(e1);
		ids = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(e0),
							    _mm256_castsi256_ps(e1),
							    _MM_SHUFFLE(2, 0, 2, 0)));
		lens = _mm256_castps_si256(_mm256_shuffle_ps(_mm256_castsi256_ps(e0),
							     _mm256_castsi256_ps(e1),
							     _MM_SHUFFLE(3, 1, 3, 1)));
		t = _mm256_sub_epi32(lens, hdr1);
		ok = _mm256_and_si256(_mm256_cmpeq_epi32(ids, want),
				      _mm256_cmpeq_epi32(_mm256_max_epu32(t, lim), lim));
		if (unlikely(_mm256_movemask_epi8(ok) != -1))
			break;
		want = _mm256_add_epi32(want, _mm256_set1_epi32(8));
		plen = _mm256_sub_epi32(lens, hdrv);
		vec_acc8_add(&acc, plen);
		lo = _mm256_castsi256_si128(plen); /* entries 0 1 4 5 */
		hi = _mm256_extracti128_si256(plen, 1); /* entries 2 3 6 7 */
		/* The mbufs: loaded once, stored out and used from registers. */
		c0 = _mm256_loadu_si256((const __m256i *)&cks[pos]);
		c1 = _mm256_loadu_si256((const __m256i *)&cks[pos + 4]);
		_mm256_storeu_si256((__m256i *)&pkts[k0 + 8 * g], c0);
		_mm256_storeu_si256((__m256i *)&pkts[k0 + 8 * g + 4], c1);
		_mm256_storeu_si256((__m256i *)&m[0], c0);
		_mm256_storeu_si256((__m256i *)&m[4], c1);
		vec_init4(rearm_ol, lo, m[0], m[1], m[4], m[5]);
		vec_init4(rearm_ol, hi, m[2], m[3], m[6], m[7]);
	}
	*kp = k0 + 8 * g;
	if (g != 0)
		vec_acc8_flush(&acc, &rxq->q.st, 8 * g);
}

static __rte_noinline __attribute__((target("sse4.2"))) void
vec_groups4(struct gv_rxq *rxq, struct rte_mbuf **pkts, uint32_t *kp, uint32_t got)
{
	const struct vec_span sp = vec_span(rxq, *kp, got, 4);
	const struct gv_split_used_elem *ring = sp.ring;
	void *const *cks = sp.cks;
	const uint32_t k0 = sp.k0, pos0 = sp.pos0, groups = sp.groups, hdr = sp.hdr;
	const __m128i hdr1 = _mm_set1_epi32((int)(hdr + 1));
	const __m128i lim = _mm_set1_epi32((int)sp.lim);
	const __m128i hdrv = _mm_set1_epi32((int)hdr);
	const __m128i rearm_ol = _mm_set_epi64x((long long)rxq->mbuf_ol,
						(long long)rxq->mbuf_rearm);
	struct vec_acc4 acc;
	/* The ids expected at the group's positions. */
	__m128i want = _mm_add_epi32(_mm_set1_epi32((int)pos0), _mm_setr_epi32(0, 1, 2, 3));
	uint32_t g, pos = pos0;

	vec_acc4_init(&acc);
	for (g = 0; g < groups; g++, pos += 4) {
		__m128i e0, e1, ids, lens, t, ok, plen, c0, c1;
		struct rte_mbuf *m[4];

		e0 = _mm_loadu_si128((const __m128i *)&ring[pos]);
		e1 = _mm_loadu_si128((const __m128i *)&ring[pos + 2]);
		GV_OPAQUE(e0);
		GV_OPAQUE(e1);
		ids = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(e0), _mm_castsi128_ps(e1),
						      _MM_SHUFFLE(2, 0, 2, 0)));
		lens = _mm_castps_si128(_mm_shuffle_ps(_mm_castsi128_ps(e0), _mm_castsi128_ps(e1),
						       _MM_SHUFFLE(3, 1, 3, 1)));
		t = _mm_sub_epi32(lens, hdr1);
		ok = _mm_and_si128(_mm_cmpeq_epi32(ids, want),
				   _mm_cmpeq_epi32(_mm_max_epu32(t, lim), lim));
		if (unlikely(_mm_movemask_epi8(ok) != 0xffff))
			break;
		want = _mm_add_epi32(want, _mm_set1_epi32(4));
		plen = _mm_sub_epi32(lens, hdrv);
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
 * In-step entries one at a time (a group that would wrap the ring end,
 * the tail of a burst). Stops at the first that is not in step.
 */
static __rte_always_inline void vec_singles(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					    uint32_t *kp, uint32_t got)
{
	struct gv_vq *vq = rxq->q.vq;
	const struct gv_split_used_elem *ring = gvf_split_used(vq);
	const uint32_t up = gvf_used_pos(vq, GV_LAYOUT_SPLIT);
	const uint32_t mask = gvf_num(vq) - 1, hdr = rxq->hdr_size;
	const uint32_t max = gvf_len(vq, GV_LAYOUT_SPLIT) - rxq->mrg;
	uint32_t k = *kp;

	for (; k < got; k++) {
		const uint32_t pos = (up + k) & mask;
		const uint32_t id = gv_load32(&ring[pos].id), len = gv_load32(&ring[pos].len);
		struct rte_mbuf *m;

		if (unlikely((id != pos) | (len <= hdr) | (len > max)))
			break;
		m = gvf_cookie(vq, pos, GV_LAYOUT_SPLIT);
		gv_rx_init_mbuf(rxq, m, len - hdr);
		rxq->q.st.bytes += len - hdr;
		count_size(&rxq->q.st, len - hdr);
		pkts[k] = m;
	}
	*kp = k;
}

/*
 * The burst, width 4 (SSE4.2) or 8 (AVX2), for barrier policy B: groups
 * while they are valid in step, in-step entries one at a time where a
 * group would wrap the ring end, the rest (or all, while a buffer is out
 * of order) by the general verb (vec_slow).
 */
static __rte_always_inline uint16_t vec_burst(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					      uint16_t n, const int width, const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	uint32_t got, k = 0;
	uint64_t bytes = 0;
	uint16_t nrx;

	if (n > GV_BURST_MAX)
		n = GV_BURST_MAX;
	got = gvf_ready(vq, n, GV_LAYOUT_SPLIT, B);
	if (got == 0) {
		/* A poll that finds nothing: the refill retry out of line, if due. */
		if (unlikely(gvf_room(vq) >= rxq->refill_thresh || gvb_broken(vq)))
			vec_finish_idle(rxq, GV_LAYOUT_SPLIT, B);
		return 0;
	}
	if (likely(gvf_in_step(vq, GV_LAYOUT_SPLIT) && !rxq->mrg_head)) {
		uint32_t done;

		do {
			done = k;
			if (width == 8 && got - k >= 8)
				vec_groups8(rxq, pkts, &k, got);
			if (got - k >= 4)
				vec_groups4(rxq, pkts, &k, got);
			vec_singles(rxq, pkts, &k, got < k + 4 ? got : k + 4);
		} while (k != done && k != got);
		gvf_take_in_step(vq, k, GV_LAYOUT_SPLIT);
	}
	nrx = (uint16_t)k;
	if (unlikely(k < got))
		nrx = vec_slow(rxq, pkts, nrx, got, &bytes, GV_LAYOUT_SPLIT, B);
	vec_finish(rxq, nrx, bytes, GV_LAYOUT_SPLIT, B);
	return nrx;
}

GV_BURST(static __attribute__((target("sse4.2"))), rx_vec_sse_smp, struct gv_rxq, vec_burst, 4,
	 GV_BARRIER_SMP)
GV_BURST(static __attribute__((target("sse4.2"))), rx_vec_sse_mand, struct gv_rxq, vec_burst, 4,
	 GV_BARRIER_MANDATORY)
GV_BURST(static __attribute__((target("avx2"))), rx_vec_avx2_smp, struct gv_rxq, vec_burst, 8,
	 GV_BARRIER_SMP)
GV_BURST(static __attribute__((target("avx2"))), rx_vec_avx2_mand, struct gv_rxq, vec_burst, 8,
	 GV_BARRIER_MANDATORY)

#define RX_VEC_BURSTS(w)                                                       \
	{ { rx_vec_##w##_smp, rx_vec_##w##_mand }, { gv_rxp_vec_##w##_smp, gv_rxp_vec_##w##_mand } }

#else /* !RTE_ARCH_X86: no vector body, the paths are never usable */

#define RX_VEC_BURSTS(w) GV_BURSTS_NONE

#endif

const struct gv_rx_path gv_rx_path_vec_avx2 = {
	.p = { .name = "vectorized (AVX2)", .id = GV_RX_VEC_AVX2, .offloads = GV_RX_OFFLOAD_SIMPLE,
	       .one_mbuf = true, .vector = true, .cls = GV_FORCE_SIMPLE,
	       .usable = rx_vec_avx2_usable, .burst = RX_VEC_BURSTS(avx2) },
	.start = rx_vec_start,
};

const struct gv_rx_path gv_rx_path_vec_sse = {
	.p = { .name = "vectorized (SSE)", .id = GV_RX_VEC_SSE, .offloads = GV_RX_OFFLOAD_SIMPLE,
	       .one_mbuf = true, .vector = true, .cls = GV_FORCE_SIMPLE,
	       .usable = rx_vec_sse_usable, .burst = RX_VEC_BURSTS(sse) },
	.start = rx_vec_start,
};
