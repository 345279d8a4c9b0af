/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_fixed_packed.h - the packed ring's fixed mode, private to
 * gv_vq_fixed.h (whose gvf_* verbs are the API): the packed twin of
 * gv_vq_fixed_split.h, for vectorized RX bursts of one-descriptor
 * device-writable buffers of one length and vectorized TX bursts of
 * one-descriptor device-readable buffers with IN_ORDER.
 *
 * In fixed mode buffer id i is always posted at ring position i: a refill
 * at position p writes desc[p].addr, then len (the fixed length), id p
 * and the flags of the driver's wrap counter (one 64-bit store); the
 * first descriptor of a batch keeps its flags back until
 * gvb_kick_prepare() (write barrier, then those flags), as the device
 * reads the ring in order and cannot pass it. A device that returns
 * buffers in the order it took them (IN_ORDER, or what devices do with
 * one-descriptor RX buffers) writes the used descriptor of buffer p at
 * ring position p: a vector burst checks that the flags say used in this
 * lap, the id is the position and the length is within the buffer, for
 * several descriptors at a time.
 *
 * Trust: as gv_vq_fixed_split.h. Positions and buffer ids coincide, so the
 * window of posted positions [fixed_old, avail_idx) is private state and
 * what is in flight is derived from it: a buffer is in flight when its
 * id is inside the window and it is not a hole (returned ahead of
 * fixed_old, allowed without IN_ORDER). Only positions outside the
 * window are posted again; they are free ring positions too (the window
 * holds at least every position the device has not handed back), so a
 * descriptor in flight is never rewritten. With no holes, fixed_old is
 * the used position and the in-flight buffers are exactly the window,
 * oldest first: the used descriptor at position used_idx + k (k below
 * the number in flight) is valid when its flags say used in the lap of
 * that position, its id is that position and its length at most
 * the fixed length. Flags, ids and lengths are read from shared memory and
 * checked before use; the flags before the id and length (read barrier).
 * The cookies live in the private per-slot arrays (one per position, so
 * a refill takes buffers from its allocator straight into them), and a
 * hole flag per position.
 * gv_vq_used_pending() counts used descriptors from the used position
 * (RX; in TX mode one used descriptor stands for a batch, which it does
 * not count). Plain C11, no DPDK.
 */
#ifndef GV_VQ_FIXED_PACKED_H
#define GV_VQ_FIXED_PACKED_H

#include "gv_vq_packed.h"
#include "gv_vq_priv.h"

_Static_assert(sizeof(struct gv_slot) >= sizeof(void *), "fixed mode: a cookie per slot");
_Static_assert(__builtin_offsetof(struct gv_packed_desc, len) == 8 &&
		       __builtin_offsetof(struct gv_packed_desc, id) == 12 &&
		       __builtin_offsetof(struct gv_packed_desc, flags) == 14,
	       "packed desc layout");

/* AVAIL and USED bits of a descriptor the device used in lap `wrap`. */
#define GVPF_USED_BITS(wrap) ((wrap) ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0u)

/* Enter fixed mode with every buffer `len` long (0: TX, lengths per post). */
static inline int packed_fixed_enter(struct gv_vq *vq, uint32_t len)
{
	if (vq->broken)
		return -EIO;
	if (vq->layout != GV_LAYOUT_PACKED)
		return -EINVAL;
	if (vq->inflight != 0 || vq->p.have_staged || vq->p.batch_open)
		return -EBUSY;
	/* num cookies over the slot array, num flags over the next array. */
	vq->p.fixed_ck = (void **)(void *)vq->slot;
	vq->p.fixed_hole = (uint8_t *)vq->next;
	memset(vq->p.fixed_ck, 0, (size_t)vq->num * sizeof(void *));
	memset(vq->p.fixed_hole, 0, vq->num);
	vq->p.fixed = 1;
	vq->gate = 1; /* only the fixed verbs post and take now */
	vq->p.fixed_len = len;
	vq->p.fixed_batch = 0;
	/* Nothing in flight: the used position is the avail position. */
	vq->p.fixed_old = vq->p.avail_idx;
	vq->p.fixed_holes = 0;
	vq->num_free = vq->num;
	return 0;
}

/*
 * Enter fixed mode: every buffer posted from now on is device-writable
 * and `len` bytes long. 0, -EIO (broken), -EINVAL (not packed, len 0) or
 * -EBUSY (buffers in flight, or a batch not yet published).
 */
