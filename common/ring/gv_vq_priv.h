/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq_priv.h - the driver end's private state (struct gv_vq), shared by
 * gv_vq.c and the two layout implementations gv_vq_split.h and
 * gv_vq_packed.h. Not part of the public API.
 *
 * Trust model: everything in struct gv_vq is the driver's own and is never
 * refreshed from shared memory. Chain links, chain lengths, writable byte
 * counts and cookies live here; the ring only ever receives copies.
 */
#ifndef GV_VQ_PRIV_H
#define GV_VQ_PRIV_H

#include <errno.h>
#include <string.h>

#include "gv_vq.h"

#define GV_LIKELY(x) __builtin_expect(!!(x), 1)
#define GV_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Per chain, indexed by head descriptor (split) or buffer id (packed). */
struct gv_slot {
	void *cookie;
	uint32_t in_len; /* writable bytes posted: the bound on the used length */
	uint16_t ndesc; /* ring slots the chain holds; 0 = not in flight */
	/*
	 * packed: while the id is free, the next free id (the free-id list).
	 * split: unused (a chain's last descriptor is found through the
	 * private next[] links, split_chain_last).
	 */
	uint16_t last;
};

struct gv_vq_split {
	struct gv_split_desc *desc;
	struct gv_split_avail *avail;
	struct gv_split_used *used;
	uint16_t avail_idx; /* next avail entry (free running) */
	uint16_t pub_idx; /* avail->idx as last published */
	uint16_t kick_idx; /* avail idx at the last notification decision */
	uint16_t last_used; /* next used entry to consume */
	uint16_t free_head; /* private free descriptor list */
	uint16_t free_tail; /* freed chains go to the tail */
	/* Fixed mode (gv_vq_fixed.h): descriptor i is always avail entry i. */
	uint8_t fixed;
	uint16_t fixed_old; /* oldest avail position not yet returned */
	uint16_t fixed_holes; /* chains returned ahead of fixed_old */
	uint32_t fixed_len; /* writable bytes of every posted buffer (0: TX) */
	/* Over the slot and next arrays while fixed: per descriptor. */
	void **fixed_ck; /* the cookie posted there */
	uint8_t *fixed_hole; /* returned ahead of fixed_old */
};

struct gv_vq_packed {
	struct gv_packed_desc *desc;
	struct gv_packed_event *drv; /* written by us */
	struct gv_packed_event *dev; /* written by the device */
	uint16_t avail_idx; /* next slot to fill */
	uint16_t used_idx; /* next slot to read a used descriptor from */
	uint16_t free_id; /* private free buffer id list, linked by slot[].last */
	uint8_t avail_wrap;
	uint8_t used_wrap;
	/* Batch publish: the first staged head's flags are written last. */
	uint16_t staged_pos;
	uint16_t staged_flags;
	uint8_t have_staged;
	uint32_t added; /* slots made available since the last kick decision */
	/* IN_ORDER reclaim inside a batch the device returned as one entry. */
	uint8_t batch_open;
	uint16_t batch_last; /* buffer id that closes the batch */
	/* Fixed mode (gv_vq_fixed_packed.h): buffer id i always at position i. */
	uint8_t fixed;
	uint16_t fixed_old; /* oldest position posted and not returned */
	uint16_t fixed_holes; /* buffers returned ahead of fixed_old */
	uint32_t fixed_len; /* writable bytes of every posted buffer (0: TX) */
	uint16_t fixed_batch; /* TX: buffers of a validated used batch not yet taken */
	/* Over the slot and next arrays while fixed: per position. */
	void **fixed_ck; /* the cookie posted there */
	uint8_t *fixed_hole; /* returned ahead of fixed_old */
};

struct gv_vq {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num;
	uint32_t mask; /* split: num - 1 */
	uint32_t features;
	uint8_t broken;
	/*
	 * Nonzero: the general post and take verbs refuse (the queue is
	 * broken, or in fixed mode, where only gv_vq_fixed.h's verbs may post
	 * and take). One byte, tested where they used to test `broken`.
	 */
	uint8_t gate;
	uint32_t num_free; /* free descriptors / ring slots */
	uint32_t inflight; /* chains posted and not returned */
	struct gv_slot *slot; /* num entries */
	uint16_t *next; /* num entries, split: private chain and free-list links */
	/* Posting order of chains (IN_ORDER reclaim): ring of num ids. */
	uint16_t *order;
	uint32_t order_put, order_get;
	uint32_t detach_pos; /* gv_vq_detach scan cursor */
	void *indirect;
	uint64_t indirect_iova;
	uint16_t max_indirect;
	uint32_t align;
	void *ring;
	uint64_t ring_iova;
	union {
		struct gv_vq_split s;
		struct gv_vq_packed p;
	};
	struct gv_vq_stats stats;
};

