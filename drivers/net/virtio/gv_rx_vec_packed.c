/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rx_vec_packed.c - the vectorized RX paths on a packed ring: the
 * simple RX path (one mbuf per packet, no offloads, no mergeable
 * buffers) on the core's packed fixed mode
 * (common/ring/gv_vq_fixed_packed.h), SSE4.2 and AVX2 bodies; the twin
 * of gv_rx_vec.c (split), chosen the same way.
 *
 * A burst takes used descriptors 4 at a time from the used position:
 * one vector check that the four say used in this lap (flags), then a
 * read barrier, then a second load of the four and one vector check that
 * every id is its position and every length is within the buffer and
 * longer than the virtio-net header; the mbufs are made fresh packets
 * with two 16-byte stores each, bytes and size bins counted in vectors.
 * Groups stop at the ring's end and at the number of buffers in flight;
 * in-step descriptors are then taken one at a time (across the ring end)
 * with the same checks. A descriptor that is used but fails a check, and
 * every descriptor while a buffer is out of order, go one by one through
 * the core's general verb (gvpf_take_one), which validates and counts
 * like gv_vq_get_used(): the queue breaks on a bad id, length or flags; a
 * runt is an error and its mbuf is freed. Refill takes mbufs from the
 * pool straight into the core's cookie array, writes each descriptor
 * whole (the batch's first flags last, at the kick decision).
 */
#include "gv_rx_vec.h"
#include "gv_vq_fixed_packed.h"

/*
 * Post buffers on every free position (up to the ring's end, then from
 * 0), raw from the pool straight into the core's cookie array; then
 * publish and kick.
 */
static __rte_always_inline void vecp_refill(struct gv_rxq *rxq, const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint64_t front = RTE_PKTMBUF_HEADROOM - rxq->hdr_size;
	uint32_t n;
	void **slots;

	while ((slots = gvpf_post_slots(vq, &n)), n != 0) {
		if (unlikely(rte_mempool_get_bulk(rxq->mp, slots, n) != 0) &&
		    (n = vec_alloc_short(rxq, slots, n)) == 0)
			break;
		gvpf_post_commit(vq, n, rxq->addr_off, front);
	}
	kick(&rxq->q, GV_LAYOUT_PACKED, B);
}

void gv_rxq_refill_vec_packed(struct gv_rxq *rxq)
{
	int ret = gvpf_enable(rxq->q.vq, rxq->seg_len);

	if (ret) {
		GV_LOG(ERR, "%s: rx queue %u: cannot set up the vector path's ring (%s)",
		       rxq->q.hw->name, rxq->q.queue_id, strerror(-ret));
		return;
	}
	if (rxq->q.hw->barrier == GV_BARRIER_MANDATORY)
		vecp_refill(rxq, GV_BARRIER_MANDATORY);
	else
		vecp_refill(rxq, GV_BARRIER_SMP);
}

#ifdef RTE_ARCH_X86

/*
 * Used descriptors from the current one on, one by one through the
 * core's general verb, until n packets or one that is not used yet (or
 * the queue broke). The packets kept.
 */
static __rte_noinline uint16_t vecp_slow(struct gv_rxq *rxq, struct rte_mbuf **pkts, uint16_t nrx,
					 uint16_t n, uint64_t *bytes, const enum gv_barrier B)
{
	while (nrx < n) {
		void *ck;
		uint32_t len;

		/* 0: not used yet; -1: broken (the mbuf stays posted, detach gives it back). */
		if (gvpf_take_one(rxq->q.vq, &ck, &len, B) <= 0)
			break;
		vec_one(rxq, ck, len, pkts, &nrx, bytes);
	}
	return nrx;
}

static __rte_noinline uint16_t vecp_slow_smp(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					     uint16_t nrx, uint16_t n, uint64_t *bytes)
{
	return vecp_slow(rxq, pkts, nrx, n, bytes, GV_BARRIER_SMP);
}

static __rte_noinline uint16_t vecp_slow_mand(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					      uint16_t nrx, uint16_t n, uint64_t *bytes)
{
	return vecp_slow(rxq, pkts, nrx, n, bytes, GV_BARRIER_MANDATORY);
}

static __rte_always_inline void vecp_finish(struct gv_rxq *rxq, uint16_t nrx, uint64_t bytes,
					    const enum gv_barrier B)
{
	rxq->q.st.bytes += bytes;
	rxq->q.st.packets += nrx;
	if (gvpf_room(rxq->q.vq) >= rxq->refill_thresh)
		vecp_refill(rxq, B);
	if (unlikely(gvb_broken(rxq->q.vq)))
		gv_queue_broken(&rxq->q, "rx");
}

static __rte_noinline void vecp_finish_idle(struct gv_rxq *rxq, const enum gv_barrier B)
{
	if (B == GV_BARRIER_MANDATORY)
		vecp_finish(rxq, 0, 0, GV_BARRIER_MANDATORY);
	else
		vecp_finish(rxq, 0, 0, GV_BARRIER_SMP);
}

/*
 * The AVX2 copies: tuned for a CPU that has it, so 256-bit loads are not
 * split in two (the default tuning's choice for unaligned ones).
 */
#define GVP_AVX2 "avx2,tune=haswell"

/*
 * The second halves (len, id, flags) of four descriptors as 32-bit lanes
 * of two vectors: lens = (len0..len3), idf = (id | flags << 16, 0..3).
 */
struct vecp_tails {
	__m128i lens, idf;
};

static GV_SSE struct vecp_tails vecp_tails_sse(const struct gv_packed_desc *d)
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
 * Not always_inline: the shared group body is compiled without AVX2; it
 * is inlined into the AVX2 copies, where this is inlined in turn.
 */
static inline __attribute__((target(GVP_AVX2))) struct vecp_tails
vecp_tails_avx2(const struct gv_packed_desc *d)
{
	const __m256i d01 = _mm256_loadu_si256((const __m256i *)&d[0]);
	const __m256i d23 = _mm256_loadu_si256((const __m256i *)&d[2]);
	/* (len0, idf0, len2, idf2 | len1, idf1, len3, idf3) -> (lens | idfs) */
	const __m256i t = _mm256_permutevar8x32_epi32(_mm256_unpackhi_epi64(d01, d23),
						      _mm256_setr_epi32(0, 4, 2, 6, 1, 5, 3, 7));
	struct vecp_tails r = { _mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1) };

	GV_OPAQUE(r.lens);
	GV_OPAQUE(r.idf);
	return r;
}

