/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_packed.h - driver end, packed layout (virtio 1.2 section 2.8).
 * Twin of gv_vq_split.h: the same verbs, each a static inline function
 * taking the barrier policy as a literal, specialised by gv_vq.c.
 *
 * Ring slots are filled in order; buffer ids come from a private free
 * list (linked through vq->slot[id].last while an id is free, so taking
 * and freeing an id touch only its slot) and index vq->slot, which
 * remembers how many slots each chain holds, so the used position
 * advances by trusted counts only.
 * A batch is published by writing its first head's flags last.
 */
#ifndef GV_VQ_PACKED_H
#define GV_VQ_PACKED_H

#include "gv_vq_priv.h"

/* AVAIL/USED bits that mark a descriptor available in lap `wrap`. */
#define GV_PACKED_AVAIL_FLAGS(wrap) ((wrap) ? GV_DESC_F_AVAIL : GV_DESC_F_USED)

static inline size_t packed_ring_size(uint32_t num)
{
	return 16u * (size_t)num + 2 * sizeof(struct gv_packed_event);
}

static inline void packed_init(struct gv_vq *vq)
{
	uint8_t *base = vq->ring;

	memset(base, 0, packed_ring_size(vq->num));
	vq->p.desc = (struct gv_packed_desc *)base;
	vq->p.drv = (struct gv_packed_event *)(base + 16u * (size_t)vq->num);
	vq->p.dev = vq->p.drv + 1;
	vq->p.avail_idx = vq->p.used_idx = 0;
	vq->p.avail_wrap = vq->p.used_wrap = 1;
	vq->p.free_id = 0;
	vq->p.have_staged = 0;
	vq->p.added = 0;
	vq->p.batch_open = 0;
	vq->p.fixed = 0;
	vq->p.fixed_old = vq->p.fixed_holes = vq->p.fixed_batch = 0;
	/* The free buffer ids: a list linked through slot[id].last. */
	for (uint32_t i = 0; i < vq->num; i++)
		vq->slot[i].last = (uint16_t)(i + 1);
}

static inline void packed_addrs(const struct gv_vq *vq, struct gv_ring_addrs *a)
{
	a->desc = vq->ring_iova;
	a->driver = vq->ring_iova + 16u * (uint64_t)vq->num;
	a->device = a->driver + sizeof(struct gv_packed_event);
}

GV_INLINE void packed_order_push(struct gv_vq *vq, uint16_t id)
{
	vq->order[vq->order_put] = id;
	if (++vq->order_put == vq->num)
		vq->order_put = 0;
}

GV_INLINE void packed_order_pop(struct gv_vq *vq)
{
	if (++vq->order_get == vq->num)
		vq->order_get = 0;
}

/* The chain `id` came back: its slots and its id are free again. */
GV_INLINE void packed_free_id(struct gv_vq *vq, uint16_t id)
{
	struct gv_slot *s = &vq->slot[id];

	vq->p.used_idx = (uint16_t)(vq->p.used_idx + s->ndesc);
	if (vq->p.used_idx >= vq->num) {
		vq->p.used_idx = (uint16_t)(vq->p.used_idx - vq->num);
		vq->p.used_wrap ^= 1;
	}
	s->last = vq->p.free_id;
	vq->p.free_id = id;
	vq->num_free += s->ndesc;
	s->ndesc = 0;
	vq->inflight--;
}

/*
 * A head is ready at `pos`. The first one of a batch is held back and
 * written by flush, after a barrier; later ones can be written now since
 * the device reads the ring in order and cannot pass the first.
 */
GV_INLINE void packed_stage_head(struct gv_vq *vq, uint16_t pos, uint16_t flags)
{
	if (!vq->p.have_staged) {
		vq->p.staged_pos = pos;
		vq->p.staged_flags = flags;
		vq->p.have_staged = 1;
	} else {
		gv_store16(&vq->p.desc[pos].flags, flags);
	}
}

/*
 * After posting `chains` chains of `ndesc` descriptors in all: the next
 * free ring position and its wrap counter, and the counters.
 */
GV_INLINE void packed_posted(struct gv_vq *vq, uint16_t pos, uint8_t wrap, uint32_t ndesc,
			     uint32_t chains)
{
	vq->p.avail_idx = pos;
	vq->p.avail_wrap = wrap;
	vq->num_free -= ndesc;
	vq->p.added += ndesc;
	vq->inflight += chains;
}

