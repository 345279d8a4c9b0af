/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vqd_burst.c - the device end's burst verbs (gv_vqd_take_burst,
 * gv_vqd_push_burst; see gv_vqd.h): bursts of one-descriptor chains with
 * one call each way, on local copies of the ring state, buffers in the
 * flat range translated inline. Same checks as the per-chain verbs of
 * gv_vqd.c.
 */
#include "gv_vqd_priv.h"

/* A bad entry after `k` good ones: break the queue, return the good ones. */
static int burst_bad(struct gv_vqd *d, uint32_t k)
{
	d->bad_chains++;
	d->broken = 1;
	return k ? (int)k : -EIO;
}

/* Why a burst's inline loop stopped before its end. */
enum burst_stop {
	STOP_END, /* count reached, nothing more, or a longer chain */
	STOP_MISS, /* b[k] (all but ptr) filled: outside the flat range */
	STOP_BAD, /* a bad entry */
};

/*
 * Is [addr, addr + len) wholly inside the flat range? off + len cannot
 * wrap once off < flat_len: gv_vqd_init keeps flat_len <= 2^64 - 2^32.
 */
static inline bool in_flat(uint64_t addr, uint32_t len, uint64_t flat_addr, uint64_t flat_len)
{
	const uint64_t off = addr - flat_addr;

	return off < flat_len && off + len <= flat_len;
}

/*
 * split, inline part of a burst: entries pos.. (at most n), translated
 * within the flat range only, so the loop makes no call and keeps its
 * state in registers. The avail ring is walked in runs that do not reach
 * its end, so the inner loop has no wrap to mask. Returns the entries
 * taken; *stop says why it ended.
 */
static __attribute__((noinline)) uint32_t split_take_flat(struct gv_vqd *d, struct gv_vqd_buf *b,
							  uint32_t n, uint16_t pos,
							  enum burst_stop *stop)
{
	const uint16_t *const ring = d->s.avail->ring;
	const struct gv_split_desc *const table = d->s.desc;
	const uint32_t num = d->num; /* a power of two: num - 1 is the mask */
	const uint64_t flat_addr = d->flat_addr, flat_len = d->flat_len;
	uint8_t *const flat_host = d->flat_host;
	uint32_t at = pos & (num - 1), k = 0;

	while (k < n) {
		const uint16_t *a = ring + at, *const start = a, *aend;
		struct gv_vqd_buf *bp = b + k;
		uint32_t run = n - k;

		if (run > num - at)
			run = num - at;
		for (aend = a + run; a != aend; a++, bp++) {
			const uint16_t i = gv_load16(a);
			const struct gv_split_desc *desc;
			uint16_t flags;
			uint64_t addr;
			uint32_t len;

			if (i >= num) {
				*stop = STOP_BAD;
				break;
			}
			desc = &table[i];
			flags = gv_load16(&desc->flags);
			if (flags & (GV_DESC_F_NEXT | GV_DESC_F_INDIRECT))
				break;
			addr = gv_load64(&desc->addr);
			len = gv_load32(&desc->len);
			bp->addr = addr;
			bp->len = len;
			bp->id = i;
			bp->write = (flags & GV_DESC_F_WRITE) != 0;
			if (!in_flat(addr, len, flat_addr, flat_len)) {
				*stop = STOP_MISS;
				break;
			}
			bp->ptr = flat_host + (addr - flat_addr);
		}
		k += (uint32_t)(a - start);
		if (a != aend)
			break;
		at = 0;
	}
	return k;
}

/*
 * split: up to `n` one-descriptor chains. The avail index is read again
 * only when the cached one does not cover the whole burst. Buffers
 * outside the flat range go through xlate between runs of the inline
 * loop.
 */
static int split_take_burst(struct gv_vqd *d, struct gv_vqd_buf *b, uint32_t n)
{
	uint16_t last = d->s.last_avail;
	uint32_t k = 0, have = (uint16_t)(d->s.avail_cache - last);
	enum burst_stop stop;

	if (have < n) {
		int r = gv_vqd_split_refresh_avail(d);

		if (r < 0)
			BAD_CHAIN(d);
		have = (uint16_t)(d->s.avail_cache - last);
	}
	if (n > have)
		n = have;
	for (;;) {
		stop = STOP_END;
		k += split_take_flat(d, b + k, n - k, (uint16_t)(last + k), &stop);
		if (stop != STOP_MISS)
			break;
		b[k].ptr = d->xlate(d->xctx, b[k].addr, b[k].len);
		if (!b[k].ptr) {
			stop = STOP_BAD;
			break;
		}
		k++;
	}
	d->s.last_avail = (uint16_t)(last + k);
	if (stop == STOP_BAD)
		return burst_bad(d, k);
	return (int)k;
}

