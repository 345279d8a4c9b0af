/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_util.h - helpers shared by the cmocka tests (header only).
 *
 *  - memory: gvt_alloc() (aligned, zeroed, never NULL);
 *  - identity address translation: device address == pointer value;
 *  - struct gvt_q: a driver-end gv_vq and a device-end gv_vqd on the same
 *    ring, for a given layout / barrier / num / features (gvt_q_init);
 *  - a posted-buffer pool (gvt_pool) and cookie encoding (GVT_COOKIE);
 *  - raw access to the shared ring (split avail/used, packed descriptors
 *    and event structures) for tests that play a hostile device or
 *    driver, and a used-entry injector (gvt_inject_*);
 *  - parameterisation: struct gvt_param (layout + barrier) passed as the
 *    cmocka initial state, and GVT_TEST_* macros that expand one test
 *    function into one table entry per barrier mode (and layout).
 */
#ifndef GV_TEST_UTIL_H
#define GV_TEST_UTIL_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gv_ring_layout.h"
#include "gv_vq.h"
#include "gv_vqd.h"

/* ---------------------------------------------------------------- params */

struct gvt_param {
	enum gv_layout layout;
	enum gv_barrier barrier;
};

static const struct gvt_param gvt_p_split_smp = { GV_LAYOUT_SPLIT, GV_BARRIER_SMP };
static const struct gvt_param gvt_p_split_mand = { GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY };
static const struct gvt_param gvt_p_packed_smp = { GV_LAYOUT_PACKED, GV_BARRIER_SMP };
static const struct gvt_param gvt_p_packed_mand = { GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY };

#define GVT_ENTRY(f, tag, p) { #f "[" tag "]", f, NULL, NULL, (void *)&(p) }
/* One test function, split layout, both barrier modes. */
#define GVT_TEST_SPLIT(f) \
	GVT_ENTRY(f, "split,smp", gvt_p_split_smp), GVT_ENTRY(f, "split,mandatory", gvt_p_split_mand)
/* One test function, packed layout, both barrier modes. */
#define GVT_TEST_PACKED(f) \
	GVT_ENTRY(f, "packed,smp", gvt_p_packed_smp), GVT_ENTRY(f, "packed,mandatory", gvt_p_packed_mand)
/* Both layouts, both barrier modes. */
#define GVT_TEST_ALL(f) GVT_TEST_SPLIT(f), GVT_TEST_PACKED(f)

static inline const struct gvt_param *gvt_param(void **state)
{
	return (const struct gvt_param *)*state;
}

/* Run a group and exit non-zero on any failure. */
#define GVT_RUN(tests) (cmocka_run_group_tests(tests, NULL, NULL) ? 1 : 0)

/* ---------------------------------------------------------------- memory */

static inline void *gvt_alloc(size_t align, size_t size)
{
	size_t sz = gv_align_up(size ? size : 1, align);
	void *p = aligned_alloc(align, sz);

	assert_non_null(p);
	memset(p, 0, sz);
	return p;
}

/* Identity translation: device address == pointer value. */
static inline void *gvt_xlate(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	(void)len;
	if (addr == 0)
		return NULL;
	return (void *)(uintptr_t)addr;
}

static inline uint64_t gvt_iova(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static inline struct gv_seg gvt_seg(const void *p, uint32_t len)
{
	struct gv_seg s = { gvt_iova(p), len };
	return s;
}

/* Cookies are small integers + 1, never NULL. */
#define GVT_COOKIE(i) ((void *)(uintptr_t)((uint64_t)(i) + 1))
#define GVT_COOKIE_IDX(c) ((uint64_t)(uintptr_t)(c) - 1)

/* Deterministic PRNG (xorshift64*). */
static inline uint64_t gvt_rand(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A number below n (0 when n is 0), from the high half of gvt_rand(). */
static inline uint32_t gvt_below(uint64_t *s, uint32_t n)
{
	return n ? (uint32_t)(gvt_rand(s) >> 32) % n : 0;
}

/*
 * The differential tests' twin rings: a device-side store of `len` bytes
 * at `off`, the same into both rings.
 */
static inline void gvt_twin_put(uint8_t *a, uint8_t *b, size_t off, const void *v, size_t len)
{
	memcpy(a + off, v, len);
	memcpy(b + off, v, len);
}

static inline void gvt_shuffle_u32(uint32_t *a, uint32_t n, uint64_t *seed)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)(gvt_rand(seed) % i);
		uint32_t t = a[i - 1];

		a[i - 1] = a[j];
		a[j] = t;
	}
}