GV_INLINE int packed_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out,
			 uint16_t n_in, void *cookie, bool indirect, const enum gv_barrier B)
{
	uint32_t total = (uint32_t)n_out + n_in;
	uint32_t need = indirect ? 1 : total;
	struct gv_packed_desc *desc = vq->p.desc;
	uint16_t id = vq->p.free_id, pos = vq->p.avail_idx, head = pos;
	uint8_t wrap = vq->p.avail_wrap;
	uint16_t head_flags = 0;
	uint32_t in_len = 0;

	(void)B;
	if (vq->num_free < need)
		return -ENOSPC;
	vq->p.free_id = vq->slot[id].last;
	if (indirect) {
		struct gv_packed_desc *tbl =
			(struct gv_packed_desc *)vq->indirect + (size_t)id * vq->max_indirect;

		for (uint32_t k = 0; k < total; k++) {
			tbl[k].addr = segs[k].addr;
			tbl[k].len = segs[k].len;
			tbl[k].id = 0;
			tbl[k].flags = k >= n_out ? GV_DESC_F_WRITE : 0;
			if (k >= n_out)
				in_len += segs[k].len;
		}
		desc[pos].addr = vq->indirect_iova + (uint64_t)id * vq->max_indirect * 16u;
		desc[pos].len = total * 16u;
		desc[pos].id = id;
		head_flags = (uint16_t)(GV_DESC_F_INDIRECT | GV_PACKED_AVAIL_FLAGS(wrap));
		if (++pos == vq->num) {
			pos = 0;
			wrap ^= 1;
		}
	} else {
		for (uint32_t k = 0; k < total; k++) {
			uint16_t f = (uint16_t)((k >= n_out ? GV_DESC_F_WRITE : 0) |
						(k + 1 < total ? GV_DESC_F_NEXT : 0) |
						GV_PACKED_AVAIL_FLAGS(wrap));

			desc[pos].addr = segs[k].addr;
			desc[pos].len = segs[k].len;
			desc[pos].id = id;
			if (k == 0)
				head_flags = f;
			else
				gv_store16(&desc[pos].flags, f);
			if (k >= n_out)
				in_len += segs[k].len;
			if (++pos == vq->num) {
				pos = 0;
				wrap ^= 1;
			}
		}
	}
	vq->slot[id] = (struct gv_slot){ cookie, in_len, (uint16_t)need, 0 };
	packed_order_push(vq, id);
	packed_stage_head(vq, head, head_flags);
	packed_posted(vq, pos, wrap, need, 1);
	return 0;
}

GV_INLINE uint32_t packed_add_burst(struct gv_vq *vq, const struct gv_seg *segs,
				    void *const *cookies, uint32_t n, bool writable,
				    const enum gv_barrier B)
{
	struct gv_packed_desc *desc = vq->p.desc;
	uint16_t pos = vq->p.avail_idx;
	uint8_t wrap = vq->p.avail_wrap;
	uint16_t wflag = writable ? GV_DESC_F_WRITE : 0;

	(void)B;
	if (n > vq->num_free)
		n = vq->num_free;
	for (uint32_t k = 0; k < n; k++) {
		uint16_t id = vq->p.free_id;

		vq->p.free_id = vq->slot[id].last;
		desc[pos].addr = segs[k].addr;
		desc[pos].len = segs[k].len;
		desc[pos].id = id;
		vq->slot[id] = (struct gv_slot){ cookies[k], writable ? segs[k].len : 0, 1, 0 };
		packed_order_push(vq, id);
		packed_stage_head(vq, pos, (uint16_t)(wflag | GV_PACKED_AVAIL_FLAGS(wrap)));
		if (++pos == vq->num) {
			pos = 0;
			wrap ^= 1;
		}
	}
	packed_posted(vq, pos, wrap, n, n);
	return n;
}

GV_INLINE void packed_flush(struct gv_vq *vq, const enum gv_barrier B)
{
	if (!vq->p.have_staged)
		return;
	/* Every staged descriptor before the first head's flags expose them. */
	gv_wmb(B);
	gv_store16(&vq->p.desc[vq->p.staged_pos].flags, vq->p.staged_flags);
	vq->p.have_staged = 0;
}

