/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_log.h - dirty-page log of the device end (live migration), private
 * to common/ring. One bit per 4 KiB guest page. Marks are gathered per
 * 64-bit bitmap word in a small cache and flushed with one atomic OR per
 * word, so a burst that writes many buffers in a few pages costs a few
 * atomics, not one per write.
 */
#ifndef GV_LOG_H
#define GV_LOG_H

#include <stdint.h>

#define GV_LOG_CACHE 16

struct gv_log {
	uint64_t *bitmap; /* NULL: logging off */
	uint64_t bits;
	uint32_t n; /* words cached */
	uint64_t word[GV_LOG_CACHE];
	uint64_t mask[GV_LOG_CACHE];
	uint64_t marks; /* pages marked */
	uint64_t atomics; /* atomic ORs issued */
};

void gv_log_set(struct gv_log *l, uint64_t *bitmap, uint64_t bits);
/*
 * Is logging on? The device end tests this inline before each mark on
 * its per-descriptor paths, so a log that is off costs no call.
 */
static inline int gv_log_on(const struct gv_log *l)
{
	return l->bitmap != 0;
}
/* Gather the pages of [addr, addr + len) into the cache. */
void gv_log_mark(struct gv_log *l, uint64_t addr, uint64_t len);
/* Write the cached words into the bitmap, one atomic OR each. */
void gv_log_flush(struct gv_log *l);
/* Mark [addr, addr + len) in the bitmap at once (after a publish). */
void gv_log_mark_now(struct gv_log *l, uint64_t addr, uint64_t len);

#endif /* GV_LOG_H */
