/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vqd.h - the device end of a virtqueue: a software device used by the
 * tests, the fuzzers, the benchmarks and the loopback device. It reads the
 * chains the driver made available, writes used entries, does event
 * suppression, and optionally logs every guest page it writes into a
 * dirty bitmap (live migration).
 *
 * The device end does not trust the driver either: chains that loop, are
 * longer than the ring or GV_CHAIN_MAX_SEGS, or point at a malformed
 * indirect table are refused (-EIO) and the device queue breaks.
 *
 * Addresses in descriptors are translated with the caller's xlate hook;
 * tests typically use identity (address == pointer).
 */
#ifndef GV_VQD_H
#define GV_VQD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gv_vq.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GV_CHAIN_MAX_SEGS 128

/* Returns a pointer to `len` bytes at device address `addr`, or NULL. */
typedef void *(*gv_xlate_fn)(void *ctx, uint64_t addr, uint32_t len);

struct gv_vqd_config {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num;
	uint32_t features; /* GV_VQ_F_EVENT_IDX, GV_VQ_F_INDIRECT */
	struct gv_ring_addrs addrs; /* as given by the driver */
	gv_xlate_fn xlate;
	void *xlate_ctx;
	/*
	 * Optional: one device-address range translated inline, without a
	 * call: [flat_addr, flat_addr + flat_len) maps to flat_host + (addr
	 * - flat_addr), as a vhost back-end's memory-region lookup. Buffers
	 * wholly inside it skip `xlate`; any other goes through `xlate`.
	 * flat_len 0: none; the range may not wrap, and flat_len is at most
	 * 2^64 - 2^32.
	 */
	uint64_t flat_addr;
	uint64_t flat_len;
	void *flat_host;
};

struct gv_chain_seg {
	uint64_t addr; /* device address, as the driver wrote it */
	void *ptr; /* host pointer (translated and checked by gv_vqd_take) */
	uint32_t len;
	bool write; /* device-writable */
};

/* One available chain, as the device took it. */
struct gv_chain {
	uint16_t id; /* id to return in the used entry */
	uint16_t ndesc; /* ring slots it occupied (1 for indirect) */
	uint16_t nseg;
	uint16_t n_out; /* readable segments come first, then writable */
	uint32_t out_len; /* readable bytes */
	uint32_t in_len; /* writable bytes */
	struct gv_chain_seg seg[GV_CHAIN_MAX_SEGS];
};

struct gv_vqd_stats {
	uint64_t bad_chains; /* loops, too long, bad indirect, untranslatable */
	uint64_t log_marks; /* page marks requested */
	uint64_t log_atomics; /* atomic ORs issued into the bitmap */
};

struct gv_vqd;

size_t gv_vqd_state_size(void);
int gv_vqd_init(struct gv_vqd *d, const struct gv_vqd_config *cfg);
bool gv_vqd_broken(const struct gv_vqd *d);
void gv_vqd_stats(const struct gv_vqd *d, struct gv_vqd_stats *out);

/*
 * Count, cheaply, how many chains are available (at most `max`) without
 * taking them: a device allocates only what it will fill. Packed: walks
 * the descriptor flags; split: one index read.
 */
uint32_t gv_vqd_avail_count(struct gv_vqd *d, uint32_t max);

/* Take the next available chain. 1: taken, 0: none, -EIO: bad chain. */
int gv_vqd_take(struct gv_vqd *d, struct gv_chain *c);

/*
 * Burst verbs for the common case of a network queue: chains of one
 * descriptor (no NEXT, no INDIRECT). A device takes a burst, works on it
 * and returns it with one call each way, reading the driver's index (or
 * head flags) once per burst where gv_vqd_take is one call per chain.
 */
struct gv_vqd_buf {
	void *ptr; /* host pointer (translated and checked) */
	uint64_t addr; /* device address, as the driver wrote it */
	uint32_t len;
	uint16_t id; /* id to return */
	uint8_t write; /* device-writable */
};

/*
 * Take up to `n` available one-descriptor chains. Stops early at a longer
 * chain (left for gv_vqd_take) or when nothing more is available. Returns
 * the number taken; -EIO when the queue is (or, with nothing taken yet,
 * just became) broken. A bad entry after good ones breaks the queue and
 * returns the good ones; the next call returns -EIO.
 */
int gv_vqd_take_burst(struct gv_vqd *d, struct gv_vqd_buf *b, uint32_t n);

/*
 * Stage used entries for `n` one-descriptor chains b[k].id, with lens[k]
 * bytes written. Published by gv_vqd_publish().
 */
void gv_vqd_push_burst(struct gv_vqd *d, const struct gv_vqd_buf *b, const uint32_t *lens,
		       uint32_t n);

/*
 * Stage a used entry for chain (id, ndesc) with `len` bytes written.
 * Chains may be returned in any order. Nothing is visible to the driver
 * until gv_vqd_publish().
 */
void gv_vqd_push(struct gv_vqd *d, uint16_t id, uint16_t ndesc, uint32_t len);

/*
 * IN_ORDER batch: `count` chains taken in order, occupying `ndesc` ring
 * slots in all, returned with one used entry carrying the last chain's id
 * and length (spec 2.7.9 / 2.8.21).
 */
void gv_vqd_push_in_order_batch(struct gv_vqd *d, uint16_t last_id, uint32_t last_len,
				uint16_t count, uint32_t ndesc);

/* Flush the dirty log, then publish all staged used entries. */
void gv_vqd_publish(struct gv_vqd *d);

/* Should the device interrupt the driver for what it published? */
bool gv_vqd_need_interrupt(struct gv_vqd *d);

/* Ask the driver for (or to stop sending) available-buffer notifications. */
void gv_vqd_enable_kick(struct gv_vqd *d, bool enable);

/*
 * Copy `len` bytes from `src` into the chain's writable segments starting
 * at writable offset `off`; logs the pages written. Returns bytes copied.
 */
uint32_t gv_vqd_write(struct gv_vqd *d, const struct gv_chain *c, uint32_t off,
		      const void *src, uint32_t len);

/* Copy readable bytes of the chain, from readable offset `off`. */
uint32_t gv_vqd_read(struct gv_vqd *d, const struct gv_chain *c, uint32_t off, void *dst,
		     uint32_t len);

/*
 * Dirty-page logging (VHOST_F_LOG_ALL). `bitmap` has one bit per 4 KiB
 * guest page, `bits` bits in all; NULL turns logging off. Marks are
 * gathered per 64-bit bitmap word and flushed with one atomic OR per word
 * after the data writes and before the used index/flags are published.
 */
void gv_vqd_set_log(struct gv_vqd *d, uint64_t *bitmap, uint64_t bits);

/* Log a write the caller made itself (device address range). */
void gv_vqd_log_write(struct gv_vqd *d, uint64_t addr, uint64_t len);

#define GV_LOG_PAGE_SHIFT 12

#ifdef __cplusplus
}
#endif

#endif /* GV_VQD_H */