/*
 * Whole groups of 4 in-step descriptors from entry *kp of the burst, at
 * most `cap` entries in all, not reaching the ring's end; each group is
 * used in this lap (flags, first load), then, after the read barrier,
 * valid (id == position, header < length <= buffer; second load). The
 * packets go to pkts[*kp...], bytes and size bins to the queue's
 * counters. Out of line: a call per burst, so the burst template needs
 * no target attribute.
 */
static __rte_always_inline void vecp_groups(struct gv_rxq *rxq, struct rte_mbuf **pkts,
					    uint32_t *kp, uint32_t cap, const bool avx2,
					    const enum gv_barrier B)
{
	struct gv_vq *vq = rxq->q.vq;
	const uint32_t num = gvpf_num(vq), k0 = *kp, hdr = rxq->hdr_size;
	uint32_t pos0 = gvpf_used_pos(vq) + k0, wrap = gvpf_used_wrap(vq), groups, g, pos;
	const struct gv_packed_desc *ring = gvpf_ring(vq);
	void *const *cks = gvpf_cookies(vq);
	const __m128i hdr1 = _mm_set1_epi32((int)(hdr + 1));
	const __m128i lim = _mm_set1_epi32((int)(gvpf_len(vq) - hdr - 1));
	const __m128i hdrv = _mm_set1_epi32((int)hdr);
	const __m128i rearm_ol = _mm_set_epi64x((long long)rxq->mbuf_ol,
						(long long)rxq->mbuf_rearm);
	/* id and the AVAIL/USED bits of flags, in one lane per descriptor */
	const __m128i idf_mask = _mm_set1_epi32((int)(0xffffu | (GV_DESC_F_AVAIL | GV_DESC_F_USED) << 16));
	__m128i want;
	struct vec_acc4 acc;

	if (pos0 >= num) {
		pos0 -= num;
		wrap ^= 1;
	}
	/* What the four descriptors from pos hold once used in step: id pos + j, used flags. */
	want = _mm_add_epi32(_mm_set1_epi32((int)(pos0 | GVPF_USED_BITS(wrap) << 16)),
			     _mm_setr_epi32(0, 1, 2, 3));
	groups = RTE_MIN(cap - k0, num - pos0) / 4;
	vec_acc4_init(&acc);
	for (g = 0, pos = pos0; g < groups; g++, pos += 4) {
		struct vecp_tails t = avx2 ? vecp_tails_avx2(&ring[pos]) : vecp_tails_sse(&ring[pos]);
		__m128i ok, x, plen, c0, c1;
		struct rte_mbuf *m[4];

		if (unlikely(_mm_movemask_epi8(_mm_cmpeq_epi32(_mm_and_si128(t.idf, idf_mask), want)) !=
			     0xffff))
			break; /* not all used yet, or not in step: singles and the general verb say */
		/* The flags loads before the loads of ids and lengths. */
		gv_rmb(B);
		t = avx2 ? vecp_tails_avx2(&ring[pos]) : vecp_tails_sse(&ring[pos]);
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
		if (unlikely((vec_byte0(m[0]) | vec_byte0(m[1]) | vec_byte0(m[2]) | vec_byte0(m[3])) &
			     1))
			vec_mcast(&rxq->q.st, m, 4);
	}
	*kp = k0 + 4 * g;
	if (g != 0)
		vec_acc4_flush(&acc, &rxq->q.st, 4 * g);
}

#define GVP_GROUPS(name, attr, avx2, B)                                                          \
	static __rte_noinline attr void name(struct gv_rxq *rxq, struct rte_mbuf **pkts,        \
					     uint32_t *kp, uint32_t cap)                        \
	{                                                                                        \
		vecp_groups(rxq, pkts, kp, cap, avx2, B);                                        \
	}

