/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_burst.h - the driver end's datapath verbs as static inline
 * functions, for burst functions compiled once per (layout, barrier
 * policy): the caller passes both as literals (`L`, `B`) and the compiler
 * drops the other layout and policy, so a burst runs straight-line ring
 * code with no dispatch and no out-of-line call (VPP-style). The caller
 * picks its specialised burst once, at set-up, by the queue's layout and
 * policy (gv_vq_layout(), the barrier it configured).
 *
 * Same semantics as the gv_vq.h verbs of the same name (broken queues do
 * nothing; every value the device wrote is checked with the same
 * counters): the fast loops handle what the device normally writes, with
 * one combined unlikely branch per entry for the checks, and hand anything
 * else to the general code of gv_vq_split.h / gv_vq_packed.h, which
 * classifies it. Counters (free descriptors, chains in flight) are
 * updated once per call, not per entry. Plain C11, no DPDK.
 */
#ifndef GV_VQ_BURST_H
#define GV_VQ_BURST_H

#include "gv_vq_packed.h"
#include "gv_vq_priv.h"
#include "gv_vq_split.h"

GV_INLINE uint32_t gvb_num_free(const struct gv_vq *vq)
{
	return vq->num_free;
}

GV_INLINE bool gvb_broken(const struct gv_vq *vq)
{
	return vq->broken;
}

/*
 * False only when the device has certainly returned nothing since the
 * last get: split's used index unchanged, packed's next descriptor still
 * available to the device (and no in-order batch open). One load of
 * shared memory, nothing written: the test of a poll that finds nothing
 * (a busy-polling application spends most polls there). True sends the
 * caller to the get verbs, which read with barriers and classify
 * whatever the device wrote; no barrier is needed here.
 */
GV_INLINE bool gvb_used_maybe(const struct gv_vq *vq, const enum gv_layout L)
{
	if (L == GV_LAYOUT_SPLIT)
		return gv_load16(&vq->s.used->idx) != vq->s.last_used;
	{
		const uint16_t f = gv_load16(&vq->p.desc[vq->p.used_idx].flags);

		return vq->p.batch_open ||
		       (f & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) != packed_still_avail(vq);
	}
}

/*
 * Three adjacent fields (32, 16, 16 bits; 8-byte aligned) written with
 * one 64-bit store where the layout allows: a descriptor's len, flags,
 * next, a slot's in_len, ndesc, last. Only for stores nobody reads
 * concurrently (a descriptor the device cannot see yet, private state).
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
GV_INLINE void gvb_put32_16_16(void *p, uint32_t a, uint16_t b, uint16_t c)
{
	/* + rather than |: the same value, and `a` plus a constant is one lea. */
	const uint64_t v = (uint64_t)a + ((uint64_t)b << 32 | (uint64_t)c << 48);

	memcpy(p, &v, sizeof(v));
}
#else
GV_INLINE void gvb_put32_16_16(void *p, uint32_t a, uint16_t b, uint16_t c)
{
	memcpy(p, &a, 4);
	memcpy((char *)p + 4, &b, 2);
	memcpy((char *)p + 6, &c, 2);
}
#endif
_Static_assert(__builtin_offsetof(struct gv_split_desc, flags) == 12 &&
		       __builtin_offsetof(struct gv_split_desc, next) == 14 &&
		       __builtin_offsetof(struct gv_slot, in_len) == 8 &&
		       __builtin_offsetof(struct gv_slot, ndesc) == 12 &&
		       __builtin_offsetof(struct gv_slot, last) == 14,
	       "layouts gvb_put32_16_16 writes");

/* ------------------------------------------------------------- split -- */

/* The free-list state a get loop carries across its (at most two) runs. */
struct split_free_acc {
	uint16_t *link; /* where the next freed chain is linked: the list's tail */
	uint32_t extra; /* descriptors freed beyond one per chain */
};

/*
 * One run of used entries that does not reach the end of the used ring
 * (no wrap test per entry), as the device normally writes them: the id in
 * range (in posting order with IN_ORDER), in flight, the length within
 * what was posted. Returns how many it took; it stops at the first entry
 * that is anything else and leaves it to split_get_used_t. A chain of
 * more than one descriptor (gvb_add) takes an unlikely branch to find its
 * last descriptor; a one-descriptor chain's last is its head. Every array
 * is addressed from the run's end with one index counting up from -run
 * to 0: one increment and no compare per entry, few live values.
 */