/* Mark the queue broken after a bad value from the device; count it. */
#define GV_VQ_FAIL(vq, counter)                                                \
	do {                                                                   \
		(vq)->stats.counter++;                                         \
		(vq)->broken = 1;                                              \
		(vq)->gate = 1;                                                \
	} while (0)

/*
 * Dispatch key: layout and barrier policy. Each public verb switches on it
 * once per call and jumps to a copy of the layout code specialised for a
 * literal policy, so no barrier inside the loop tests the policy. With
 * GV_RING_FIXED_BARRIER the policy half of the key is a constant and the
 * switch folds away.
 */
#define GV_KEY(layout, barrier) (((unsigned)(layout) << 1) | (unsigned)(barrier))
#define GV_K_SPLIT_SMP GV_KEY(GV_LAYOUT_SPLIT, GV_BARRIER_SMP)
#define GV_K_SPLIT_MAND GV_KEY(GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY)
#define GV_K_PACKED_SMP GV_KEY(GV_LAYOUT_PACKED, GV_BARRIER_SMP)
#define GV_K_PACKED_MAND GV_KEY(GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY)
#define GV_VQ_KEY(vq) GV_KEY((vq)->layout, GV_BARRIER_OF((vq)->barrier))

/* Emit `return split_fn(args, B)` / `packed_fn(args, B)` for the key. */
#define GV_DISPATCH(vq, split_fn, packed_fn, ...)                              \
	switch (GV_VQ_KEY(vq)) {                                               \
	case GV_K_SPLIT_SMP:                                                   \
		return split_fn(__VA_ARGS__, GV_BARRIER_SMP);                  \
	case GV_K_SPLIT_MAND:                                                  \
		return split_fn(__VA_ARGS__, GV_BARRIER_MANDATORY);            \
	case GV_K_PACKED_SMP:                                                  \
		return packed_fn(__VA_ARGS__, GV_BARRIER_SMP);                 \
	default:                                                               \
		return packed_fn(__VA_ARGS__, GV_BARRIER_MANDATORY);           \
	}

#define GV_INLINE static inline __attribute__((always_inline))

/*
 * The rule for a used entry in the general mode, either layout (a split
 * used element, a packed used descriptor): its id names a chain in
 * flight, its length fits what that chain made writable, and with
 * IN_ORDER (in_order) it is the chain the posting order names next
 * (expect). A chain with nothing writable (TX) may come back with any
 * length (DPDK's vhost writes one on packed TX): the length then means
 * nothing and *len becomes 0. Anything else breaks the queue and counts
 * why; false then. slot and num are the queue's (the caller's local
 * copies). The bursts' fast runs (gv_vq_burst.h) take only entries that
 * plainly pass and leave every other one to the verb that calls this.
 */
GV_INLINE bool gv_used_ok(struct gv_vq *vq, const struct gv_slot *slot, uint32_t num,
			  uint32_t id, uint32_t *len, const bool in_order, uint32_t expect)
{
	const struct gv_slot *s;

	if (GV_UNLIKELY(id >= num)) {
		GV_VQ_FAIL(vq, bad_id);
		return false;
	}
	s = &slot[id];
	if (GV_UNLIKELY(s->ndesc == 0)) {
		GV_VQ_FAIL(vq, id_not_inflight);
		return false;
	}
	if (GV_UNLIKELY(*len > s->in_len)) {
		if (s->in_len) {
			GV_VQ_FAIL(vq, bad_len);
			return false;
		}
		*len = 0;
	}
	if (in_order && GV_UNLIKELY(id != expect)) {
		GV_VQ_FAIL(vq, bad_order);
		return false;
	}
	return true;
}

/* What a general verb that posts returns when the gate is shut: broken, or in fixed mode. */
#define GV_GATE_ERR(vq) ((vq)->broken ? -EIO : -EPERM)

/* Two adjacent 16-bit fields (4-byte aligned) with one 32-bit store. */
GV_INLINE void gvb_put16_16(void *p, uint16_t a, uint16_t b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	const uint32_t v = (uint32_t)a | (uint32_t)b << 16;

	memcpy(p, &v, sizeof(v));
#else
	memcpy(p, &a, 2);
	memcpy((char *)p + 2, &b, 2);
#endif
}

/* Two adjacent 16-bit fields (4-byte aligned) with one 32-bit load... */
GV_INLINE uint32_t gvb_get16_16(const void *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* ...equal to this when they are (a, b). */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GVB_16_16(a, b) ((uint32_t)(a) | (uint32_t)(b) << 16)
#else
#define GVB_16_16(a, b) ((uint32_t)(a) << 16 | (uint32_t)(b))
#endif

#endif /* GV_VQ_PRIV_H */
