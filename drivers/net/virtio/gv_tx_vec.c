/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_tx_vec.c - the vectorized TX path: the in-order TX path on a ring in
 * the core's TX fixed mode (common/ring/gv_vq_fixed.h, gvf_tx_enable),
 * packets checked four at a time with SSE4.2. One body for both layouts,
 * the layout a literal (as the core's burst verbs).
 *
 * Buffer i always sits at ring position i (split: descriptor i behind
 * avail entry i, flags 0), so posting a packet is one 16-byte store of
 * its address and length (split: the descriptor itself; packed: an
 * address/length pair the core writes into the descriptor with its id
 * and flags, the batch's first flags last) and one cookie store: no free
 * list, slot record or avail entry per packet. The zero header goes into
 * the packet's headroom, as on the scalar paths. With IN_ORDER the
 * device returns buffers oldest first, so a reclaim reads only the used
 * index (split) or one used descriptor per batch (packed), checked
 * against what is in flight, and frees the mbufs straight from the
 * core's cookie array.
 *
 * A group of four packets is checked with one vector compare each
 * (refcnt 1, one segment, room for the header, direct: the 16 bytes of
 * rearm_data and ol_flags), and its bytes and size bins are counted in
 * vector lanes; multicast and broadcast are counted from each packet's
 * first byte, as on the scalar paths (the application has just written
 * it). A packet that does not fit one descriptor (a chain, shared,
 * indirect, no headroom) cannot go as a chain on a fixed ring: it is
 * copied into one fresh mbuf of its pool, out of line; one longer than
 * that mbuf is dropped and counted as an error, and when the pool is
 * empty (after a reclaim of everything the device has returned, which
 * may hold the pool's mbufs) the burst stops there: the packet stays the
 * application's. The
 * path is chosen only without TX offloads (gv_path.c), where an
 * application sends single-segment packets.
 *
 * The group check is compiled with a target attribute, so the default
 * build needs no -march; other architectures get no vector TX path.
 */
#include <rte_cpuflags.h>
#include <rte_vect.h>

#include "gv_tx.h"
#include "gv_vq_fixed.h"
#ifdef RTE_ARCH_X86
#include "gv_rx_vec.h" /* the vector byte and size-bin counters */
#endif

/* The group step copies cookies two to a 16-byte vector. */
static bool tx_vec_usable(void)
{
#ifdef RTE_ARCH_X86
	return gv_path_simd_ok(RTE_VECT_SIMD_128, RTE_CPUFLAG_SSE4_2);
#else
	return false;
#endif
}

/* The address/length pairs a packed post hands the core: 16 bytes, a split descriptor's start. */
static_assert(sizeof(struct gv_seg) == 16 && offsetof(struct gv_seg, len) == 8, "gv_seg layout");
static_assert(offsetof(struct gv_split_desc, len) == 8, "split desc layout");

static int tx_vec_start(struct gv_txq *txq)
{
	struct gv_vq *vq = txq->q.vq;
	const int ret = gv_vq_fixed_tx_enable(vq);

	if (ret)
		GV_LOG(ERR, "%s: tx queue %u: cannot set up the vector path's ring (%s)",
		       txq->q.hw->name, txq->q.queue_id, strerror(-ret));
	return ret;
}

/*
 * Free what the device returned, GV_BURST_MAX at a time, until `need`
 * positions are free, `max` are taken or none is left (as tx_reclaim in
 * gv_tx.c, and for the same reason: a slice at a time); how many.
 */
static __rte_always_inline uint32_t vec_reclaim(struct gv_txq *txq, uint32_t need, uint32_t max,
						const enum gv_layout L, const enum gv_barrier B)
{
	struct gv_vq *vq = txq->q.vq;
	struct rte_mbuf **cks = (struct rte_mbuf **)(uintptr_t)gvf_cookies(vq, L);
	const uint32_t num = gvf_num(vq);
	uint32_t done = 0;

	while (done < max && gvf_room(vq) < need) {
		const uint32_t got = gvf_tx_done(vq, RTE_MIN(max - done, (uint32_t)GV_BURST_MAX), L, B);
		const uint32_t pos = gvf_used_pos(vq, L), first = RTE_MIN(got, num - pos);

		if (got == 0)
			break;
		tx_free(&cks[pos], first);
		if (got > first)
			tx_free(cks, got - first);
		gvf_tx_take(vq, got, L);
		done += got;
	}
	return done;
}

/* A buffer's address and length at d (split: a descriptor, its flags and next left 0). */
static __rte_always_inline void vec_desc(void *d, uint64_t addr, uint32_t len)
{
	memcpy(d, &addr, 8);
	memcpy((char *)d + 8, &len, 4);
}

/* One packet that fits: its address and length at d, its cookie at *slot, counted. */
static __rte_always_inline void vec_put(struct gv_txq *txq, struct rte_mbuf *m, void **slot,
					void *d)
{
	const uint16_t hdr = txq->hdr_size;
	char *data = rte_pktmbuf_mtod(m, char *);

	hdr_zero(data - hdr, hdr);
	vec_desc(d, mbuf_addr(m, txq->addr_off) + m->data_off - hdr, (uint32_t)m->data_len + hdr);
	*slot = m;
	txq->q.st.bytes += m->pkt_len;
	count_bins(&txq->q.st, m->pkt_len, (const uint8_t *)data, m->data_len);
}

/*
 * A packet that does not fit one descriptor, as one fresh mbuf of the
 * pool its data came from (tx_data_pool) holding a copy of it (the
 * original freed), or NULL: dropped (too
 * long for that mbuf, or its segments hold less than pkt_len; counted as
 * an error, freed) or, with *stop set, the pool is empty (the packet is
 * still the application's).
 */
static __rte_noinline struct rte_mbuf *vec_copy(struct gv_txq *txq, struct rte_mbuf *m,
						bool *stop)
{
	const uint32_t len = m->pkt_len;
	struct rte_mbuf *c = rte_pktmbuf_alloc(tx_data_pool(m));
	const void *src;
	char *dst;

	if (c == NULL) {
		*stop = true;
		return NULL;
	}
	if (rte_pktmbuf_headroom(c) < txq->hdr_size || rte_pktmbuf_tailroom(c) < len)
		goto drop;
	dst = rte_pktmbuf_append(c, (uint16_t)len);
	src = rte_pktmbuf_read(m, 0, len, dst);
	if (src == NULL)
		goto drop;
	if (src != dst)
		memcpy(dst, src, len);
	rte_pktmbuf_free(m);
	return c;
drop:
	txq->q.st.errors++;
	rte_pktmbuf_free(c);
	rte_pktmbuf_free(m);
	return NULL;
}

#ifdef RTE_ARCH_X86
/*
 * Whole groups of four of the n packets while every one fits a
 * descriptor (one vector compare each): addresses and lengths 16 bytes
 * apart from d, cookies slots[], bytes and size bins in vector lanes; how
 * many posted (a multiple of 4).
 */
static __rte_noinline __attribute__((target("sse4.2"))) uint32_t
tx_groups4(struct gv_txq *txq, struct rte_mbuf **pkts, uint32_t n, void **slots, char *d)
{
	const size_t ra = offsetof(struct rte_mbuf, rearm_data);
	const uint16_t hdr = txq->hdr_size;
	const uint32_t addr_off = txq->addr_off;
	/* rearm_data's 16-bit lanes: data_off, refcnt, nb_segs, port; then ol_flags. */
	const __m128i sel = _mm_set_epi64x((long long)(RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL),
					   0x0000ffffffff0000ll);
	const __m128i want = _mm_set_epi64x(0, 0x0000000100010000ll);
	const __m128i room = _mm_set_epi64x(0, hdr); /* data_off at least hdr */
	struct vec_acc4 acc;
	uint32_t g;

	vec_acc4_init(&acc);
	for (g = 0; g + 4 <= n; g += 4) {
		struct rte_mbuf *const *m = &pkts[g];
		__m128i ok = _mm_set1_epi8(-1), plen;

		for (unsigned int j = 0; j < 4; j++) {
			const __m128i r = _mm_loadu_si128((const __m128i *)((const char *)m[j] + ra));

			ok = _mm_and_si128(ok, _mm_cmpeq_epi16(_mm_and_si128(r, sel), want));
			ok = _mm_and_si128(ok, _mm_cmpeq_epi16(_mm_max_epu16(r, room), r));
		}
		if (unlikely(_mm_movemask_epi8(ok) != 0xffff))
			break;
		for (unsigned int j = 0; j < 4; j++) {
			const struct rte_mbuf *mj = m[j];
			const uint8_t *data = rte_pktmbuf_mtod(mj, const uint8_t *);

			hdr_zero((char *)(uintptr_t)data - hdr, hdr);
			_mm_storeu_si128((__m128i *)(d + 16 * (g + j)),
					 _mm_set_epi64x((long long)mj->data_len + hdr,
							(long long)(mbuf_addr(mj, addr_off) +
								    mj->data_off - hdr)));
			/* Size bins: in vectors below. */
			count_l2(&txq->q.st, data, mj->data_len);
		}
		plen = _mm_setr_epi32((int)m[0]->pkt_len, (int)m[1]->pkt_len, (int)m[2]->pkt_len,
				      (int)m[3]->pkt_len);
		vec_acc4_add(&acc, plen);
		_mm_storeu_si128((__m128i *)&slots[g], _mm_loadu_si128((const __m128i *)&m[0]));
		_mm_storeu_si128((__m128i *)&slots[g + 2], _mm_loadu_si128((const __m128i *)&m[2]));
	}
	if (g != 0)
		vec_acc4_flush(&acc, &txq->q.st, g);
	return g;
}
#endif

/*
 * The burst: reclaim when short of room, then post from each free span
 * (to the ring's end, then from 0): groups of four while they fit
 * (`simd`), the rest one by one, a packet that does not fit copied.
 */
static __rte_always_inline uint16_t vec_xmit(struct gv_txq *txq, struct rte_mbuf **pkts,
					     uint16_t n, const bool simd, const enum gv_layout L,
					     const enum gv_barrier B)
{
	struct gv_vq *vq = txq->q.vq;
	const uint16_t hdr = txq->hdr_size;
	uint16_t sent = 0;
	bool stop = false, retried = false;

	if (gvf_room(vq) < txq->free_thresh || gvf_room(vq) < n)
		vec_reclaim(txq, RTE_MAX((uint32_t)n, txq->free_thresh), UINT32_MAX, L, B);
	while (sent < n) {
		struct gv_seg segs[GV_BURST_MAX]; /* packed: what the core writes */
		uint32_t room, i = 0, j = 0; /* packets taken, positions filled */
		void **slots, *pairs;
		char *d;

		slots = gvf_tx_slots(vq, &room, GV_BURST_MAX, &pairs, segs, L);
		d = pairs;
		if (room == 0)
			break;
		while (sent + i < n && j < room) {
			struct rte_mbuf *m;

#ifdef RTE_ARCH_X86
			if (simd && n - sent - i >= 4 && room - j >= 4) {
				const uint32_t g = tx_groups4(txq, pkts + sent + i,
							      RTE_MIN(n - sent - i, room - j),
							      slots + j, d + 16 * j);

				i += g;
				j += g;
				if (sent + i == n || j == room)
					break;
			}
#else
			(void)simd;
#endif
			m = pkts[sent + i];
			if (unlikely(!tx_simple_ok(m, hdr, false))) {
				m = vec_copy(txq, m, &stop);
				if (m == NULL) {
					if (stop)
						break;
					i++; /* dropped */
					continue;
				}
			}
			vec_put(txq, m, slots + j, d + 16 * j);
			i++;
			j++;
		}
		gvf_tx_commit(vq, j, segs, L);
		txq->q.st.packets += j;
		sent += i;
		if (unlikely(stop)) {
			/* No mbuf for a copy: sent ones of its pool may wait in the ring. */
			if (retried)
				break;
			retried = true;
			stop = false;
			vec_reclaim(txq, UINT32_MAX, UINT32_MAX, L, B);
		}
	}
	kick(&txq->q, L, B);
	if (unlikely(gvb_broken(vq)))
		gv_queue_broken(&txq->q, "tx");
	return sent;
}

static uint16_t tx_vec_owned(struct gv_txq *txq, struct rte_mbuf **pkts, uint16_t n)
{
	return GV_LB_CALL(txq->q.hw, vec_xmit, txq, pkts, n, false);
}

static uint32_t tx_vec_cleanup(struct gv_txq *txq, uint32_t max)
{
	return GV_LB_CALL(txq->q.hw, vec_reclaim, txq, UINT32_MAX, max);
}

#ifdef RTE_ARCH_X86

/* The bursts: the path is usable only on x86 (tx_vec_usable). */
static __rte_always_inline uint16_t tx_vec_body(struct gv_txq *txq, struct rte_mbuf **pkts,
						uint16_t n, const enum gv_layout L,
						const enum gv_barrier B)
{
	return vec_xmit(txq, pkts, n, true, L, B);
}

GV_BURSTS_LB(tx_vec, struct gv_txq, tx_vec_body)
#define TX_VEC_BURSTS GV_BURSTS_LB_TABLE(tx_vec)

#else

#define TX_VEC_BURSTS GV_BURSTS_NONE

#endif

const struct gv_tx_path gv_tx_path_vec_sse = {
	.p = { .name = "vectorized (SSE)", .id = GV_TX_VEC_SSE, .needs = GV_BIT(GV_F_IN_ORDER),
	       .vector = true, .cls = GV_FORCE_INORDER, .usable = tx_vec_usable,
	       .burst = TX_VEC_BURSTS },
	.start = tx_vec_start,
	.owned = tx_vec_owned,
	.cleanup = tx_vec_cleanup,
};
