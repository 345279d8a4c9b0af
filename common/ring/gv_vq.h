/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq.h - the driver end of a virtqueue: the public API the PMD (and the
 * tests, fuzzers and benchmarks) use. Plain C11, no DPDK.
 *
 * The caller owns all memory: the shared ring (gv_ring_size() bytes,
 * zeroed by gv_vq_init) and the driver's private state (gv_vq_state_size()
 * bytes, which holds struct gv_vq).
 *
 * What is API: the verbs of three headers. This one: out-of-line verbs
 * that switch once on the queue's layout and barrier policy, for cold
 * paths, tests and tools. gv_vq_burst.h: gvb_*, the same verbs inline,
 * the layout and policy literals of the caller's specialised burst.
 * gv_vq_fixed.h: gvf_*, the fixed mode of the vector paths, inline the
 * same way. What is private: struct gv_vq's fields and every other header
 * of common/ring (gv_vq_priv.h, gv_vq_split.h, gv_vq_packed.h,
 * gv_vq_fixed_split.h, gv_vq_fixed_packed.h), which the inline headers
 * include but callers never read or name; only the core's own unit tests
 * look inside.
 *
 * Buffers are posted as chains of segments: `n_out` device-readable
 * segments followed by `n_in` device-writable ones, with an opaque cookie
 * that comes back when the device returns the chain. Posting stages the
 * chain; gv_vq_flush() (or gv_vq_kick_prepare()) publishes everything
 * staged at once.
 *
 * Hardening: everything the device writes (used ids, lengths, indices,
 * packed flags) is checked against the driver's private state before it
 * is used. A violation is counted in struct gv_vq_stats, the queue is
 * marked broken, and from then on every verb fails (returns 0 / -EIO)
 * until gv_vq_reset(). A queue in fixed mode (gv_vq_fixed.h) refuses the
 * general posting and taking verbs (0 / -EPERM) until gv_vq_reset().
 */
#ifndef GV_VQ_H
#define GV_VQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gv_barrier.h"
#include "gv_ring_layout.h"

#ifdef __cplusplus
extern "C" {
#endif

enum gv_layout {
	GV_LAYOUT_SPLIT = 0,
	GV_LAYOUT_PACKED = 1,
};

/* Negotiated features that change how the ring is driven. */
#define GV_VQ_F_EVENT_IDX (1u << 0) /* VIRTIO_RING_F_EVENT_IDX */
#define GV_VQ_F_IN_ORDER (1u << 1) /* VIRTIO_F_IN_ORDER */
#define GV_VQ_F_INDIRECT (1u << 2) /* VIRTIO_RING_F_INDIRECT_DESC */

struct gv_vq_config {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num; /* 1..32768; power of two for split */
	uint32_t features; /* GV_VQ_F_* */
	void *ring; /* gv_ring_size(layout, num, align) bytes, 16-aligned */
	uint64_t ring_iova; /* device-visible address of `ring` */
	uint32_t align; /* split: used-ring alignment (4096 legacy, 4 modern); 0 = 4 */
	/*
	 * Optional indirect tables (GV_VQ_F_INDIRECT): num * max_indirect
	 * 16-byte descriptors; the table of buffer id `i` starts at entry
	 * i * max_indirect.
	 */
	void *indirect;
	uint64_t indirect_iova;
	uint16_t max_indirect;
};

/* Device-visible addresses of the three ring areas (for the transport). */
struct gv_ring_addrs {
	uint64_t desc; /* descriptor table / ring */
	uint64_t driver; /* split: avail ring; packed: driver event suppression */
	uint64_t device; /* split: used ring; packed: device event suppression */
};

/* One segment of a chain: device address and length. */
struct gv_seg {
	uint64_t addr;
	uint32_t len;
};

/* Hardening counters: each is a kind of bad value the device wrote. */
struct gv_vq_stats {
	uint64_t bad_id; /* used id >= ring size */
	uint64_t id_not_inflight; /* used id not posted, or already returned */
	uint64_t bad_len; /* used length > writable bytes posted */
	uint64_t bad_flags; /* packed flags contradict the driver's state */
	uint64_t bad_used_idx; /* split used idx ran ahead of what was posted */
	uint64_t bad_order; /* IN_ORDER: a used id out of posting order */
};

struct gv_vq;

size_t gv_ring_size(enum gv_layout layout, uint32_t num, uint32_t align);
size_t gv_vq_state_size(enum gv_layout layout, uint32_t num);

/*
 * Initialise `vq` (gv_vq_state_size() bytes) and zero the ring.
 * Returns 0, or -EINVAL for a bad size, alignment or layout.
 */
int gv_vq_init(struct gv_vq *vq, const struct gv_vq_config *cfg);

/*
 * Forget every posted buffer and zero the ring (after a device reset).
 * Posted cookies are lost: take them back with gv_vq_detach() first.
 */
void gv_vq_reset(struct gv_vq *vq);

void gv_vq_addrs(const struct gv_vq *vq, struct gv_ring_addrs *out);
enum gv_layout gv_vq_layout(const struct gv_vq *vq);
uint32_t gv_vq_num(const struct gv_vq *vq);
uint32_t gv_vq_num_free(const struct gv_vq *vq); /* free descriptors */
uint32_t gv_vq_inflight(const struct gv_vq *vq); /* chains posted, not returned */
bool gv_vq_broken(const struct gv_vq *vq);
/*
 * Where the next available entry goes, as VIRTIO_F_NOTIFICATION_DATA
 * reports it (virtio 1.2, 2.9): split, the avail index as published;
 * packed, the ring offset in bits 0-14 and the wrap counter in bit 15.
 * Meaningful after gv_vq_flush() / gv_vq_kick_prepare().
 */
uint32_t gv_vq_avail_state(const struct gv_vq *vq);
void gv_vq_stats(const struct gv_vq *vq, struct gv_vq_stats *out);

/*
 * Stage one chain. With `indirect` the chain goes into the buffer id's
 * indirect table and takes a single ring slot (needs GV_VQ_F_INDIRECT and
 * n_out + n_in <= max_indirect).
 * Returns 0, -ENOSPC (not enough free descriptors), -EINVAL (empty chain,
 * zero-length segment, too long), -EIO (queue broken) or -EPERM (fixed mode).
 */
int gv_vq_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out,
	      uint16_t n_in, void *cookie, bool indirect);