static inline int packed_fixed_enable(struct gv_vq *vq, uint32_t len)
{
	if (len == 0)
		return vq->broken ? -EIO : -EINVAL;
	return packed_fixed_enter(vq, len);
}

/*
 * Enter fixed mode for device-readable buffers (TX): buffer id i still
 * always at position i, each post giving every buffer's address and
 * length (packed_fixed_tx_commit). Needs IN_ORDER: buffers come back oldest
 * first, and one used descriptor may stand for a whole batch (written at
 * the batch's first position with the id of its last buffer), which
 * packed_fixed_tx_done() / packed_fixed_tx_take() take; packed_fixed_take_one() is not for this
 * mode. 0, -EIO, -EINVAL (not packed, no IN_ORDER) or -EBUSY.
 */
static inline int packed_fixed_tx_enable(struct gv_vq *vq)
{
	if (!(vq->features & GV_VQ_F_IN_ORDER))
		return vq->broken ? -EIO : -EINVAL;
	return packed_fixed_enter(vq, 0);
}

/* The mode is on and the queue not broken: the fixed verbs may run. */
GV_INLINE bool packed_fixed_on(const struct gv_vq *vq)
{
	return !vq->broken && vq->p.fixed;
}

/*
 * Where the next buffers go: the cookie array from the next free position
 * to the ring's end, at most the free room; *n says how many (0 when the
 * queue is broken, full or not in fixed mode). The caller stores cookies
 * there, then posts them with packed_fixed_post_commit.
 */
GV_INLINE void **packed_fixed_post_slots(struct gv_vq *vq, uint32_t *n)
{
	const uint32_t pos = vq->p.avail_idx, to_end = vq->num - pos;

	if (GV_UNLIKELY(!packed_fixed_on(vq))) {
		*n = 0;
		return NULL;
	}
	*n = vq->num_free < to_end ? vq->num_free : to_end;
	return &vq->p.fixed_ck[pos];
}

/*
 * Post the n cookies stored at packed_fixed_post_slots(). RX (segs NULL, a
 * literal): buffer k at the 64-bit address stored at byte offset addr_off
 * of the object its cookie points to, plus addr_add, the fixed length,
 * device-writable. TX: buffer k at segs[k] (address and length),
 * device-readable. The batch's first descriptor (when none is held back
 * yet) keeps its flags for gvb_kick_prepare(); the others sit behind it
 * and are written whole.
 */
GV_INLINE void packed_fixed_commit(struct gv_vq *vq, uint32_t n, uint32_t addr_off,
				   uint64_t addr_add, const struct gv_seg *segs)
{
	const uint16_t pos = vq->p.avail_idx;
	const uint16_t flags = (uint16_t)((segs ? 0 : GV_DESC_F_WRITE) |
					  GV_PACKED_AVAIL_FLAGS(vq->p.avail_wrap));
	struct gv_packed_desc *d = &vq->p.desc[pos];
	void *const *ck = &vq->p.fixed_ck[pos];
	void *const *const end = ck + n;
	/* flags and id of the descriptor at d (the id goes up by one each), RX: and len. */
	uint64_t tail = (uint64_t)flags << 48 | (uint64_t)pos << 32 | vq->p.fixed_len;

#define GVPF_ADDR(j) (segs ? segs[j].addr : *(const uint64_t *)((const char *)ck[j] + addr_off) + addr_add)
#define GVPF_TAIL(j) (segs ? tail | segs[j].len : tail)
	if (n == 0)
		return;
	if (!vq->p.have_staged) {
		d->addr = GVPF_ADDR(0);
		d->len = segs ? segs[0].len : vq->p.fixed_len;
		d->id = pos;
		vq->p.staged_pos = pos;
		vq->p.staged_flags = flags;
		vq->p.have_staged = 1;
		ck++, d++;
		segs = segs ? segs + 1 : NULL;
		tail += (uint64_t)1 << 32;
	}
	/* Pointers, not a 32-bit index: no index extension per descriptor. */
#define GVPF_POST1(j)                                                          \
	do {                                                                   \
		d[j].addr = GVPF_ADDR(j);                                      \
		gv_store64(&d[j].len, GVPF_TAIL(j));                           \
		tail += (uint64_t)1 << 32;                                     \
	} while (0)
	for (; end - ck >= 4; ck += 4, d += 4, segs = segs ? segs + 4 : NULL) {
		GVPF_POST1(0);
		GVPF_POST1(1);
		GVPF_POST1(2);
		GVPF_POST1(3);
	}
	for (; ck < end; ck++, d++, segs = segs ? segs + 1 : NULL)
		GVPF_POST1(0);
#undef GVPF_POST1
#undef GVPF_TAIL
#undef GVPF_ADDR
	if (pos + n == vq->num) {
		vq->p.avail_idx = 0;
		vq->p.avail_wrap ^= 1;
	} else {
		vq->p.avail_idx = (uint16_t)(pos + n);
	}
	vq->num_free -= n;
	vq->inflight += n;
	vq->p.added += n;
}

