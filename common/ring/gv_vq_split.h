/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_split.h - driver end, split layout (virtio 1.2 section 2.7).
 * Twin of gv_vq_packed.h: the same verbs, each a static inline function
 * taking the barrier policy as a literal, specialised by gv_vq.c.
 *
 * Private state: the free list and chain links (vq->next), each chain's
 * length and writable bytes (vq->slot), and the posting order (vq->order)
 * live in struct gv_vq. Descriptors in the ring are write-only copies.
 */
#ifndef GV_VQ_SPLIT_H
#define GV_VQ_SPLIT_H

#include "gv_vq_priv.h"

static inline uint16_t *split_used_event(struct gv_vq *vq)
{
	return &vq->s.avail->ring[vq->num];
}

static inline uint16_t *split_avail_event(struct gv_vq *vq)
{
	return (uint16_t *)&vq->s.used->ring[vq->num];
}

static inline size_t split_ring_size(uint32_t num, uint32_t align)
{
	size_t used_off = gv_align_up(gv_split_desc_bytes(num) + gv_split_avail_bytes(num), align);

	return used_off + gv_split_used_bytes(num);
}

static inline void split_init(struct gv_vq *vq)
{
	uint8_t *base = vq->ring;
	size_t avail_off = gv_split_desc_bytes(vq->num);
	size_t used_off = gv_align_up(avail_off + gv_split_avail_bytes(vq->num), vq->align);

	memset(base, 0, split_ring_size(vq->num, vq->align));
	vq->s.desc = (struct gv_split_desc *)base;
	vq->s.avail = (struct gv_split_avail *)(base + avail_off);
	vq->s.used = (struct gv_split_used *)(base + used_off);
	vq->s.avail_idx = vq->s.pub_idx = vq->s.kick_idx = vq->s.last_used = 0;
	vq->s.free_head = 0;
	vq->s.free_tail = (uint16_t)(vq->num - 1);
	vq->s.fixed = 0;
	vq->s.fixed_old = vq->s.fixed_holes = 0;
	/* A circle in ring order: IN_ORDER chains link x to x + 1, 0 after the last. */
	for (uint32_t i = 0; i < vq->num; i++)
		vq->next[i] = (uint16_t)((i + 1) & vq->mask);
}

static inline void split_addrs(const struct gv_vq *vq, struct gv_ring_addrs *a)
{
	a->desc = vq->ring_iova;
	a->driver = vq->ring_iova + (uint64_t)((uint8_t *)vq->s.avail - (uint8_t *)vq->ring);
	a->device = vq->ring_iova + (uint64_t)((uint8_t *)vq->s.used - (uint8_t *)vq->ring);
}

/*
 * The last descriptor of the chain at `head` holding `ndesc` descriptors:
 * its links are the private next[] (never written while the chain is in
 * flight), so no per-chain record of it is needed; a one-descriptor chain
 * (what the burst verbs post) ends at its head without a load.
 */
GV_INLINE uint32_t split_chain_last(const uint16_t *next, uint32_t head, uint32_t ndesc)
{
	while (ndesc-- > 1)
		head = next[head];
	return head;
}

/*
 * Link the chain at `id` (its slot `s`) to the free list's tail, the one
 * place every split get and reclaim loop frees through. *linkp points at
 * where the tail's link goes (next[] of the tail's last descriptor, or
 * free_head while the list is empty) and moves on to the chain's last
 * descriptor; the caller stores the tail once, as (*linkp - next), and
 * adds one per chain plus *extrap (descriptors beyond the first) to
 * num_free. A one-descriptor chain, what the burst verbs post, takes one
 * 32-bit compare (ndesc 1 and split's unused `last` 0) and no load of
 * next[]. Returns false, freeing nothing, when the slot is not in flight.
 */