GV_INLINE uint32_t split_used_run(const struct gv_split_used_elem *ring, const uint16_t *order,
				  void **cookies, uint32_t *lens, uint32_t run,
				  struct gv_slot *const slot, uint16_t *const next, const uint32_t num,
				  struct split_free_acc *acc, const bool in_order)
{
	const struct gv_split_used_elem *const u = ring + run;
	const uint16_t *const od = order + run;
	void **const ck = cookies + run;
	uint32_t *const ln = lens + run;
	uint16_t *link = acc->link;
	uint32_t extra = acc->extra;
	intptr_t j;

	for (j = -(intptr_t)run; j != 0; j++) {
		/* Index-wide: no extension before the array indexing. */
		const uintptr_t id = gv_load32(&u[j].id);
		uint32_t len = gv_load32(&u[j].len);
		struct gv_slot *s;

		if (in_order) {
			/* Every id in the posting order is in range and in flight. */
			if (GV_UNLIKELY(id != od[j]))
				break;
		} else if (GV_UNLIKELY(id >= num)) {
			break;
		}
		s = &slot[id];
		if (GV_UNLIKELY(len > s->in_len)) {
			/* Read again here: the compare above can take it from memory. */
			if (gv_load32(&s->in_len))
				break;
			len = 0; /* nothing was writable (TX): the length means nothing */
		}
		if (GV_UNLIKELY(!split_free_tail(s, next, id, &link, &extra)))
			break; /* not in flight */
		ck[j] = s->cookie;
		ln[j] = len;
	}
	acc->link = link;
	acc->extra = extra;
	return run + (uint32_t)j;
}

/* Used entries: the runs of split_used_run, then the general code. */
GV_INLINE uint32_t split_get_used_fast(struct gv_vq *vq, void **cookies, uint32_t *lens,
				       uint32_t n, const bool in_order, const enum gv_barrier B)
{
	const uint16_t lu = vq->s.last_used;
	const struct gv_split_used_elem *const ring = vq->s.used->ring;
	struct gv_slot *const slot = vq->slot;
	uint16_t *const next = vq->next;
	const uint16_t *const order = vq->order;
	const uint32_t num = vq->num;
	struct split_free_acc acc = {
		.link = split_free_link(vq),
		.extra = 0,
	};
	const uint32_t pos = lu & vq->mask;
	uint32_t k, run;
	/* Last: the queue's fields above are loaded before its read barrier. */
	const uint16_t pending = split_used_avail(vq, B);

	if (pending == 0)
		return 0;
	if (n > pending)
		n = pending;
	run = num - pos < n ? num - pos : n;
	k = split_used_run(ring + pos, order + pos, cookies, lens, run, slot, next, num, &acc,
			   in_order);
	/* The rest from the ring's start. */
	if (GV_UNLIKELY(k == run && k < n))
		k += split_used_run(ring, order, cookies + k, lens + k, n - k, slot, next, num, &acc,
				    in_order);
	vq->s.last_used = (uint16_t)(lu + k);
	split_free_done(vq, acc.link, k, acc.extra);
	if (GV_UNLIKELY(k < n))
		k += split_get_used_t(vq, cookies + k, lens + k, n - k, in_order, B);
	return k;
}

/*
 * IN_ORDER reclaim, one run of the order ring that does not reach its
 * end, indexed as split_used_run; the free list's tail in and out through
 * *linkp (the tail is where it points).
 */
GV_INLINE void split_reclaim_run(const uint16_t *order, void **cookies, uint32_t run,
				 struct gv_slot *const slot, uint16_t *const next, uint16_t **linkp,
				 uint32_t *extrap)
{
	const uint16_t *const od = order + run;
	void **const ck = cookies + run;
	uint16_t *link = *linkp;
	uint32_t extra = *extrap;

	for (intptr_t j = -(intptr_t)run; j != 0; j++) {
		const uintptr_t head = od[j];
		struct gv_slot *const s = &slot[head];

		ck[j] = s->cookie;
		/* Every chain in the order ring is in flight. */
		(void)split_free_tail(s, next, head, &link, &extra);
	}
	*linkp = link;
	*extrap = extra;
}