/* ------------------------------------------------------------ buffer pool */

struct gvt_pool {
	uint8_t *mem;
	uint32_t n;
	uint32_t size;
};

static inline void gvt_pool_init(struct gvt_pool *p, uint32_t n, uint32_t size)
{
	p->n = n;
	p->size = size;
	p->mem = (uint8_t *)gvt_alloc(64, (size_t)n * size);
}

static inline uint8_t *gvt_pool_buf(const struct gvt_pool *p, uint32_t i)
{
	return p->mem + (size_t)(i % p->n) * p->size;
}

static inline void gvt_pool_free(struct gvt_pool *p)
{
	free(p->mem);
	p->mem = NULL;
}

/* --------------------------------------------------- driver + device pair */

struct gvt_q {
	struct gv_vq_config cfg;
	struct gv_vqd_config dcfg;
	struct gv_vq *vq;
	struct gv_vqd *vqd;
	struct gv_ring_addrs addrs;
	size_t ring_bytes;
	void *ring;
	void *indirect;
};

/*
 * Set up a driver end (and, when it succeeds, a device end on the same
 * ring). `align` is the split used-ring alignment (0 = 4). With
 * GV_VQ_F_INDIRECT and max_indirect > 0 the indirect tables are allocated.
 * Returns gv_vq_init()'s result; on failure everything is freed.
 */
static inline int gvt_q_init_align(struct gvt_q *q, enum gv_layout layout, enum gv_barrier barrier,
				   uint32_t num, uint32_t features, uint16_t max_indirect,
				   uint32_t align)
{
	int rc;

	memset(q, 0, sizeof(*q));
	q->ring_bytes = gv_ring_size(layout, num, align);
	assert_true(q->ring_bytes > 0);
	q->ring = gvt_alloc(4096, q->ring_bytes);
	q->vq = (struct gv_vq *)gvt_alloc(64, gv_vq_state_size(layout, num));
	q->vqd = (struct gv_vqd *)gvt_alloc(64, gv_vqd_state_size());
	if ((features & GV_VQ_F_INDIRECT) && max_indirect)
		q->indirect = gvt_alloc(64, (size_t)num * max_indirect * 16);

	q->cfg.layout = layout;
	q->cfg.barrier = barrier;
	q->cfg.num = num;
	q->cfg.features = features;
	q->cfg.ring = q->ring;
	q->cfg.ring_iova = gvt_iova(q->ring);
	q->cfg.align = align;
	q->cfg.indirect = q->indirect;
	q->cfg.indirect_iova = q->indirect ? gvt_iova(q->indirect) : 0;
	q->cfg.max_indirect = max_indirect;

	rc = gv_vq_init(q->vq, &q->cfg);
	if (rc) {
		free(q->ring);
		free(q->vq);
		free(q->vqd);
		free(q->indirect);
		memset(q, 0, sizeof(*q));
		return rc;
	}
	gv_vq_addrs(q->vq, &q->addrs);

	q->dcfg.layout = layout;
	q->dcfg.barrier = barrier;
	q->dcfg.num = num;
	q->dcfg.features = features & (GV_VQ_F_EVENT_IDX | GV_VQ_F_INDIRECT | GV_VQ_F_IN_ORDER);
	q->dcfg.addrs = q->addrs;
	q->dcfg.xlate = gvt_xlate;
	q->dcfg.xlate_ctx = NULL;
	assert_int_equal(gv_vqd_init(q->vqd, &q->dcfg), 0);
	assert_false(gv_vqd_broken(q->vqd));
	return 0;
}

