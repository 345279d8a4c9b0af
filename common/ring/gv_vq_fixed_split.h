/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_fixed_split.h - the split ring's fixed mode, private to
 * gv_vq_fixed.h (whose gvf_* verbs are the API): vectorized RX bursts of
 * one-descriptor device-writable buffers of one length, and vectorized TX
 * bursts of one-descriptor device-readable buffers with IN_ORDER.
 *
 * In fixed mode descriptor i is always the one behind avail entry i: the
 * avail ring is written once (i -> i) when the mode is entered, every
 * descriptor's length and flags too, so posting a buffer at avail
 * position p writes only desc[p & mask].addr (TX: and its len) and the
 * private slot, and a
 * device that returns buffers in the order it took them (what devices do
 * with one-descriptor RX buffers) returns used id == used position, which
 * a vector burst checks four or eight entries at a time.
 *
 * Trust: nothing changes. The used index, ids and lengths are validated
 * before use, with the same counters as gv_vq_get_used(). The window of
 * posted positions [fixed_old, avail_idx) is private state, and what is
 * in flight is derived from it: a descriptor is in flight when its
 * position is inside the window and it is not a hole. A buffer the device
 * returns ahead of fixed_old (allowed without IN_ORDER) becomes a hole;
 * fixed_old moves past holes when
 * the oldest buffer comes back, and only positions outside the window are
 * posted again, so a descriptor in flight is never rewritten. With no
 * holes, fixed_old equals last_used and the buffers in flight are exactly
 * the window, oldest first: the entry at used position last_used + k is
 * valid when its id is (last_used + k) & mask, so taking it needs no
 * per-buffer bookkeeping. In this mode the private per-slot arrays hold a
 * plain array of cookies, one per descriptor (so that a refill can take
 * buffers from its allocator straight into it, and a burst can copy them
 * out in vector loads), and a hole flag per descriptor.
 *
 * A device that keeps the oldest buffer while returning the others
 * stalls reposting until it returns it (the window is full). Plain C11,
 * no DPDK.
 */
#ifndef GV_VQ_FIXED_SPLIT_H
#define GV_VQ_FIXED_SPLIT_H

#include "gv_vq_priv.h"
#include "gv_vq_split.h"

_Static_assert(sizeof(struct gv_slot) >= sizeof(void *), "fixed mode: a cookie per slot");

/* Enter fixed mode with every descriptor `len` long and `flags` (both modes). */
static inline int split_fixed_enter(struct gv_vq *vq, uint32_t len, uint16_t flags)
{
	if (vq->broken)
		return -EIO;
	if (vq->layout != GV_LAYOUT_SPLIT)
		return -EINVAL;
	if (vq->inflight != 0 || vq->s.avail_idx != vq->s.last_used)
		return -EBUSY;
	/* num cookies over the slot array, num flags over the next array. */
	vq->s.fixed_ck = (void **)(void *)vq->slot;
	vq->s.fixed_hole = (uint8_t *)vq->next;
	for (uint32_t i = 0; i < vq->num; i++) {
		vq->s.desc[i].len = len;
		vq->s.desc[i].flags = flags;
		vq->s.desc[i].next = 0;
		vq->s.avail->ring[i] = (uint16_t)i;
		vq->s.fixed_ck[i] = NULL;
		vq->s.fixed_hole[i] = 0;
	}
	vq->s.fixed = 1;
	vq->gate = 1; /* only the fixed verbs post and take now */
	vq->s.fixed_len = len;
	vq->s.fixed_old = vq->s.last_used;
	vq->s.fixed_holes = 0;
	vq->num_free = vq->num;
	return 0;
}

/*
 * Enter fixed mode: every buffer posted from now on is device-writable
 * and `len` bytes long. 0, -EIO (broken), -EINVAL (not split, len 0) or
 * -EBUSY (buffers in flight).
 */
static inline int split_fixed_enable(struct gv_vq *vq, uint32_t len)
{
	if (len == 0)
		return vq->broken ? -EIO : -EINVAL;
	return split_fixed_enter(vq, len, GV_DESC_F_WRITE);
}