/* IN_ORDER: chains in posting order, no entry read but the index. */
GV_INLINE uint32_t split_reclaim_fast(struct gv_vq *vq, void **cookies, uint32_t n,
				      const enum gv_barrier B)
{
	const uint16_t lu = vq->s.last_used;
	struct gv_slot *const slot = vq->slot;
	uint16_t *const next = vq->next;
	const uint16_t *const order = vq->order;
	const uint32_t num = vq->num, pos = lu & vq->mask;
	uint16_t *link = split_free_link(vq);
	uint32_t extra = 0, run;
	const uint16_t pending = split_used_avail(vq, B); /* last, as above */

	if (pending == 0)
		return 0;
	if (n > pending)
		n = pending;
	run = num - pos < n ? num - pos : n;
	split_reclaim_run(order + pos, cookies, run, slot, next, &link, &extra);
	if (GV_UNLIKELY(run < n))
		split_reclaim_run(order, cookies + run, n - run, slot, next, &link, &extra);
	vq->s.last_used = (uint16_t)(lu + n);
	split_free_done(vq, link, n, extra);
	return n;
}

/*
 * One run of one-descriptor chains that does not reach the end of the
 * avail ring (no wrap test per chain), the free list's head in and out
 * through *headp; indexed as split_used_run.
 */
GV_INLINE void split_add_run(uint16_t *avail, uint16_t *order, const struct gv_seg *segs,
			     void *const *cookies, uint32_t run, uintptr_t *headp,
			     struct gv_split_desc *const desc, struct gv_slot *const slot,
			     const uint16_t *const next, const bool writable, const bool obj,
			     uint32_t addr_off, uint64_t addr_add, uint32_t olen, const bool in_order)
{
	uint16_t *const av = avail + run, *const od = order + run;
	void *const *const ck = cookies + run;
	const struct gv_seg *const sg = obj ? NULL : segs + run;
	const uint16_t flags = writable ? GV_DESC_F_WRITE : 0;
	uintptr_t head = *headp; /* index-wide: no extension per entry */

	for (intptr_t j = -(intptr_t)run; j != 0; j++) {
		const uintptr_t h = head;
		const uint64_t addr = obj ? *(const uint64_t *)((const char *)ck[j] + addr_off) +
						    addr_add
					  : sg[j].addr;
		const uint32_t len = obj ? olen : sg[j].len;
		struct gv_split_desc *const d = desc + h;
		struct gv_slot *const sl = slot + h;

		/*
		 * From the second lap on the entry mostly holds this id
		 * already (always with IN_ORDER; without it whenever the
		 * device returned buffers in order, so the free list gave
		 * them back in the same order): leaving it unwritten keeps
		 * its line valid in the device's cache, one miss fewer there
		 * per line of entries.
		 */
		if (av[j] != (uint16_t)h)
			av[j] = (uint16_t)h;
		if (in_order) /* the posting order: read by IN_ORDER gets only */
			od[j] = (uint16_t)h;
		head = next[h];
		d->addr = addr;
		gvb_put32_16_16(&d->len, len, flags, 0);
		sl->cookie = ck[j];
		sl->in_len = writable ? len : 0;
		/* One descriptor (its last is the head); split's `last` unused. */
		gvb_put16_16(&sl->ndesc, 1, 0);
	}
	*headp = head;
}

/*
 * One-descriptor chains: from `segs`, or (obj) each at the address held
 * in its cookie's object at byte offset addr_off, plus addr_add, all of
 * length olen. At most two runs: to the end of the ring, then from its
 * start.
 */
GV_INLINE uint32_t split_add_fast(struct gv_vq *vq, const struct gv_seg *segs,
				  void *const *cookies, uint32_t n, const bool writable,
				  const bool obj, uint32_t addr_off, uint64_t addr_add, uint32_t olen,
				  const bool in_order)
{
	struct gv_split_desc *const desc = vq->s.desc;
	uint16_t *const avail = vq->s.avail->ring;
	uint16_t *const order = vq->order;
	const uint16_t *const next = vq->next;
	struct gv_slot *const slot = vq->slot;
	const uint32_t num = vq->num;
	const uint16_t at = vq->s.avail_idx;
	const uint32_t pos = at & vq->mask;
	uintptr_t head = vq->s.free_head;
	uint32_t run;

	if (n > vq->num_free)
		n = vq->num_free;
	run = num - pos < n ? num - pos : n;
	split_add_run(avail + pos, order + pos, segs, cookies, run, &head, desc, slot, next,
		      writable, obj, addr_off, addr_add, olen, in_order);
	if (GV_UNLIKELY(run < n))
		split_add_run(avail, order, obj ? NULL : segs + run, cookies + run, n - run, &head,
			      desc, slot, next, writable, obj, addr_off, addr_add, olen, in_order);
	vq->s.free_head = (uint16_t)head;
	vq->s.avail_idx = (uint16_t)(at + n);
	vq->num_free -= n;
	vq->inflight += n;
	return n;
}