GV_INLINE bool packed_kick_prepare(struct gv_vq *vq, const enum gv_barrier B)
{
	uint32_t added = vq->p.added;
	uint16_t flags, off_wrap, event, now, old;

	packed_flush(vq, B);
	if (added == 0)
		return false;
	vq->p.added = 0;
	/* Our flags store before the load of the device's wish. */
	gv_mb(B);
	flags = gv_load16(&vq->p.dev->flags);
	if (flags == GV_EVENT_F_DISABLE)
		return false;
	if (flags != GV_EVENT_F_DESC || !(vq->features & GV_VQ_F_EVENT_IDX) || added >= vq->num)
		return true;
	off_wrap = gv_load16(&vq->p.dev->off_wrap);
	event = off_wrap & 0x7fffu;
	now = vq->p.avail_idx;
	old = (uint16_t)(now - added);
	/* An offset in the previous lap lies num slots behind this lap's. */
	if ((off_wrap >> 15) != vq->p.avail_wrap)
		event = (uint16_t)(event - vq->num);
	return gv_need_event(event, now, old);
}

/*
 * Is the descriptor at the used position a used one? 1: yes, 0: not yet,
 * -1: its flags contradict our state (the queue is then broken). Only
 * called with chains in flight, so the slot was written by us this lap.
 */
GV_INLINE int packed_used_here(struct gv_vq *vq)
{
	uint16_t pos = vq->p.used_idx;
	uint16_t f = gv_load16(&vq->p.desc[pos].flags);
	uint8_t a = !!(f & GV_DESC_F_AVAIL), u = !!(f & GV_DESC_F_USED), w = vq->p.used_wrap;

	if (GV_LIKELY(a == w && u == w))
		return 1;
	if (a == w)
		return 0; /* still available */
	if (vq->p.have_staged && vq->p.staged_pos == pos)
		return 0; /* our own head, not yet published */
	GV_VQ_FAIL(vq, bad_flags);
	return -1;
}

/*
 * The used descriptor at the used position, checked (gv_used_ok; with
 * in_order against the posting order's next chain): its id, or -1.
 */
GV_INLINE int packed_used_id(struct gv_vq *vq, uint32_t *len_out, const bool in_order)
{
	struct gv_packed_desc *d = &vq->p.desc[vq->p.used_idx];
	uint16_t id = gv_load16(&d->id);
	uint32_t len = gv_load32(&d->len);
	const uint32_t expect = in_order ? vq->order[vq->order_get] : 0;

	if (!gv_used_ok(vq, vq->slot, vq->num, id, &len, in_order, expect))
		return -1;
	*len_out = len;
	return id;
}

GV_INLINE uint32_t packed_get_used_t(struct gv_vq *vq, void **cookies, uint32_t *lens,
				     uint32_t n, const bool in_order, const enum gv_barrier B)
{
	uint32_t k;

	for (k = 0; k < n && vq->inflight; k++) {
		uint32_t len;
		int id;

		if (packed_used_here(vq) <= 0)
			break;
		/* The flags load before the loads of id and length. */
		gv_rmb(B);
		id = packed_used_id(vq, &len, in_order);
		if (id < 0)
			break;
		if (in_order) {
			packed_order_pop(vq);
			/*
			 * A batch reclaim_in_order left open ends with its last
			 * chain, whichever verb takes it; left open, it would
			 * hand out chains posted later as done.
			 */
			if (GV_UNLIKELY(vq->p.batch_open) && id == vq->p.batch_last)
				vq->p.batch_open = 0;
		}
		cookies[k] = vq->slot[id].cookie;
		if (lens)
			lens[k] = len;
		packed_free_id(vq, (uint16_t)id);
	}
	return k;
}

GV_INLINE uint32_t packed_get_used(struct gv_vq *vq, void **cookies, uint32_t *lens,
				   uint32_t n, const enum gv_barrier B)
{
	if (vq->features & GV_VQ_F_IN_ORDER)
		return packed_get_used_t(vq, cookies, lens, n, true, B);
	return packed_get_used_t(vq, cookies, lens, n, false, B);
}

/*
 * IN_ORDER: open the batch the used descriptor at the used position
 * closes (every chain in posting order up to its id). False when that
 * descriptor is not used yet, or is bad (the queue is then broken).
 */
GV_INLINE bool packed_batch_open(struct gv_vq *vq, const enum gv_barrier B)
{
	uint32_t len;
	int last;

	if (packed_used_here(vq) <= 0)
		return false;
	/* The flags load before the loads of id and length. */
	gv_rmb(B);
	/* A batch's last id is any chain in flight: no order check. */
	last = packed_used_id(vq, &len, false);
	if (last < 0)
		return false;
	vq->p.batch_last = (uint16_t)last;
	vq->p.batch_open = 1;
	return true;
}