/*
 * packed, inline part of a burst: as split_take_flat, from (*pos, *wrap),
 * in runs that do not reach the ring's end; one test of the flags per
 * descriptor (available in this lap, not part of a longer chain).
 */
static __attribute__((noinline)) uint32_t packed_take_flat(struct gv_vqd *d, struct gv_vqd_buf *b,
							   uint32_t n, uint16_t *pos_io,
							   uint8_t *wrap_io, enum burst_stop *stop)
{
	const uint16_t look = GV_DESC_F_AVAIL | GV_DESC_F_USED | GV_DESC_F_NEXT | GV_DESC_F_INDIRECT;
	struct gv_packed_desc *const ring = d->p.desc;
	const uint32_t num = d->num;
	const uint64_t flat_addr = d->flat_addr, flat_len = d->flat_len;
	uint8_t *const flat_host = d->flat_host;
	const enum gv_barrier barrier = d->barrier;
	uint32_t pos = *pos_io, k = 0;
	uint8_t wrap = *wrap_io;

	while (k < n) {
		const struct gv_packed_desc *r = ring + pos, *const start = r, *rend;
		struct gv_vqd_buf *bp = b + k;
		/* Available in this lap: AVAIL == wrap, USED != wrap. */
		const uint16_t want = wrap ? GV_DESC_F_AVAIL : GV_DESC_F_USED;
		uint32_t run = n - k, j;

		if (run > num - pos)
			run = num - pos;
		for (rend = r + run; r != rend; r++, bp++) {
			const uint16_t flags = gv_load16(&r->flags);
			uint64_t addr;
			uint32_t len;

			if ((flags & look) != want)
				break;
			/* This head's flags before its other fields. */
			gv_rmb(barrier);
			addr = gv_load64(&r->addr);
			len = gv_load32(&r->len);
			bp->addr = addr;
			bp->len = len;
			bp->id = gv_load16(&r->id);
			bp->write = (flags & GV_DESC_F_WRITE) != 0;
			if (!in_flat(addr, len, flat_addr, flat_len)) {
				*stop = STOP_MISS;
				break;
			}
			bp->ptr = flat_host + (addr - flat_addr);
		}
		j = (uint32_t)(r - start);
		k += j;
		pos += j;
		if (pos == num) {
			pos = 0;
			wrap ^= 1;
		}
		if (r != rend)
			break;
	}
	*pos_io = (uint16_t)pos;
	*wrap_io = wrap;
	return k;
}

/* packed: up to `n` one-descriptor chains, in ring order. */
static int packed_take_burst(struct gv_vqd *d, struct gv_vqd_buf *b, uint32_t n)
{
	uint16_t pos = d->p.avail_idx;
	uint8_t wrap = d->p.avail_wrap;
	uint32_t k = 0;
	enum burst_stop stop;

	if (n && !packed_is_avail(gv_load16(&d->p.desc[pos].flags), wrap)) {
		if (!(d->features & GV_VQ_F_EVENT_IDX) || !d->kick_enabled)
			return 0;
		/* Going idle: ask for a kick at our position, then look again. */
		gv_vqd_packed_set_dev_event(d, true, (uint16_t)(pos | (wrap << 15)), GV_EVENT_F_DESC);
		gv_mb(d->barrier);
	}
	for (;;) {
		stop = STOP_END;
		k += packed_take_flat(d, b + k, n - k, &pos, &wrap, &stop);
		if (stop != STOP_MISS)
			break;
		/* pos is still at the missed descriptor. */
		b[k].ptr = d->xlate(d->xctx, b[k].addr, b[k].len);
		if (!b[k].ptr)
			break;
		k++;
		if (++pos == d->num) {
			pos = 0;
			wrap ^= 1;
		}
	}
	d->p.avail_idx = pos;
	d->p.avail_wrap = wrap;
	if (stop == STOP_MISS) /* the xlate hook refused it */
		return burst_bad(d, k);
	return (int)k;
}

int gv_vqd_take_burst(struct gv_vqd *d, struct gv_vqd_buf *b, uint32_t n)
{
	if (d->broken)
		return -EIO;
	return d->layout == GV_LAYOUT_SPLIT ? split_take_burst(d, b, n) : packed_take_burst(d, b, n);
}