/*
 * Stage up to `n` one-segment chains, all device-writable (`writable`,
 * e.g. RX refill) or all device-readable (e.g. simple TX). Returns how
 * many were staged (fewer when descriptors run out; 0 when broken).
 */
uint32_t gv_vq_add_burst(struct gv_vq *vq, const struct gv_seg *segs,
			 void *const *cookies, uint32_t n, bool writable);

/* Publish everything staged since the last flush. */
void gv_vq_flush(struct gv_vq *vq);

/*
 * Flush, then decide whether the device wants a notification for what
 * was published since the last call (device flags, or the event index
 * when GV_VQ_F_EVENT_IDX).
 */
bool gv_vq_kick_prepare(struct gv_vq *vq);

/*
 * Take back up to `n` used chains: cookies[i] and the bytes the device
 * wrote lens[i] (lens may be NULL). A length above the writable bytes
 * posted breaks the queue (bad_len), except on a chain with no writable
 * bytes at all, where it is reported as 0. Every id and length is validated; on
 * a bad value the queue breaks and the chains taken before it are still
 * returned. Works in and out of order. With GV_VQ_F_IN_ORDER each chain
 * must come back with its own used entry, in posting order (checked:
 * bad_order); completions the device batched into one entry are taken
 * back with gv_vq_reclaim_in_order().
 */
uint32_t gv_vq_get_used(struct gv_vq *vq, void **cookies, uint32_t *lens, uint32_t n);

/*
 * IN_ORDER fast reclaim (GV_VQ_F_IN_ORDER): the device returns chains in
 * the order they were posted and may write only the last entry of a
 * batch. Takes back up to `n` chains without reading each used entry
 * (for TX completions, where lengths do not matter).
 */
uint32_t gv_vq_reclaim_in_order(struct gv_vq *vq, void **cookies, uint32_t n);

/* Number of used chains waiting (0 when broken). */
uint32_t gv_vq_used_pending(struct gv_vq *vq);

/*
 * Device-to-driver notifications. disable_cb asks the device not to
 * interrupt. enable_cb asks it to; returns false when used chains are
 * already waiting (the caller should poll again rather than sleep).
 */
void gv_vq_disable_cb(struct gv_vq *vq);
bool gv_vq_enable_cb(struct gv_vq *vq);

/*
 * Where the device's next completion will show, for a power-management
 * monitor (sleep until the line at `addr` is written): the 16-bit word
 * there, masked by `mask`, says "do not sleep" when it equals `value`
 * (`when_equal`) or when it differs from it. `mask` 0 gives a fixed
 * answer: when_equal, never sleep (chains are waiting in an open batch,
 * or none is posted, so nothing will be written until the caller posts);
 * else always sleep (a broken queue). Reads nothing from the ring; the
 * caller polls as usual after waking.
 */
struct gv_vq_watch {
	void *addr;
	uint16_t mask;
	uint16_t value;
	bool when_equal;
};
void gv_vq_watch(const struct gv_vq *vq, struct gv_vq_watch *out);

/*
 * Enter the fixed mode of gv_vq_fixed.h (gvf_enable, gvf_tx_enable) on a
 * queue of either layout: 0 or -EIO, -EINVAL, -EBUSY as those say.
 */
int gv_vq_fixed_enable(struct gv_vq *vq, uint32_t len);
int gv_vq_fixed_tx_enable(struct gv_vq *vq);

/*
 * Take back one posted chain that the device never returned (teardown):
 * returns its cookie, or NULL when none is left. Safe on a broken queue.
 */
void *gv_vq_detach(struct gv_vq *vq);

#ifdef __cplusplus
}
#endif

#endif /* GV_VQ_H */