/*
 * IN_ORDER: one used descriptor may close a batch of chains; every chain
 * up to its id is done. A batch larger than `n` is finished on the next
 * call (batch_open).
 */
GV_INLINE uint32_t packed_reclaim_in_order(struct gv_vq *vq, void **cookies, uint32_t n,
					   const enum gv_barrier B)
{
	uint32_t k = 0;

	while (k < n && vq->inflight) {
		uint16_t id;

		if (!vq->p.batch_open && !packed_batch_open(vq, B))
			break;
		id = vq->order[vq->order_get];
		packed_order_pop(vq);
		cookies[k++] = vq->slot[id].cookie;
		packed_free_id(vq, id);
		if (id == vq->p.batch_last)
			vq->p.batch_open = 0;
	}
	return k;
}

GV_INLINE uint32_t packed_used_pending(struct gv_vq *vq, const enum gv_barrier B)
{
	uint16_t pos = vq->p.used_idx;
	uint8_t w = vq->p.used_wrap;
	uint32_t count = 0, slots = 0, busy = vq->num - vq->num_free;

	(void)B;
	/* An open batch has chains waiting, unless other verbs took them all. */
	if (vq->p.batch_open)
		return vq->inflight != 0;
	/*
	 * A hostile device can write one id at several positions; the walk
	 * trusts only our own slot sizes, so cap the count at what is in flight
	 * (as the split twin does); get_used finds the duplicate and breaks.
	 */
	while (slots < busy && count < vq->inflight) {
		uint16_t f = gv_load16(&vq->p.desc[pos].flags);
		uint16_t id;

		if (!!(f & GV_DESC_F_AVAIL) != w || !!(f & GV_DESC_F_USED) != w)
			break;
		id = gv_load16(&vq->p.desc[pos].id);
		if (id >= vq->num || vq->slot[id].ndesc == 0)
			break; /* get_used will count it */
		count++;
		slots += vq->slot[id].ndesc;
		pos = (uint16_t)(pos + vq->slot[id].ndesc);
		if (pos >= vq->num) {
			pos = (uint16_t)(pos - vq->num);
			w ^= 1;
		}
	}
	return count;
}

/*
 * The AVAIL and USED bits of the slot at used_idx while the device has
 * not returned it yet: available in the lap used_idx is in.
 */
GV_INLINE uint16_t packed_still_avail(const struct gv_vq *vq)
{
	return vq->p.used_wrap ? GV_DESC_F_AVAIL : GV_DESC_F_USED;
}

/*
 * The flags of the next descriptor to read: anything but "still
 * available" means the device wrote it (the poll's own quick test,
 * gvb_used_maybe; the get verbs classify what it wrote). Inside a batch
 * the device returned as one entry, buffers are waiting already.
 */
GV_INLINE void packed_watch(const struct gv_vq *vq, struct gv_vq_watch *w)
{
	void *flags = (void *)&vq->p.desc[vq->p.used_idx].flags;

	if (vq->p.batch_open)
		*w = (struct gv_vq_watch){ flags, 0, 0, true };
	else
		*w = (struct gv_vq_watch){ flags, GV_DESC_F_AVAIL | GV_DESC_F_USED,
					   packed_still_avail(vq), false };
}

GV_INLINE void packed_disable_cb(struct gv_vq *vq, const enum gv_barrier B)
{
	(void)B;
	gv_store16(&vq->p.drv->flags, GV_EVENT_F_DISABLE);
}

GV_INLINE bool packed_enable_cb(struct gv_vq *vq, const enum gv_barrier B)
{
	if (vq->features & GV_VQ_F_EVENT_IDX) {
		gv_store16(&vq->p.drv->off_wrap,
			   (uint16_t)(vq->p.used_idx | (vq->p.used_wrap << 15)));
		/* The offset before the flags that make the device read it. */
		gv_wmb(B);
		gv_store16(&vq->p.drv->flags, GV_EVENT_F_DESC);
	} else {
		gv_store16(&vq->p.drv->flags, GV_EVENT_F_ENABLE);
	}
	/* Our wish before the re-check of the used position. */
	gv_mb(B);
	if (!vq->inflight)
		return true;
	if (vq->p.batch_open)
		return false;
	{
		uint16_t f = gv_load16(&vq->p.desc[vq->p.used_idx].flags);
		uint8_t w = vq->p.used_wrap;

		return !(!!(f & GV_DESC_F_AVAIL) == w && !!(f & GV_DESC_F_USED) == w);
	}
}

#endif /* GV_VQ_PACKED_H */