/* ------------------------------------------------------------ packed -- */

/*
 * Used descriptors as the device normally writes them, in runs that
 * reach neither the end of the ring nor (IN_ORDER) the end of the order
 * ring: a one-descriptor chain advances the used position by one, so the
 * inner loop tests no wrap. Anything else (not used yet, a chain of more
 * descriptors, a value to classify) ends the run: the general code of
 * gv_vq_packed.h takes that one entry, or says why not, and the runs go on
 * after it.
 */
GV_INLINE uint32_t packed_get_used_fast(struct gv_vq *vq, void **cookies, uint32_t *lens,
					uint32_t n, const bool in_order, const enum gv_barrier B)
{
	struct gv_packed_desc *const desc = vq->p.desc;
	struct gv_slot *const slot = vq->slot;
	const uint16_t *const order = vq->order;
	const uint32_t num = vq->num;
	const uint16_t both = GV_DESC_F_AVAIL | GV_DESC_F_USED;
	uint32_t k = 0;

	/* Inside a batch reclaim left open: the general code closes it. */
	if (in_order && GV_UNLIKELY(vq->p.batch_open))
		return packed_get_used_t(vq, cookies, lens, n, true, B);
	if (n > vq->inflight)
		n = vq->inflight;
	while (k < n) {
		const uint16_t pos = vq->p.used_idx;
		const uint32_t og = vq->order_get;
		const uint16_t used_bits = vq->p.used_wrap ? both : 0; /* AVAIL, USED when used */
		const struct gv_packed_desc *const d = &desc[pos], *dp = d, *dend;
		const uint16_t *o = &order[og];
		void **ck = cookies + k;
		uint32_t *ln = lens + k;
		uint16_t free_id = vq->p.free_id;
		uint32_t run = n - k, j;

		if (run > num - pos)
			run = num - pos;
		if (in_order && run > num - og)
			run = num - og;
		/* Walked by pointer to the run's end: few live values, no spills. */
		for (dend = d + run; dp != dend; dp++, ck++, ln++) {
			const uint16_t f = gv_load16(&dp->flags);
			uint16_t id;
			uint32_t len;
			struct gv_slot *s;

			if (GV_UNLIKELY((f & both) != used_bits))
				break; /* not used yet (or odd flags: the general code says) */
			/* The flags load before the loads of id and length. */
			gv_rmb(B);
			id = gv_load16(&dp->id);
			len = gv_load32(&dp->len);
			if (in_order) {
				/* The posting order proves the id in range and in flight. */
				if (GV_UNLIKELY(id != *o))
					break;
				o++;
			} else if (GV_UNLIKELY(id >= num)) {
				break;
			}
			s = &slot[id];
			/* 0: not in flight; more: a longer chain. */
			if (GV_UNLIKELY(s->ndesc != 1))
				break;
			if (GV_UNLIKELY(len > s->in_len)) {
				/* Nothing writable (TX; DPDK's vhost writes a length anyway). */
				if (s->in_len)
					break;
				len = 0;
			}
			*ck = s->cookie;
			*ln = len;
			gvb_put16_16(&s->ndesc, 0, free_id); /* not in flight; free-id link */
			free_id = id;
		}
		j = (uint32_t)(dp - d);
		vq->p.free_id = free_id;
		vq->num_free += j;
		vq->inflight -= j;
		k += j;
		if (in_order)
			vq->order_get = og + j == num ? 0 : og + j;
		if (pos + j == num) {
			vq->p.used_idx = 0;
			vq->p.used_wrap ^= 1;
		} else {
			vq->p.used_idx = (uint16_t)(pos + j);
		}
		if (j < run) {
			/* Not used yet (the usual end of a burst): nothing to classify. */
			const uint16_t f = gv_load16(&dp->flags);

			if ((f & both) != used_bits && !!(f & GV_DESC_F_AVAIL) == !!used_bits)
				break;
			if (packed_get_used_t(vq, cookies + k, lens + k, 1, in_order, B) == 0)
				break;
			k++;
		}
	}
	return k;
}