GV_INLINE bool split_free_tail(struct gv_slot *s, uint16_t *next, uintptr_t id, uint16_t **linkp,
			       uint32_t *extrap)
{
	uintptr_t last = id;

	if (GV_UNLIKELY(gvb_get16_16(&s->ndesc) != GVB_16_16(1, 0))) {
		const uint32_t nd = s->ndesc;

		if (nd == 0)
			return false;
		last = split_chain_last(next, (uint32_t)id, nd);
		*extrap += nd - 1;
	}
	gvb_put16_16(&s->ndesc, 0, 0);
	**linkp = (uint16_t)id;
	*linkp = &next[last];
	return true;
}

/* Where split_free_tail's first link goes: next[] of the free list's tail, or free_head. */
GV_INLINE uint16_t *split_free_link(struct gv_vq *vq)
{
	return vq->num_free ? &vq->next[vq->s.free_tail] : &vq->s.free_head;
}

/*
 * Close k chains freed through split_free_tail: the tail is where the link
 * points (next[] of the last chain's last descriptor), stored only when
 * something was freed.
 */
GV_INLINE void split_free_done(struct gv_vq *vq, const uint16_t *link, uint32_t k, uint32_t extra)
{
	if (k)
		vq->s.free_tail = (uint16_t)(link - vq->next);
	vq->num_free += k + extra;
	vq->inflight -= k;
}

/*
 * Give a returned chain's descriptors back to the private free list, at
 * its tail. With IN_ORDER descriptors so keep being used in ring order, as
 * the spec asks of an IN_ORDER driver (virtio 1.2, 2.7.9). Without it a
 * device that returns buffers in order gets the same ids back at each
 * avail entry lap after lap, so posting finds the entry holding its id
 * already and leaves the line alone (split_add_run); at the head (most
 * recently used first) each lap would reverse the order of a batch and
 * rewrite every entry.
 */
GV_INLINE void split_free_chain(struct gv_vq *vq, uint16_t head)
{
	uint16_t *link = split_free_link(vq);
	uint32_t extra = 0;

	if (split_free_tail(&vq->slot[head], vq->next, head, &link, &extra))
		split_free_done(vq, link, 1, extra);
}

/* Record the chain at the next avail entry (published by flush). */
GV_INLINE void split_post_head(struct gv_vq *vq, uint16_t head, uint16_t at)
{
	vq->s.avail->ring[at & vq->mask] = head;
	vq->order[at & vq->mask] = head;
}

GV_INLINE int split_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out,
			uint16_t n_in, void *cookie, bool indirect, const enum gv_barrier B)
{
	uint32_t total = (uint32_t)n_out + n_in;
	uint32_t need = indirect ? 1 : total;
	struct gv_split_desc *desc = vq->s.desc;
	uint16_t head = vq->s.free_head, last = head;
	uint32_t in_len = 0;

	(void)B;
	if (vq->num_free < need)
		return -ENOSPC;
	if (indirect) {
		struct gv_split_desc *tbl =
			(struct gv_split_desc *)vq->indirect + (size_t)head * vq->max_indirect;

		for (uint32_t k = 0; k < total; k++) {
			tbl[k].addr = segs[k].addr;
			tbl[k].len = segs[k].len;
			tbl[k].flags = (uint16_t)((k >= n_out ? GV_DESC_F_WRITE : 0) |
						  (k + 1 < total ? GV_DESC_F_NEXT : 0));
			tbl[k].next = (uint16_t)(k + 1);
			if (k >= n_out)
				in_len += segs[k].len;
		}
		desc[head].addr = vq->indirect_iova + (uint64_t)head * vq->max_indirect * 16u;
		desc[head].len = total * 16u;
		desc[head].flags = GV_DESC_F_INDIRECT;
	} else {
		uint16_t i = head;

		for (uint32_t k = 0; k < total; k++) {
			desc[i].addr = segs[k].addr;
			desc[i].len = segs[k].len;
			desc[i].flags = (uint16_t)((k >= n_out ? GV_DESC_F_WRITE : 0) |
						   (k + 1 < total ? GV_DESC_F_NEXT : 0));
			desc[i].next = vq->next[i];
			if (k >= n_out)
				in_len += segs[k].len;
			last = i;
			i = vq->next[i];
		}
	}
	vq->s.free_head = vq->next[last];
	vq->slot[head] = (struct gv_slot){ cookie, in_len, (uint16_t)need, 0 };
	vq->num_free -= need;
	vq->inflight++;
	split_post_head(vq, head, vq->s.avail_idx++);
	return 0;
}