/*
 * Burst returns on local copies of the ring state (the stores into the
 * ring could alias struct gv_vqd for the compiler); the same entries,
 * flags order and log marks as gv_vqd_push one by one.
 */
static void split_push_burst(struct gv_vqd *d, const struct gv_vqd_buf *b, const uint32_t *lens,
			     uint32_t n)
{
	struct gv_split_used_elem *const ring = d->s.used->ring;
	const uint32_t num = d->num;
	const uint16_t at = d->s.used_idx;
	uint32_t pos = at & (num - 1);

	/* In runs that do not reach the ring's end: no wrap in the loop. */
	for (uint32_t k = 0; k < n; pos = 0) {
		struct gv_split_used_elem *const e = ring + pos;
		const struct gv_vqd_buf *const bk = b + k;
		const uint32_t *const lk = lens + k;
		uint32_t run = n - k;

		if (run > num - pos)
			run = num - pos;
		for (uint32_t j = 0; j < run; j++) {
			gv_store32(&e[j].id, bk[j].id);
			gv_store32(&e[j].len, lk[j]);
		}
		k += run;
	}
	if (gv_log_on(&d->log))
		for (uint32_t k = 0; k < n; k++)
			gv_log_mark(&d->log, d->addrs.device + 4 + 8ull * ((uint16_t)(at + k) & d->mask), 8);
	d->s.used_idx = (uint16_t)(at + n);
}

/*
 * The second half of a packed descriptor (len, id, flags) as one 64-bit
 * value. Written so only behind the batch's staged first descriptor,
 * which the driver reads first and sees as not used until publish: it
 * never reads these halves while they are being written.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define GVD_TAIL64 1
_Static_assert(__builtin_offsetof(struct gv_packed_desc, len) == 8, "packed desc layout");
_Static_assert(__builtin_offsetof(struct gv_packed_desc, id) == 12, "packed desc layout");
_Static_assert(__builtin_offsetof(struct gv_packed_desc, flags) == 14, "packed desc layout");
#else
#define GVD_TAIL64 0
#endif

static void packed_push_burst(struct gv_vqd *d, const struct gv_vqd_buf *b, const uint32_t *lens,
			      uint32_t n)
{
	struct gv_packed_desc *const ring = d->p.desc;
	const uint32_t num = d->num;
	uint16_t pos = d->p.used_idx;
	const uint16_t first = pos;
	uint8_t wrap = d->p.used_wrap;
	uint32_t k = 0;

	if (n && !d->p.have_staged) {
		/* The batch's first used descriptor: its flags wait for publish. */
		gv_store16(&ring[pos].id, b[0].id);
		gv_store32(&ring[pos].len, lens[0]);
		d->p.have_staged = 1;
		d->p.staged_pos = pos;
		d->p.staged_flags = wrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
		if (++pos == num) {
			pos = 0;
			wrap ^= 1;
		}
		k = 1;
	}
	/* In runs that do not reach the ring's end: no wrap in the loop. */
	while (k < n) {
		struct gv_packed_desc *const r = ring + pos;
		const struct gv_vqd_buf *const bk = b + k;
		const uint32_t *const lk = lens + k;
		const uint16_t flags = wrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
		const uint64_t tail = (uint64_t)flags << 48;
		uint32_t run = n - k;

		if (run > num - pos)
			run = num - pos;
		for (uint32_t j = 0; j < run; j++) {
			if (GVD_TAIL64) {
				gv_store64(&r[j].len, tail | (uint64_t)bk[j].id << 32 | lk[j]);
			} else {
				gv_store16(&r[j].id, bk[j].id);
				gv_store32(&r[j].len, lk[j]);
				gv_store16(&r[j].flags, flags);
			}
		}
		k += run;
		pos = (uint16_t)(pos + run);
		if (pos == num) {
			pos = 0;
			wrap ^= 1;
		}
	}
	if (gv_log_on(&d->log))
		for (k = 0; k < n; k++)
			gv_log_mark(&d->log, d->addrs.desc + 16ull * ((first + k) % num), 16);
	d->p.used_idx = pos;
	d->p.used_wrap = wrap;
	d->p.staged_slots += n;
}

void gv_vqd_push_burst(struct gv_vqd *d, const struct gv_vqd_buf *b, const uint32_t *lens,
		       uint32_t n)
{
	if (d->layout == GV_LAYOUT_SPLIT)
		split_push_burst(d, b, lens, n);
	else
		packed_push_burst(d, b, lens, n);
}