/*
 * Enter fixed mode for device-readable buffers (TX): descriptor i stays
 * behind avail entry i with flags 0, and each post writes the address and
 * length of the descriptors it fills (split_fixed_tx_slots). Needs IN_ORDER:
 * buffers then come back oldest first, so they are taken by the used
 * index alone (split_fixed_ready, then split_fixed_take_in_step), no used entry read,
 * exactly as gv_vq_reclaim_in_order() takes them; split_fixed_take_one() is not
 * for this mode. 0, -EIO, -EINVAL (not split, no IN_ORDER) or -EBUSY.
 */
static inline int split_fixed_tx_enable(struct gv_vq *vq)
{
	if (!(vq->features & GV_VQ_F_IN_ORDER))
		return vq->broken ? -EIO : -EINVAL;
	return split_fixed_enter(vq, 0, 0);
}

/*
 * Where the next buffers go: the cookie array from the next free position
 * to the ring's end, at most the free room; *n says how many (0 when the
 * queue is broken, full or not in fixed mode). The caller stores cookies there (its
 * allocator can fill it directly), then posts them with split_fixed_post_commit.
 */
GV_INLINE void **split_fixed_post_slots(struct gv_vq *vq, uint32_t *n)
{
	const uint32_t id = vq->s.avail_idx & vq->mask;
	const uint32_t to_end = vq->num - id;

	if (GV_UNLIKELY(vq->broken || !vq->s.fixed)) {
		*n = 0;
		return NULL;
	}
	*n = vq->num_free < to_end ? vq->num_free : to_end;
	return &vq->s.fixed_ck[id];
}

/*
 * Post the n cookies stored at split_fixed_post_slots(): buffer k at the 64-bit
 * address stored at byte offset addr_off of the object its cookie points
 * to, plus addr_add. n at most what split_fixed_post_slots() said. Published by
 * gvb_kick_prepare().
 */
GV_INLINE void split_fixed_post_commit(struct gv_vq *vq, uint32_t n, uint32_t addr_off, uint64_t addr_add)
{
	const uint32_t id = vq->s.avail_idx & vq->mask;
	struct gv_split_desc *d = &vq->s.desc[id];
	void *const *ck = &vq->s.fixed_ck[id];
	void *const *const end = ck + n;

	/* Pointers, not a 32-bit index: no index extension per descriptor. */
#define GVF_POST1(j) d[j].addr = *(const uint64_t *)((const char *)ck[j] + addr_off) + addr_add
	for (; end - ck >= 4; ck += 4, d += 4) {
		GVF_POST1(0);
		GVF_POST1(1);
		GVF_POST1(2);
		GVF_POST1(3);
	}
	for (; ck < end; ck++, d++)
		GVF_POST1(0);
#undef GVF_POST1
	vq->s.avail_idx = (uint16_t)(vq->s.avail_idx + n);
	vq->num_free -= n;
	vq->inflight += n;
}

/*
 * TX fixed mode: where the next buffers go, as split_fixed_post_slots() (cookie
 * array, *n of them up to the ring's end), and *desc the descriptor of
 * the first: the caller writes addr and len of desc[0..k) for the k
 * cookies it stores (flags and next stay 0; a 16-byte store with zeros
 * there is fine), then posts them with split_fixed_tx_commit(vq, k).
 */
GV_INLINE void **split_fixed_tx_slots(struct gv_vq *vq, uint32_t *n, struct gv_split_desc **desc)
{
	void **slots = split_fixed_post_slots(vq, n);

	*desc = &vq->s.desc[vq->s.avail_idx & vq->mask];
	return slots;
}

/* Post the n buffers written at split_fixed_tx_slots(). Published by gvb_kick_prepare(). */
GV_INLINE void split_fixed_tx_commit(struct gv_vq *vq, uint32_t n)
{
	vq->s.avail_idx = (uint16_t)(vq->s.avail_idx + n);
	vq->num_free -= n;
	vq->inflight += n;
}