GV_INLINE void packed_fixed_post_commit(struct gv_vq *vq, uint32_t n, uint32_t addr_off, uint64_t addr_add)
{
	packed_fixed_commit(vq, n, addr_off, addr_add, NULL);
}

/*
 * TX fixed mode: post the n cookies stored at packed_fixed_post_slots(), buffer k
 * at segs[k] (n at most what packed_fixed_post_slots() said).
 */
GV_INLINE void packed_fixed_tx_commit(struct gv_vq *vq, uint32_t n, const struct gv_seg *segs)
{
	packed_fixed_commit(vq, n, 0, 0, segs);
}

/*
 * Take the k buffers from the used position that the caller validated as
 * in step (gvf_in_step; k at most the number in flight; it may cross the
 * ring end), their cookies read.
 */
GV_INLINE void packed_fixed_take_in_step(struct gv_vq *vq, uint32_t k)
{
	uint32_t pos = vq->p.used_idx + k;

	if (pos >= vq->num) {
		pos -= vq->num;
		vq->p.used_wrap ^= 1;
	}
	vq->p.used_idx = (uint16_t)pos;
	vq->p.fixed_old = (uint16_t)pos;
	vq->num_free += k;
	vq->inflight -= k;
}

/*
 * One used descriptor at the used position, whatever the device wrote:
 * 1 with *cookie and *len; 0 when it is not used yet (or nothing is in
 * flight); -1 when the queue broke on it. Validated as gv_vq_get_used()
 * does: flags impossible for our wrap state (bad_flags), then, after a
 * read barrier, bad_id, id_not_inflight, bad_len, and bad_order with
 * IN_ORDER; a buffer returned ahead of the oldest leaves a hole.
 */
static inline int packed_fixed_take_one(struct gv_vq *vq, void **cookie, uint32_t *len,
				const enum gv_barrier B)
{
	const uint16_t pos = vq->p.used_idx;
	const struct gv_packed_desc *d = &vq->p.desc[pos];
	uint8_t *const hole = vq->p.fixed_hole;
	const uint32_t num = vq->num, window = num - vq->num_free;
	uint32_t id, l, at;
	int used;

	if (!packed_fixed_on(vq) || vq->inflight == 0)
		return GV_UNLIKELY(vq->broken) ? -1 : 0;
	used = packed_used_here(vq); /* flags at the used position */
	if (used <= 0)
		return used;
	/* The flags load before the loads of id and length. */
	gv_rmb(B);
	id = gv_load16(&d->id);
	l = gv_load32(&d->len);
	if (GV_UNLIKELY(id >= num)) {
		GV_VQ_FAIL(vq, bad_id);
		return -1;
	}
	at = id >= vq->p.fixed_old ? id - vq->p.fixed_old : id + num - vq->p.fixed_old;
	if (GV_UNLIKELY(at >= window || hole[id])) { /* outside, or returned already */
		GV_VQ_FAIL(vq, id_not_inflight);
		return -1;
	}
	if (GV_UNLIKELY(l > vq->p.fixed_len)) {
		GV_VQ_FAIL(vq, bad_len);
		return -1;
	}
	if (at == 0) {
		uint32_t freed = 1;

		/* The oldest is back: the window starts after it and the holes behind it. */
		if (++vq->p.fixed_old == num)
			vq->p.fixed_old = 0;
		while (vq->p.fixed_holes && hole[vq->p.fixed_old]) {
			hole[vq->p.fixed_old] = 0;
			if (++vq->p.fixed_old == num)
				vq->p.fixed_old = 0;
			vq->p.fixed_holes--;
			freed++;
		}
		vq->num_free += freed;
	} else {
		if (GV_UNLIKELY(vq->features & GV_VQ_F_IN_ORDER)) {
			GV_VQ_FAIL(vq, bad_order);
			return -1;
		}
		hole[id] = 1;
		vq->p.fixed_holes++;
	}
	vq->inflight--;
	if (pos + 1u == num) {
		vq->p.used_idx = 0;
		vq->p.used_wrap ^= 1;
	} else {
		vq->p.used_idx = (uint16_t)(pos + 1);
	}
	*cookie = vq->p.fixed_ck[id];
	*len = l;
	return 1;
}

