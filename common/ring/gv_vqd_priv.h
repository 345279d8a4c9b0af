/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vqd_priv.h - the device end's private state (struct gv_vqd), shared
 * by gv_vqd.c (set-up, per-chain verbs, publish, events, copies) and
 * gv_vqd_burst.c (burst verbs). Not part of the public API.
 */
#ifndef GV_VQD_PRIV_H
#define GV_VQD_PRIV_H

#include <errno.h>
#include <string.h>

#include "gv_log.h"
#include "gv_vqd.h"

#define GV_LIKELY(x) __builtin_expect(!!(x), 1)

struct gv_vqd {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num, mask, features;
	uint8_t broken;
	uint8_t kick_enabled;
	struct gv_ring_addrs addrs;
	gv_xlate_fn xlate;
	void *xctx;
	uint64_t flat_addr, flat_len; /* see gv_vqd_config */
	uint8_t *flat_host;
	union {
		struct {
			struct gv_split_desc *desc;
			struct gv_split_avail *avail;
			struct gv_split_used *used;
			uint16_t last_avail; /* next avail entry to take */
			/*
			 * avail->idx as last read and checked (at most num
			 * ahead of last_avail). Entries up to it are taken
			 * without reading the driver's index again: the index
			 * shares its cache line with the avail entries the
			 * driver is writing, so re-reading it per chain pulls
			 * that line away from the driver (as rte_ring's cached
			 * head/tail avoid).
			 */
			uint16_t avail_cache;
			uint16_t used_idx; /* next used entry to write */
			uint16_t pub_used; /* used->idx as published */
			uint16_t sig_used; /* used idx at the last interrupt decision */
		} s;
		struct {
			struct gv_packed_desc *desc;
			struct gv_packed_event *drv, *dev;
			uint16_t avail_idx, used_idx, staged_pos, staged_flags;
			uint8_t avail_wrap, used_wrap, have_staged, pub_wrap;
			uint16_t pub_pos; /* used position as last published */
			uint32_t staged_slots, pub_slots;
		} p;
	};
	struct gv_log log;
	uint64_t bad_chains;
};

#define BAD_CHAIN(d)                                                           \
	do {                                                                   \
		(d)->bad_chains++;                                             \
		(d)->broken = 1;                                               \
		return -EIO;                                                   \
	} while (0)

static inline int packed_is_avail(uint16_t f, uint8_t wrap)
{
	return !!(f & GV_DESC_F_AVAIL) == wrap && !!(f & GV_DESC_F_USED) != wrap;
}

/*
 * split: read the driver's avail index again (checked: at most num
 * ahead), asking for a kick when going idle with EVENT_IDX. 1: entries
 * cached, 0: none, -1: bad index.
 */
int gv_vqd_split_refresh_avail(struct gv_vqd *d);

/* packed: write the device event suppression structure (and log it). */
void gv_vqd_packed_set_dev_event(struct gv_vqd *d, bool set_off, uint16_t off_wrap,
				 uint16_t flags);

#endif /* GV_VQD_PRIV_H */