/*
 * IN_ORDER: a used descriptor closes a batch of chains (every chain up to
 * its id); a batch longer than `n` stays open for the next call.
 */
GV_INLINE uint32_t packed_reclaim_fast(struct gv_vq *vq, void **cookies, uint32_t n,
				       const enum gv_barrier B)
{
	struct gv_slot *const slot = vq->slot;
	const uint32_t num = vq->num;
	uint16_t pos = vq->p.used_idx, free_id = vq->p.free_id;
	uint8_t wrap = vq->p.used_wrap;
	uint32_t og = vq->order_get, k = 0, freed = 0;

	if (n > vq->inflight)
		n = vq->inflight;
	while (k < n) {
		uint16_t id;

		if (!vq->p.batch_open) {
			vq->p.used_idx = pos;
			vq->p.used_wrap = wrap;
			if (!packed_batch_open(vq, B))
				break;
		}
		do {
			struct gv_slot *s;

			id = vq->order[og];
			if (++og == num)
				og = 0;
			s = &slot[id];
			cookies[k++] = s->cookie;
			pos = (uint16_t)(pos + s->ndesc);
			if (pos >= num) {
				pos = (uint16_t)(pos - num);
				wrap ^= 1;
			}
			freed += s->ndesc;
			gvb_put16_16(&s->ndesc, 0, free_id); /* not in flight; free-id link */
			free_id = id;
		} while (id != vq->p.batch_last && k < n);
		if (id == vq->p.batch_last)
			vq->p.batch_open = 0;
	}
	vq->p.used_idx = pos;
	vq->p.used_wrap = wrap;
	vq->p.free_id = free_id;
	vq->order_get = og;
	vq->num_free += freed;
	vq->inflight -= k;
	return k;
}

/*
 * The second half of a packed descriptor (len, id, flags) as one 64-bit
 * value, for a single store where the device cannot be reading the slot
 * yet (see packed_add_fast). Little-endian rings only.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GV_PACKED_TAIL64 1
_Static_assert(__builtin_offsetof(struct gv_packed_desc, len) == 8, "packed desc layout");
_Static_assert(__builtin_offsetof(struct gv_packed_desc, id) == 12, "packed desc layout");
_Static_assert(__builtin_offsetof(struct gv_packed_desc, flags) == 14, "packed desc layout");
#else
#define GV_PACKED_TAIL64 0
#endif

/* One one-descriptor chain at ring slot `d`, private record `s`. */
GV_INLINE void packed_fill1(struct gv_packed_desc *d, struct gv_slot *s, void *ck, uint64_t addr,
			    uint32_t in_len)
{
	d->addr = addr;
	s->cookie = ck;
	gvb_put32_16_16(&s->in_len, in_len, 1, 0);
}

/*
 * One-descriptor chains (see split_add_fast). The ring is filled in runs
 * that reach neither the end of the ring nor the end of the order ring,
 * so the inner loop tests no wrap. The batch's first head (when none is
 * staged yet) is peeled off: flush writes its flags after a barrier. The
 * other descriptors of the batch sit behind that head, which the device
 * reads first and sees as not available, so their len, id and flags are
 * written together (one 64-bit store where the ring is little-endian).
 */