GV_INLINE uint32_t split_add_burst(struct gv_vq *vq, const struct gv_seg *segs,
				   void *const *cookies, uint32_t n, bool writable,
				   const enum gv_barrier B)
{
	struct gv_split_desc *desc = vq->s.desc;
	uint16_t flags = writable ? GV_DESC_F_WRITE : 0;
	uint16_t at = vq->s.avail_idx;

	(void)B;
	if (n > vq->num_free)
		n = vq->num_free;
	for (uint32_t k = 0; k < n; k++) {
		uint16_t head = vq->s.free_head;

		vq->s.free_head = vq->next[head];
		desc[head].addr = segs[k].addr;
		desc[head].len = segs[k].len;
		desc[head].flags = flags;
		vq->slot[head] = (struct gv_slot){ cookies[k], writable ? segs[k].len : 0, 1, 0 };
		split_post_head(vq, head, (uint16_t)(at + k));
	}
	vq->s.avail_idx = (uint16_t)(at + n);
	vq->num_free -= n;
	vq->inflight += n;
	return n;
}

GV_INLINE void split_flush(struct gv_vq *vq, const enum gv_barrier B)
{
	if (vq->s.avail_idx == vq->s.pub_idx)
		return;
	/* Descriptors and avail entries before the index that exposes them. */
	gv_wmb(B);
	gv_store16(&vq->s.avail->idx, vq->s.avail_idx);
	vq->s.pub_idx = vq->s.avail_idx;
}

GV_INLINE bool split_kick_prepare(struct gv_vq *vq, const enum gv_barrier B)
{
	uint16_t old = vq->s.kick_idx, now = vq->s.avail_idx;

	split_flush(vq, B);
	if (old == now)
		return false;
	vq->s.kick_idx = now;
	/* Our avail idx store before the load of the device's wish. */
	gv_mb(B);
	if (vq->features & GV_VQ_F_EVENT_IDX)
		return gv_need_event(gv_load16(split_avail_event(vq)), now, old);
	return !(gv_load16(&vq->s.used->flags) & GV_USED_F_NO_NOTIFY);
}

/*
 * How many used entries the device published, checked against the chains
 * it was given and has not returned (in flight, once the held ones are
 * published): each avail entry is used once, so the used index runs at
 * most that far past last_used. Returns 0 and breaks the queue when it
 * ran ahead.
 *
 * Chains added since the last flush are published first, so that a used
 * entry is only ever taken for a chain the device was given, and a chain
 * returned is never published afterwards (a later flush would hand the
 * device an avail entry whose descriptors are free, perhaps reused). The
 * PMD's bursts publish what they add before they return: for them this
 * is one compare.
 */
static __attribute__((noinline, cold)) void split_publish_held(struct gv_vq *vq,
								 const enum gv_barrier B)
{
	if (B == GV_BARRIER_MANDATORY)
		split_flush(vq, GV_BARRIER_MANDATORY);
	else
		split_flush(vq, GV_BARRIER_SMP);
}

GV_INLINE uint16_t split_used_avail(struct gv_vq *vq, const enum gv_barrier B)
{
	uint16_t pending;

	if (GV_UNLIKELY(vq->s.avail_idx != vq->s.pub_idx))
		split_publish_held(vq, B); /* out of line: the bursts' copies stay lean */
	pending = (uint16_t)(gv_load16(&vq->s.used->idx) - vq->s.last_used);
	if (pending == 0)
		return 0;
	if (GV_UNLIKELY(pending > vq->inflight)) {
		GV_VQ_FAIL(vq, bad_used_idx);
		return 0;
	}
	/* The index load before the loads of the entries it covers. */
	gv_rmb(B);
	return pending;
}

/*
 * The loop works on local copies of the queue state and writes them back
 * once: its stores into cookies[], lens[] and the private arrays could
 * alias struct gv_vq as far as the compiler knows, which would otherwise
 * reload and store every field per entry.
 */