static inline int gvt_q_init(struct gvt_q *q, enum gv_layout layout, enum gv_barrier barrier,
			     uint32_t num, uint32_t features, uint16_t max_indirect)
{
	return gvt_q_init_align(q, layout, barrier, num, features, max_indirect, 0);
}

/* gvt_q_init that must succeed, taking the layout/barrier from a param. */
static inline void gvt_q_setup(struct gvt_q *q, const struct gvt_param *p, uint32_t num,
			       uint32_t features, uint16_t max_indirect)
{
	assert_int_equal(gvt_q_init(q, p->layout, p->barrier, num, features, max_indirect), 0);
}

/* Device reset: re-initialise the device end on the same ring. */
static inline void gvt_vqd_reinit(struct gvt_q *q)
{
	memset(q->vqd, 0, gv_vqd_state_size());
	assert_int_equal(gv_vqd_init(q->vqd, &q->dcfg), 0);
}

/* Reset both ends (driver gv_vq_reset + device re-init). */
static inline void gvt_q_reset(struct gvt_q *q)
{
	gv_vq_reset(q->vq);
	gvt_vqd_reinit(q);
}

static inline void gvt_q_free(struct gvt_q *q)
{
	free(q->ring);
	free(q->vq);
	free(q->vqd);
	free(q->indirect);
	memset(q, 0, sizeof(*q));
}

/* ------------------------------------------------------ simple round trips */

/* Post one one-segment chain (writable or readable). */
static inline int gvt_post1(struct gvt_q *q, void *buf, uint32_t len, bool writable, void *cookie)
{
	struct gv_seg s = gvt_seg(buf, len);

	return gv_vq_add(q->vq, &s, writable ? 0 : 1, writable ? 1 : 0, cookie, false);
}

/*
 * Device: take every available chain (at most `max`, into `chains` when
 * not NULL) and return each with len = its writable length, then
 * publish. Returns the number of chains.
 */
static inline uint32_t gvt_dev_echo(struct gvt_q *q, uint32_t max)
{
	struct gv_chain *c = (struct gv_chain *)malloc(sizeof(*c));
	uint32_t n = 0;

	assert_non_null(c);
	while (n < max) {
		int rc = gv_vqd_take(q->vqd, c);

		assert_true(rc == 0 || rc == 1);
		if (rc == 0)
			break;
		gv_vqd_push(q->vqd, c->id, c->ndesc, c->in_len);
		n++;
	}
	gv_vqd_publish(q->vqd);
	free(c);
	return n;
}

/*
 * One full round trip of a single writable buffer: post, flush, device
 * echoes it, driver takes it back; checks cookie and length.
 */
static inline void gvt_roundtrip1(struct gvt_q *q, void *buf, uint32_t len, void *cookie)
{
	void *ck = NULL;
	uint32_t l = 0;

	assert_int_equal(gvt_post1(q, buf, len, true, cookie), 0);
	gv_vq_flush(q->vq);
	assert_int_equal(gvt_dev_echo(q, 1), 1);
	assert_int_equal(gv_vq_get_used(q->vq, &ck, &l, 1), 1);
	assert_ptr_equal(ck, cookie);
	assert_int_equal(l, len);
}

/* What a gv_vq_watch condition says now: true for "do not sleep". */
static inline bool gvt_watch_wakes(const struct gv_vq_watch *w)
{
	uint16_t v;

	assert_non_null(w->addr);
	v = *(volatile uint16_t *)w->addr;
	return ((v & w->mask) == w->value) == w->when_equal;
}

/* ------------------------------------------------------ raw ring access */

static inline struct gv_split_desc *gvt_split_desc(const struct gvt_q *q)
{
	return (struct gv_split_desc *)(uintptr_t)q->addrs.desc;
}

static inline struct gv_split_avail *gvt_split_avail(const struct gvt_q *q)
{
	return (struct gv_split_avail *)(uintptr_t)q->addrs.driver;
}

static inline struct gv_split_used *gvt_split_used(const struct gvt_q *q)
{
	return (struct gv_split_used *)(uintptr_t)q->addrs.device;
}

/* Split: used_event lives after the avail ring, avail_event after used. */
static inline uint16_t *gvt_split_used_event(const struct gvt_q *q)
{
	return &gvt_split_avail(q)->ring[q->cfg.num];
}