GV_INLINE uint32_t packed_add_fast(struct gv_vq *vq, const struct gv_seg *segs,
				   void *const *cookies, uint32_t n, const bool writable,
				   const bool obj, uint32_t addr_off, uint64_t addr_add, uint32_t olen,
				   const bool in_order)
{
	struct gv_packed_desc *const desc = vq->p.desc;
	struct gv_slot *const slot = vq->slot;
	uint16_t *const order = vq->order;
	const uint32_t num = vq->num;
	const uint16_t wflag = writable ? GV_DESC_F_WRITE : 0;
	uint16_t pos = vq->p.avail_idx, id = vq->p.free_id;
	uint8_t wrap = vq->p.avail_wrap;
	uint16_t flags = (uint16_t)(wflag | GV_PACKED_AVAIL_FLAGS(wrap));
	uint32_t op = vq->order_put, k = 0;

	if (n > vq->num_free)
		n = vq->num_free;
	if (n == 0)
		return 0;
	if (!vq->p.have_staged) {
		void *const ck = cookies[0];
		const uint64_t addr = obj ? *(const uint64_t *)((const char *)ck + addr_off) + addr_add
					  : segs[0].addr;
		const uint32_t len = obj ? olen : segs[0].len;
		const uint16_t next_id = slot[id].last; /* before fill1 writes it */

		packed_fill1(&desc[pos], &slot[id], ck, addr, writable ? len : 0);
		if (in_order) {
			order[op] = id;
			if (++op == num)
				op = 0;
		}
		desc[pos].len = len;
		desc[pos].id = id;
		vq->p.staged_pos = pos;
		vq->p.staged_flags = flags;
		vq->p.have_staged = 1;
		id = next_id;
		if (GV_UNLIKELY(++pos == num)) {
			pos = 0;
			wrap ^= 1;
			flags ^= GV_DESC_F_AVAIL | GV_DESC_F_USED;
		}
		k = 1;
	}
	while (k < n) {
		uint32_t run = n - k;
		struct gv_packed_desc *const d = &desc[pos];
		uint16_t *const o = &order[op];
		void *const *const cks = cookies + k;
		const struct gv_seg *const sg = obj ? NULL : segs + k;
		const uint64_t tail_flags = (uint64_t)flags << 48;

		if (run > num - pos)
			run = num - pos;
		if (in_order && run > num - op)
			run = num - op;
		for (uint32_t j = 0; j < run; j++) {
			void *const ck = cks[j];
			const uint64_t addr = obj ? *(const uint64_t *)((const char *)ck + addr_off) +
							    addr_add
						  : sg[j].addr;
			const uint32_t len = obj ? olen : sg[j].len;
			const uint16_t next_id = slot[id].last; /* before fill1 writes it */

			packed_fill1(&d[j], &slot[id], ck, addr, writable ? len : 0);
			if (in_order) /* the posting order: read by IN_ORDER gets only */
				o[j] = id;
			if (GV_PACKED_TAIL64) {
				gv_store64(&d[j].len, tail_flags | (uint64_t)id << 32 | len);
			} else {
				d[j].len = len;
				d[j].id = id;
				gv_store16(&d[j].flags, flags);
			}
			id = next_id;
		}
		k += run;
		pos = (uint16_t)(pos + run);
		if (in_order) {
			op += run;
			if (op == num)
				op = 0;
		}
		if (pos == num) {
			pos = 0;
			wrap ^= 1;
			flags ^= GV_DESC_F_AVAIL | GV_DESC_F_USED;
		}
	}
	vq->p.free_id = id;
	vq->order_put = op;
	packed_posted(vq, pos, wrap, n, n);
	return n;
}

/* ---------------------------------------------- the verbs, by layout -- */

/*
 * gv_vq_get_used() for a queue of layout L, policy B; unlike it, `lens`
 * must not be NULL (the fast loops store every length).
 */
GV_INLINE uint32_t gvb_get_used(struct gv_vq *vq, void **cookies, uint32_t *lens, uint32_t n,
				const enum gv_layout L, const enum gv_barrier B)
{
	const bool in_order = (vq->features & GV_VQ_F_IN_ORDER) != 0;

	if (GV_UNLIKELY(vq->gate))
		return 0;
	if (L == GV_LAYOUT_SPLIT)
		return in_order ? split_get_used_fast(vq, cookies, lens, n, true, B)
				: split_get_used_fast(vq, cookies, lens, n, false, B);
	return in_order ? packed_get_used_fast(vq, cookies, lens, n, true, B)
			: packed_get_used_fast(vq, cookies, lens, n, false, B);
}

/* gv_vq_reclaim_in_order(). */
GV_INLINE uint32_t gvb_reclaim_in_order(struct gv_vq *vq, void **cookies, uint32_t n,
					const enum gv_layout L, const enum gv_barrier B)
{
	if (GV_UNLIKELY(vq->gate))
		return 0;
	if (GV_UNLIKELY(!(vq->features & GV_VQ_F_IN_ORDER)))
		return gv_vq_get_used(vq, cookies, NULL, n);
	if (L == GV_LAYOUT_SPLIT)
		return split_reclaim_fast(vq, cookies, n, B);
	return packed_reclaim_fast(vq, cookies, n, B);
}