/*
 * Used entries ready to be read, at most n (0 unless in fixed mode): the used index is checked
 * against the buffers in flight (bad_used_idx breaks the queue) and read
 * before the entries it covers (read barrier).
 */
GV_INLINE uint32_t split_fixed_ready(struct gv_vq *vq, uint32_t n, const enum gv_barrier B)
{
	uint16_t pending;

	if (GV_UNLIKELY(vq->broken || !vq->s.fixed)) /* broken, or not in fixed mode */
		return 0;
	pending = split_used_avail(vq, B);
	return n < pending ? n : pending;
}

/*
 * Take the k entries from last_used that the caller validated in step
 * (gvf_in_step: ids in step, lengths in bound), their cookies read.
 */
GV_INLINE void split_fixed_take_in_step(struct gv_vq *vq, uint32_t k)
{
	vq->s.last_used = (uint16_t)(vq->s.last_used + k);
	vq->s.fixed_old = (uint16_t)(vq->s.fixed_old + k);
	vq->num_free += k;
	vq->inflight -= k;
}

/*
 * One entry, whatever the device wrote (call after split_fixed_ready() said it
 * is there): validated as gv_vq_get_used() does (bad_id,
 * id_not_inflight, bad_len; bad_order with IN_ORDER), a buffer returned
 * ahead of the oldest leaves a hole. 1 with *cookie and *len, or 0: the
 * queue is broken.
 */
static inline uint32_t split_fixed_take_one(struct gv_vq *vq, void **cookie, uint32_t *len)
{
	const struct gv_split_used_elem *e = &vq->s.used->ring[vq->s.last_used & vq->mask];
	const uint32_t id = gv_load32(&e->id), l = gv_load32(&e->len);
	const uint16_t window = (uint16_t)(vq->s.pub_idx - vq->s.fixed_old); /* made available */
	uint32_t at; /* the id's place in the window, 0 = oldest */
	uint8_t *const hole = vq->s.fixed_hole;

	if (GV_UNLIKELY(id >= vq->num)) {
		GV_VQ_FAIL(vq, bad_id);
		return 0;
	}
	at = (id - vq->s.fixed_old) & vq->mask;
	if (GV_UNLIKELY(at >= window || hole[id])) { /* outside, or returned already */
		GV_VQ_FAIL(vq, id_not_inflight);
		return 0;
	}
	if (GV_UNLIKELY(l > vq->s.fixed_len)) {
		GV_VQ_FAIL(vq, bad_len);
		return 0;
	}
	if (at == 0) {
		uint32_t freed = 1;

		vq->s.fixed_old++;
		while (vq->s.fixed_holes && hole[vq->s.fixed_old & vq->mask]) {
			hole[vq->s.fixed_old & vq->mask] = 0;
			vq->s.fixed_old++;
			vq->s.fixed_holes--;
			freed++;
		}
		vq->num_free += freed;
	} else {
		if (GV_UNLIKELY(vq->features & GV_VQ_F_IN_ORDER)) {
			GV_VQ_FAIL(vq, bad_order);
			return 0;
		}
		hole[id] = 1;
		vq->s.fixed_holes++;
	}
	vq->inflight--;
	vq->s.last_used++;
	*cookie = vq->s.fixed_ck[id];
	*len = l;
	return 1;
}

/*
 * gv_vq_detach() of a queue in fixed mode: the next buffer in flight
 * (window order, holes skipped), or NULL.
 */
static inline void *split_fixed_detach(struct gv_vq *vq)
{
	while (vq->s.fixed_old != vq->s.avail_idx) {
		const uint32_t id = vq->s.fixed_old & vq->mask;

		vq->s.fixed_old++;
		vq->num_free++;
		if (vq->s.fixed_hole[id]) { /* already returned */
			vq->s.fixed_hole[id] = 0;
			vq->s.fixed_holes--;
			continue;
		}
		vq->inflight--;
		return vq->s.fixed_ck[id];
	}
	return NULL;
}

#endif /* GV_VQ_FIXED_SPLIT_H */