GV_INLINE uint32_t split_get_used_t(struct gv_vq *vq, void **cookies, uint32_t *lens,
				    uint32_t n, const bool in_order, const enum gv_barrier B)
{
	uint16_t pending = split_used_avail(vq, B);
	const struct gv_split_used_elem *ring = vq->s.used->ring;
	struct gv_slot *slot = vq->slot;
	uint16_t *next = vq->next;
	const uint16_t *order = vq->order;
	const uint32_t num = vq->num, mask = vq->mask;
	uint16_t last_used = vq->s.last_used;
	uint16_t *link = split_free_link(vq);
	uint32_t extra = 0, k;

	if (n > pending)
		n = pending;
	for (k = 0; k < n; k++) {
		const struct gv_split_used_elem *e = &ring[last_used & mask];
		uint32_t id = gv_load32(&e->id), len = gv_load32(&e->len);
		struct gv_slot *s;

		if (!gv_used_ok(vq, slot, num, id, &len, in_order, in_order ? order[last_used & mask] : 0))
			break;
		s = &slot[id];
		cookies[k] = s->cookie;
		if (lens)
			lens[k] = len;
		(void)split_free_tail(s, next, id, &link, &extra); /* in flight: checked above */
		last_used++;
	}
	vq->s.last_used = last_used;
	split_free_done(vq, link, k, extra);
	return k;
}

GV_INLINE uint32_t split_get_used(struct gv_vq *vq, void **cookies, uint32_t *lens, uint32_t n,
				  const enum gv_barrier B)
{
	if (vq->features & GV_VQ_F_IN_ORDER)
		return split_get_used_t(vq, cookies, lens, n, true, B);
	return split_get_used_t(vq, cookies, lens, n, false, B);
}

/* IN_ORDER: entries are implied by posting order; none is read. */
GV_INLINE uint32_t split_reclaim_in_order(struct gv_vq *vq, void **cookies, uint32_t n,
					  const enum gv_barrier B)
{
	uint16_t pending = split_used_avail(vq, B);

	if (n > pending)
		n = pending;
	for (uint32_t k = 0; k < n; k++) {
		uint16_t head = vq->order[(uint16_t)(vq->s.last_used + k) & vq->mask];

		cookies[k] = vq->slot[head].cookie;
		split_free_chain(vq, head);
	}
	vq->s.last_used = (uint16_t)(vq->s.last_used + n);
	return n;
}

GV_INLINE uint32_t split_used_pending(struct gv_vq *vq, const enum gv_barrier B)
{
	uint16_t pending = (uint16_t)(gv_load16(&vq->s.used->idx) - vq->s.last_used);

	(void)B;
	return pending > vq->inflight ? vq->inflight : pending;
}

/* The used index: it moves past last_used when the device returns a chain. */
GV_INLINE void split_watch(const struct gv_vq *vq, struct gv_vq_watch *w)
{
	*w = (struct gv_vq_watch){ (void *)&vq->s.used->idx, 0xffffu, vq->s.last_used, false };
}

GV_INLINE void split_disable_cb(struct gv_vq *vq, const enum gv_barrier B)
{
	(void)B;
	if (vq->features & GV_VQ_F_EVENT_IDX)
		/*
		 * An event half the index space away from where the device
		 * is: outside any window of entries it can publish.
		 */
		gv_store16(split_used_event(vq), (uint16_t)(vq->s.last_used + 0x8000u));
	else
		gv_store16(&vq->s.avail->flags, GV_AVAIL_F_NO_INTERRUPT);
}

GV_INLINE bool split_enable_cb(struct gv_vq *vq, const enum gv_barrier B)
{
	if (vq->features & GV_VQ_F_EVENT_IDX)
		gv_store16(split_used_event(vq), vq->s.last_used);
	else
		gv_store16(&vq->s.avail->flags, 0);
	/* Our wish before the re-check of the used index: no lost wake-up. */
	gv_mb(B);
	return gv_load16(&vq->s.used->idx) == vq->s.last_used;
}

#endif /* GV_VQ_SPLIT_H */
