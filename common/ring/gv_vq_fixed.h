/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_fixed.h - the fixed mode's verbs, one set for both layouts: the
 * vector RX and TX paths' ring. In fixed mode buffer i always sits at
 * ring position i (split: descriptor i behind avail entry i; packed:
 * buffer id i at position i), every buffer is one descriptor, RX buffers
 * all have one length, and TX needs IN_ORDER. A device that returns
 * buffers in the order it took them then returns, at used position p, the
 * buffer posted at p: a vector burst checks several used entries at once
 * against their positions and takes their cookies straight from the
 * cookie array, with no per-buffer bookkeeping. How each layout keeps
 * that safe (a window of posted positions, holes for buffers returned
 * early, each device-written field validated once) is in
 * gv_vq_fixed_split.h and gv_vq_fixed_packed.h, which are private to this
 * header.
 *
 * Every verb takes the layout L as a literal (as gv_vq_burst.h's do), so
 * each caller's copy calls one layout's code; B is the barrier policy.
 *
 * Life: enter on an empty queue with gvf_enable() (RX) or gvf_tx_enable()
 * (TX); leave with gv_vq_reset(); gv_vq_detach() gives back what is in
 * flight. While in fixed mode the general post and take verbs (gv_vq_add,
 * gv_vq_add_burst, gv_vq_get_used, gv_vq_reclaim_in_order and their gvb_*
 * copies) refuse and change nothing; gvb_kick_prepare()/gv_vq_kick_prepare()
 * publish, gv_vq_enable_cb()/disable_cb(), gv_vq_used_pending() and
 * gv_vq_watch() work as usual.
 *
 * RX:  gvf_post_slots + gvf_post_commit (or gvf_add) post buffers, then a
 *      kick publishes them; gvf_ready says how many used entries to look
 *      at; while gvf_in_step, the caller validates entries in step itself
 *      (gvf_split_used / gvf_packed_ring, gvf_cookie) and takes them with
 *      gvf_take_in_step; anything else goes through gvf_take_one.
 * TX:  gvf_tx_slots + gvf_tx_commit post; gvf_tx_done + gvf_tx_take
 *      reclaim, oldest first.
 * Plain C11, no DPDK.
 */
#ifndef GV_VQ_FIXED_H
#define GV_VQ_FIXED_H

#include "gv_vq_fixed_packed.h"
#include "gv_vq_fixed_split.h"

/* --------------------------------------------------------------- life -- */

/*
 * Enter fixed mode for RX: every buffer posted from now on is
 * device-writable and `len` bytes long. 0, -EIO (broken), -EINVAL (not
 * of layout L, len 0) or -EBUSY (buffers in flight).
 */
GV_INLINE int gvf_enable(struct gv_vq *vq, uint32_t len, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? split_fixed_enable(vq, len) : packed_fixed_enable(vq, len);
}

/*
 * Enter fixed mode for TX: device-readable buffers, each post giving
 * every buffer's address and length. Needs IN_ORDER (buffers come back
 * oldest first and are taken by gvf_tx_done/gvf_tx_take, not
 * gvf_take_one). 0, -EIO, -EINVAL (not of layout L, no IN_ORDER) or
 * -EBUSY.
 */
GV_INLINE int gvf_tx_enable(struct gv_vq *vq, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? split_fixed_tx_enable(vq) : packed_fixed_tx_enable(vq);
}

/* The mode is on and the queue not broken. */
GV_INLINE bool gvf_on(const struct gv_vq *vq, const enum gv_layout L)
{
	return !vq->broken && (L == GV_LAYOUT_SPLIT ? vq->s.fixed : vq->p.fixed);
}

/* --------------------------------------------------- the ring's shape -- */

/* Positions that can be posted now (outside the window). */
GV_INLINE uint32_t gvf_room(const struct gv_vq *vq)
{
	return vq->num_free;
}

/* Ring positions (the ring size). */
GV_INLINE uint32_t gvf_num(const struct gv_vq *vq)
{
	return vq->num;
}

/* Buffers posted and not taken. */
GV_INLINE uint32_t gvf_inflight(const struct gv_vq *vq)
{
	return vq->inflight;
}

/* Every RX buffer's length: the bound on a used length. */
GV_INLINE uint32_t gvf_len(const struct gv_vq *vq, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? vq->s.fixed_len : vq->p.fixed_len;
}

/* The ring position of the next used entry, 0 .. gvf_num() - 1. */
GV_INLINE uint32_t gvf_used_pos(const struct gv_vq *vq, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? (uint32_t)(vq->s.last_used & vq->mask) : vq->p.used_idx;
}

/* The cookies by position (private state; vector loads of in-step entries). */
GV_INLINE void *const *gvf_cookies(const struct gv_vq *vq, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? vq->s.fixed_ck : vq->p.fixed_ck;
}

/* The cookie posted at position pos. */
GV_INLINE void *gvf_cookie(const struct gv_vq *vq, uint32_t pos, const enum gv_layout L)
{
	return gvf_cookies(vq, L)[pos];
}

/* Split: the used ring, for reading entries (ids and lengths are untrusted). */
GV_INLINE const struct gv_split_used_elem *gvf_split_used(const struct gv_vq *vq)
{
	return vq->s.used->ring;
}

/* Packed: the descriptor ring, for reading used descriptors (untrusted). */
GV_INLINE const struct gv_packed_desc *gvf_packed_ring(const struct gv_vq *vq)
{
	return vq->p.desc;
}

/* Packed: the lap of the used position (its descriptors' used flags: GVPF_USED_BITS). */
GV_INLINE uint32_t gvf_packed_used_wrap(const struct gv_vq *vq)
{
	return vq->p.used_wrap;
}

/* ----------------------------------------------------------------- RX -- */

/*
 * Where the next buffers go: the cookie array from the next free position
 * to the ring's end, at most the free room; *n says how many (0 when the
 * queue is broken, full or not in fixed mode). The caller stores cookies
 * there (its allocator can fill it directly), then posts them with
 * gvf_post_commit().
 */
GV_INLINE void **gvf_post_slots(struct gv_vq *vq, uint32_t *n, const enum gv_layout L)
{
	return L == GV_LAYOUT_SPLIT ? split_fixed_post_slots(vq, n) : packed_fixed_post_slots(vq, n);
}

/*
 * Post the n cookies stored at gvf_post_slots() (n at most what it said):
 * buffer k at the 64-bit address stored at byte offset addr_off of the
 * object its cookie points to, plus addr_add. A kick publishes them.
 */
GV_INLINE void gvf_post_commit(struct gv_vq *vq, uint32_t n, uint32_t addr_off, uint64_t addr_add,
			       const enum gv_layout L)
{
	if (L == GV_LAYOUT_SPLIT)
		split_fixed_post_commit(vq, n, addr_off, addr_add);
	else
		packed_fixed_post_commit(vq, n, addr_off, addr_add);
}

/* Post n buffers (fewer if the window is full) from cookies[]; how many. */
GV_INLINE uint32_t gvf_add(struct gv_vq *vq, void *const *cookies, uint32_t n, uint32_t addr_off,
			   uint64_t addr_add, const enum gv_layout L)
{
	uint32_t done = 0;

	while (done < n) {
		uint32_t room;
		void **slots = gvf_post_slots(vq, &room, L);

		if (room == 0)
			break;
		if (room > n - done)
			room = n - done;
		memcpy(slots, cookies + done, room * sizeof(*slots));
		gvf_post_commit(vq, room, addr_off, addr_add, L);
		done += room;
	}
	return done;
}

/*
 * How many used entries from the used position to look at, at most n (0
 * when broken or not in fixed mode). Split: the entries the used index
 * covers (the index checked against the published buffers in flight,
 * bad_used_idx breaking the queue, and read before the entries: read
 * barrier); each is there. Packed: the buffers in flight; each
 * descriptor's flags say whether it is there yet.
 */
GV_INLINE uint32_t gvf_ready(struct gv_vq *vq, uint32_t n, const enum gv_layout L,
			     const enum gv_barrier B)
{
	if (L == GV_LAYOUT_SPLIT)
		return split_fixed_ready(vq, n, B);
	if (GV_UNLIKELY(!packed_fixed_on(vq)))
		return 0;
	return n < vq->inflight ? n : vq->inflight;
}

/*
 * True when no buffer came back ahead of the oldest: then the used entry
 * at used position gvf_used_pos() + k (modulo the ring size), for k below
 * gvf_ready(), is valid exactly when its id is that position and its
 * length at most gvf_len() (packed: and its flags say used in the lap of
 * that position, read before the id and length).
 */
GV_INLINE bool gvf_in_step(const struct gv_vq *vq, const enum gv_layout L)
{
	return (L == GV_LAYOUT_SPLIT ? vq->s.fixed_holes : vq->p.fixed_holes) == 0;
}

/* Take the k entries from the used position that the caller validated in step, cookies read. */
GV_INLINE void gvf_take_in_step(struct gv_vq *vq, uint32_t k, const enum gv_layout L)
{
	if (L == GV_LAYOUT_SPLIT)
		split_fixed_take_in_step(vq, k);
	else
		packed_fixed_take_in_step(vq, k);
}

/*
 * One used entry at the used position, whatever the device wrote,
 * validated as gv_vq_get_used() does (bad_id, id_not_inflight, bad_len;
 * bad_order with IN_ORDER; packed: bad_flags first); a buffer returned
 * ahead of the oldest leaves a hole. 1 with *cookie and *len; 0 when it
 * is not there yet (packed); -1 when the queue broke on it. Split: only
 * for an entry gvf_ready() covered. Not for TX mode.
 */
GV_INLINE int gvf_take_one(struct gv_vq *vq, void **cookie, uint32_t *len, const enum gv_layout L,
			   const enum gv_barrier B)
{
	if (L == GV_LAYOUT_SPLIT)
		return split_fixed_take_one(vq, cookie, len) ? 1 : -1;
	return packed_fixed_take_one(vq, cookie, len, B);
}

/* ----------------------------------------------------------------- TX -- */

/*
 * Where the next TX buffers go: the cookie array from the next free
 * position, *n of them (at most max, to the ring's end; 0 when broken,
 * full or not in fixed mode), and *pairs where the caller writes each
 * buffer's 16-byte address/length pair (struct gv_seg's layout: address
 * at 0, 32-bit length at 8, the rest may be zero): split, the
 * descriptors themselves; packed, `scratch` (max entries), which
 * gvf_tx_commit() turns into descriptors. Then gvf_tx_commit(k).
 */
GV_INLINE void **gvf_tx_slots(struct gv_vq *vq, uint32_t *n, uint32_t max, void **pairs,
			      struct gv_seg *scratch, const enum gv_layout L)
{
	void **slots;

	if (L == GV_LAYOUT_SPLIT) {
		struct gv_split_desc *d;

		slots = split_fixed_tx_slots(vq, n, &d);
		*pairs = d;
	} else {
		slots = packed_fixed_post_slots(vq, n);
		*pairs = scratch;
	}
	if (*n > max)
		*n = max;
	return slots;
}

/* Post the first n buffers written at gvf_tx_slots() (scratch: the same). A kick publishes them. */
GV_INLINE void gvf_tx_commit(struct gv_vq *vq, uint32_t n, const struct gv_seg *scratch,
			     const enum gv_layout L)
{
	if (L == GV_LAYOUT_SPLIT)
		split_fixed_tx_commit(vq, n);
	else
		packed_fixed_tx_commit(vq, n, scratch);
}

/*
 * How many buffers from the used position the device has returned, at
 * most max: split, as the used index says (checked, read barrier);
 * packed, as far as one used descriptor says (an IN_ORDER batch, its id
 * checked against the published buffers; the next call returns what is
 * left of it first). 0 when none, or the queue broke. Their cookies are at
 * gvf_cookies() from gvf_used_pos() on, crossing the ring end; take any
 * number of them, at most this, with gvf_tx_take(). No length is read.
 */
GV_INLINE uint32_t gvf_tx_done(struct gv_vq *vq, uint32_t max, const enum gv_layout L,
			       const enum gv_barrier B)
{
	int32_t k;

	if (L == GV_LAYOUT_SPLIT)
		return split_fixed_ready(vq, max, B);
	k = packed_fixed_tx_done(vq, B);
	if (k <= 0)
		return 0;
	return (uint32_t)k < max ? (uint32_t)k : max;
}

/* Take k of the buffers gvf_tx_done() said are back (their cookies read). */
GV_INLINE void gvf_tx_take(struct gv_vq *vq, uint32_t k, const enum gv_layout L)
{
	if (L == GV_LAYOUT_SPLIT)
		split_fixed_take_in_step(vq, k);
	else
		packed_fixed_tx_take(vq, k);
}

#endif /* GV_VQ_FIXED_H */