static inline uint16_t *gvt_split_avail_event(const struct gvt_q *q)
{
	return (uint16_t *)&gvt_split_used(q)->ring[q->cfg.num];
}

static inline struct gv_packed_desc *gvt_packed_desc(const struct gvt_q *q)
{
	return (struct gv_packed_desc *)(uintptr_t)q->addrs.desc;
}

/* Packed: driver event suppression (written by the driver). */
static inline struct gv_packed_event *gvt_packed_drv_event(const struct gvt_q *q)
{
	return (struct gv_packed_event *)(uintptr_t)q->addrs.driver;
}

/* Packed: device event suppression (written by the device). */
static inline struct gv_packed_event *gvt_packed_dev_event(const struct gvt_q *q)
{
	return (struct gv_packed_event *)(uintptr_t)q->addrs.device;
}

/*
 * Used-entry injector: the test writes used entries straight into shared
 * memory, playing the device. Split: the position is the used->idx in
 * memory. Packed: the test tracks the device's used position and wrap
 * counter itself (fresh ring: pos 0, wrap 1); gvt_inject_sync() sets them.
 */
struct gvt_inject {
	uint16_t pos; /* packed: next used slot */
	bool wrap; /* packed: device used wrap counter */
};

static inline void gvt_inject_init(struct gvt_inject *in)
{
	in->pos = 0;
	in->wrap = true;
}

/* Advance the packed position by `ndesc` slots (the device used them). */
static inline void gvt_inject_skip(const struct gvt_q *q, struct gvt_inject *in, uint32_t ndesc)
{
	uint32_t p = (uint32_t)in->pos + ndesc;

	while (p >= q->cfg.num) {
		p -= q->cfg.num;
		in->wrap = !in->wrap;
	}
	in->pos = (uint16_t)p;
}

/* Packed: write a raw descriptor's id/len and then its flags. */
static inline void gvt_packed_write(const struct gvt_q *q, uint16_t pos, uint16_t id, uint32_t len,
				    uint16_t flags)
{
	struct gv_packed_desc *d = &gvt_packed_desc(q)[pos];

	d->id = id;
	d->len = len;
	__atomic_store_n(&d->flags, flags, __ATOMIC_RELEASE);
}

/* Write the packed used flags for wrap counter `w` (AVAIL == USED == w). */
static inline uint16_t gvt_packed_used_flags(bool w)
{
	return w ? (uint16_t)(GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
}

/*
 * Publish one used entry (id, len) for a chain of `ndesc` slots, as a
 * (possibly hostile) device would: split writes used->ring[idx] and bumps
 * used->idx by one; packed writes the descriptor at the tracked position
 * with the used flags and advances by ndesc.
 */
static inline void gvt_inject_used(const struct gvt_q *q, struct gvt_inject *in, uint32_t id,
				   uint32_t len, uint32_t ndesc)
{
	if (q->cfg.layout == GV_LAYOUT_SPLIT) {
		struct gv_split_used *u = gvt_split_used(q);
		uint16_t idx = u->idx;

		u->ring[idx & (q->cfg.num - 1)].id = id;
		u->ring[idx & (q->cfg.num - 1)].len = len;
		__atomic_store_n(&u->idx, (uint16_t)(idx + 1), __ATOMIC_RELEASE);
	} else {
		gvt_packed_write(q, in->pos, (uint16_t)id, len, gvt_packed_used_flags(in->wrap));
		gvt_inject_skip(q, in, ndesc);
	}
}

/* Driver stats helpers. */
static inline uint64_t gvt_stats_total(const struct gv_vq_stats *s)
{
	return s->bad_id + s->id_not_inflight + s->bad_len + s->bad_flags + s->bad_used_idx +
	       s->bad_order;
}

static inline struct gv_vq_stats gvt_stats(const struct gvt_q *q)
{
	struct gv_vq_stats s;

	memset(&s, 0xa5, sizeof(s));
	gv_vq_stats(q->vq, &s);
	return s;
}

#endif /* GV_TEST_UTIL_H */