GVP_GROUPS(vecp_groups_sse_smp, __attribute__((target("sse4.2"))), false, GV_BARRIER_SMP)
GVP_GROUPS(vecp_groups_sse_mand, __attribute__((target("sse4.2"))), false, GV_BARRIER_MANDATORY)
GVP_GROUPS(vecp_groups_avx2_smp, __attribute__((target(GVP_AVX2))), true, GV_BARRIER_SMP)
GVP_GROUPS(vecp_groups_avx2_mand, __attribute__((target(GVP_AVX2))), true, GV_BARRIER_MANDATORY)

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
	const struct gv_packed_desc *ring = gvpf_ring(vq);
	const uint32_t num = gvpf_num(vq), hdr = rxq->hdr_size, max = gvpf_len(vq);
	uint32_t k = *kp, pos = gvpf_used_pos(vq) + k, wrap = gvpf_used_wrap(vq);
	bool odd = false;

	if (pos >= num) {
		pos -= num;
		wrap ^= 1;
	}
	for (; k < end; k++) {
		const struct gv_packed_desc *d = &ring[pos];
		uint32_t id, len;
		struct rte_mbuf *m;

		const uint16_t f = gv_load16(&d->flags) & (GV_DESC_F_AVAIL | GV_DESC_F_USED);

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
		m = gvpf_cookie(vq, pos);
		gv_rx_init_mbuf(rxq, m, len - hdr);
		rxq->q.st.bytes += len - hdr;
		vec_count(rxq, m, len - hdr);
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
 * buffer is out of order) by vecp_slow.
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
	if (!gvb_used_maybe(vq, GV_LAYOUT_PACKED) || unlikely(!gvpf_on(vq))) {
		/* A poll that finds nothing: the refill retry out of line, if due. */
		if (unlikely(gvpf_room(vq) >= rxq->refill_thresh || gvb_broken(vq)))
			vecp_finish_idle(rxq, B);
		return 0;
	}
	if (likely(gvpf_in_step(vq))) {
		const uint32_t cap = RTE_MIN((uint32_t)n, gvpf_inflight(vq));
		uint32_t done;

		do {
			done = k;
			if (cap - k >= 4) {
				if (B == GV_BARRIER_MANDATORY)
					(avx2 ? vecp_groups_avx2_mand : vecp_groups_sse_mand)(rxq, pkts,
											       &k, cap);
				else
					(avx2 ? vecp_groups_avx2_smp : vecp_groups_sse_smp)(rxq, pkts,
											     &k, cap);
			}
			odd = vecp_singles(rxq, pkts, &k, RTE_MIN(cap, k + 4), B);
		} while (!odd && k != done && k != cap);
		/* k == cap: n taken, or nothing more in flight. */
		gvpf_take_in_step(vq, k);
	}
	nrx = (uint16_t)k;
	if (unlikely(odd && k < n))
		nrx = B == GV_BARRIER_MANDATORY ? vecp_slow_mand(rxq, pkts, nrx, n, &bytes)
						: vecp_slow_smp(rxq, pkts, nrx, n, &bytes);
	vecp_finish(rxq, nrx, bytes, B);
	return nrx;
}

#define GVP_BURST(name, attr, avx2, B)                                         \
	static attr uint16_t name(void *q, struct rte_mbuf **pkts, uint16_t n) \
	{                                                                      \
		struct gv_queue *gq = &((struct gv_rxq *)q)->q;                \
		uint16_t r;                                                    \
									       \
		if (unlikely(!gv_queue_enter(gq)))                             \
			return 0;                                              \
		r = vecp_burst(q, pkts, n, avx2, B);                           \
		gv_queue_exit(gq);                                             \
		return r;                                                      \
	}

GVP_BURST(rxp_vec_sse_smp, __attribute__((target("sse4.2"))), false, GV_BARRIER_SMP)
GVP_BURST(rxp_vec_sse_mand, __attribute__((target("sse4.2"))), false, GV_BARRIER_MANDATORY)
GVP_BURST(rxp_vec_avx2_smp, __attribute__((target("avx2"))), true, GV_BARRIER_SMP)
GVP_BURST(rxp_vec_avx2_mand, __attribute__((target("avx2"))), true, GV_BARRIER_MANDATORY)

gv_burst_fn gv_rx_vec_packed_fn(const struct gv_hw *hw, enum gv_rx_path p)
{
	const bool mand = hw->barrier == GV_BARRIER_MANDATORY;

	if (p == GV_RX_VEC_AVX2)
		return mand ? rxp_vec_avx2_mand : rxp_vec_avx2_smp;
	return mand ? rxp_vec_sse_mand : rxp_vec_sse_smp;
}

#else /* !RTE_ARCH_X86 */

gv_burst_fn gv_rx_vec_packed_fn(const struct gv_hw *hw, enum gv_rx_path p)
{
	(void)hw;
	(void)p;
	return gv_burst_none;
}

#endif