/*
 * TX fixed mode: how many buffers from the used position the device has
 * returned, as far as one used descriptor says (an IN_ORDER batch: every
 * buffer up to the id it carries); 0 when none yet, -1 when the queue
 * broke on it (bad_flags, bad_id, id_not_inflight: the id must be of a
 * published buffer in flight). The cookies are at the cookie array from
 * the used position on (crossing the ring end as positions do); the caller
 * takes any number of them, at most this, with packed_fixed_tx_take(), and the
 * next call returns what is left of the batch before reading further.
 * No length is read: the device writes none for readable buffers.
 */
static inline int32_t packed_fixed_tx_done(struct gv_vq *vq, const enum gv_barrier B)
{
	const uint16_t pos = vq->p.used_idx;
	const struct gv_packed_desc *d = &vq->p.desc[pos];
	const uint32_t num = vq->num;
	uint32_t window = num - vq->num_free, id, at;
	int used;

	if (!packed_fixed_on(vq) || vq->inflight == 0)
		return GV_UNLIKELY(vq->broken) ? -1 : 0;
	if (vq->p.fixed_batch)
		return vq->p.fixed_batch;
	used = packed_used_here(vq); /* flags at the used position */
	if (used <= 0)
		return used;
	/* The flags load before the load of the id. */
	gv_rmb(B);
	id = gv_load16(&d->id);
	if (GV_UNLIKELY(id >= num)) {
		GV_VQ_FAIL(vq, bad_id);
		return -1;
	}
	/* Published buffers only: a head still held back is not the device's yet. */
	if (GV_UNLIKELY(vq->p.have_staged)) {
		const uint32_t sp = vq->p.staged_pos;

		window = sp >= pos ? sp - pos : sp + num - pos;
	}
	at = id >= pos ? id - pos : id + num - pos;
	if (GV_UNLIKELY(at >= window)) {
		GV_VQ_FAIL(vq, id_not_inflight);
		return -1;
	}
	vq->p.fixed_batch = (uint16_t)(at + 1);
	return (int32_t)(at + 1);
}

/* Take k of the buffers packed_fixed_tx_done() said are back (their cookies read). */
GV_INLINE void packed_fixed_tx_take(struct gv_vq *vq, uint32_t k)
{
	vq->p.fixed_batch = (uint16_t)(vq->p.fixed_batch - k);
	packed_fixed_take_in_step(vq, k);
}

/*
 * gv_vq_used_pending() of a queue in fixed mode: used descriptors from
 * the used position, at most the number in flight (one position each).
 */
static inline uint32_t packed_fixed_used_pending(const struct gv_vq *vq)
{
	uint32_t pos = vq->p.used_idx, w = vq->p.used_wrap, k = 0;

	while (k < vq->inflight &&
	       (gv_load16(&vq->p.desc[pos].flags) & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) ==
		       GVPF_USED_BITS(w)) {
		k++;
		if (++pos == vq->num) {
			pos = 0;
			w ^= 1;
		}
	}
	return k;
}

/*
 * gv_vq_detach() of a queue in fixed mode: the next buffer in flight
 * (window order, holes skipped), or NULL.
 */
static inline void *packed_fixed_detach(struct gv_vq *vq)
{
	while (vq->num_free < vq->num) {
		const uint32_t id = vq->p.fixed_old;

		if (++vq->p.fixed_old == vq->num)
			vq->p.fixed_old = 0;
		vq->num_free++;
		if (vq->p.fixed_hole[id]) { /* already returned */
			vq->p.fixed_hole[id] = 0;
			vq->p.fixed_holes--;
			continue;
		}
		vq->inflight--;
		return vq->p.fixed_ck[id];
	}
	return NULL;
}

#endif /* GV_VQ_FIXED_PACKED_H */