/* gv_vq_add_burst(). */
GV_INLINE uint32_t gvb_add_burst(struct gv_vq *vq, const struct gv_seg *segs,
				 void *const *cookies, uint32_t n, const bool writable,
				 const enum gv_layout L)
{
	if (GV_UNLIKELY(vq->gate))
		return 0;
	if (vq->features & GV_VQ_F_IN_ORDER) {
		if (L == GV_LAYOUT_SPLIT)
			return split_add_fast(vq, segs, cookies, n, writable, false, 0, 0, 0, true);
		return packed_add_fast(vq, segs, cookies, n, writable, false, 0, 0, 0, true);
	}
	if (L == GV_LAYOUT_SPLIT)
		return split_add_fast(vq, segs, cookies, n, writable, false, 0, 0, 0, false);
	return packed_add_fast(vq, segs, cookies, n, writable, false, 0, 0, 0, false);
}

/*
 * gv_vq_add_burst() of device-writable buffers described by their
 * cookies: buffer k starts at the 64-bit address stored at byte offset
 * addr_off of the object cookies[k] points to, plus addr_add, and is len
 * bytes long (an RX refill: the cookie is the buffer's descriptor).
 */
GV_INLINE uint32_t gvb_add_rx_obj(struct gv_vq *vq, void *const *cookies, uint32_t n,
				  uint32_t addr_off, uint64_t addr_add, uint32_t len,
				  const enum gv_layout L)
{
	if (GV_UNLIKELY(vq->gate))
		return 0;
	if (vq->features & GV_VQ_F_IN_ORDER) {
		if (L == GV_LAYOUT_SPLIT)
			return split_add_fast(vq, NULL, cookies, n, true, true, addr_off, addr_add,
					      len, true);
		return packed_add_fast(vq, NULL, cookies, n, true, true, addr_off, addr_add, len,
				       true);
	}
	if (L == GV_LAYOUT_SPLIT)
		return split_add_fast(vq, NULL, cookies, n, true, true, addr_off, addr_add, len,
				      false);
	return packed_add_fast(vq, NULL, cookies, n, true, true, addr_off, addr_add, len, false);
}

/*
 * gv_vq_add() (which is this for the queue's layout and policy): the
 * caller's chain checked (the gate open, 1..num segments, 1..max_indirect
 * with an indirect table, which needs INDIRECT; none empty; the writable
 * bytes within 32 bits, the bound a used length is checked against),
 * then posted.
 */
GV_INLINE int gvb_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out,
		      uint16_t n_in, void *cookie, bool indirect, const enum gv_layout L,
		      const enum gv_barrier B)
{
	const uint32_t total = (uint32_t)n_out + n_in;
	uint64_t in_len = 0;
	uint32_t zero = 0;

	if (GV_UNLIKELY(vq->gate))
		return GV_GATE_ERR(vq);
	if (GV_UNLIKELY(total == 0 || (!indirect && total > vq->num)))
		return -EINVAL;
	if (indirect && GV_UNLIKELY(!(vq->features & GV_VQ_F_INDIRECT) || total > vq->max_indirect))
		return -EINVAL;
	for (uint32_t k = 0; k < total; k++) {
		zero |= segs[k].len == 0;
		if (k >= n_out)
			in_len += segs[k].len;
	}
	if (GV_UNLIKELY(zero || in_len > UINT32_MAX))
		return -EINVAL;
	if (L == GV_LAYOUT_SPLIT)
		return split_add(vq, segs, n_out, n_in, cookie, indirect, B);
	return packed_add(vq, segs, n_out, n_in, cookie, indirect, B);
}

/* gv_vq_kick_prepare(). */
GV_INLINE bool gvb_kick_prepare(struct gv_vq *vq, const enum gv_layout L, const enum gv_barrier B)
{
	if (GV_UNLIKELY(vq->broken))
		return false;
	if (L == GV_LAYOUT_SPLIT)
		return split_kick_prepare(vq, B);
	return packed_kick_prepare(vq, B);
}

#endif /* GV_VQ_BURST_H */
