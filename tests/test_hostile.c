/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_hostile.c - each end against a misbehaving other end, both layouts,
 * both barrier modes. The test writes bad values straight into the shared
 * ring memory.
 *
 * Hostile device (driver end must count, break, and stay safe):
 *   bad_id              used id >= num
 *   never_posted        used id in range but not in flight
 *   never_available     split: a chain added and not flushed, returned:
 *                       published by the get first; an index beyond
 *                       what is published breaks
 *   returned_twice      an id returned again (same batch / later batch)
 *   pending_bounded     used_pending never exceeds what is in flight
 *   bad_len             length > writable bytes (shorter is accepted)
 *   bad_len_readonly    any length on a chain with no writable segment is
 *                       accepted and reported as 0 (nothing to overrun)
 *   bad_used_idx        split: used->idx ahead of what is in flight
 *   bad_flags           packed: USED bit says "used" but AVAIL contradicts
 *   bad_order           IN_ORDER: a used id out of posting order
 * Every case checks: the valid entries before the bad one are returned,
 * gv_vq_broken(), every later verb fails (and the power monitor's
 * condition never wakes), exactly one stat counted, detach returns each
 * outstanding cookie once, and gv_vq_reset recovers.
 *
 * Batches that are legal but easy to get wrong (the queue stays healthy):
 *   stale_batch         packed IN_ORDER: a batch left open by reclaim ends
 *                       when get_used takes its last chain
 *   watch_batch         packed IN_ORDER: the power monitor's condition
 *                       (gv_vq_watch) says "do not sleep" while part of a
 *                       batch the device returned as one entry is left
 *
 * Hostile driver (device end must refuse with -EIO and count bad_chains):
 *   split next loop / self loop / next out of range, split avail index
 *   ahead by more than num / head out of range, packed chain longer than
 *   the ring, indirect table len 0 / not a multiple of 16 / nested
 *   indirect / next out of the table, writable before readable, an
 *   untranslatable address.
 */
#include "gv_test_util.h"

enum { NUM = 8 };

static uint8_t g_buf[NUM][256];

enum which {
	W_BAD_ID = offsetof(struct gv_vq_stats, bad_id),
	W_NOT_INFLIGHT = offsetof(struct gv_vq_stats, id_not_inflight),
	W_BAD_LEN = offsetof(struct gv_vq_stats, bad_len),
	W_BAD_FLAGS = offsetof(struct gv_vq_stats, bad_flags),
	W_BAD_USED_IDX = offsetof(struct gv_vq_stats, bad_used_idx),
	W_BAD_ORDER = offsetof(struct gv_vq_stats, bad_order),
};

static void check_stats_one(struct gvt_q *q, enum which w)
{
	struct gv_vq_stats s = gvt_stats(q);
	const size_t offs[] = { W_BAD_ID,    W_NOT_INFLIGHT, W_BAD_LEN,
				W_BAD_FLAGS, W_BAD_USED_IDX, W_BAD_ORDER };

	_Static_assert(sizeof(struct gv_vq_stats) == 6 * sizeof(uint64_t), "new stat: add it here");
	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		uint64_t v;

		memcpy(&v, (const char *)&s + offs[i], 8);
		if (v != (offs[i] == (size_t)w ? 1u : 0u))
			fail_msg("stat at offset %zu is %llu (expected %d)", offs[i],
				 (unsigned long long)v, offs[i] == (size_t)w);
	}
}

/* The power monitor's condition, taken and read now: true for "do not sleep". */
static bool watch_wakes(const struct gv_vq *vq)
{
	struct gv_vq_watch w;

	gv_vq_watch(vq, &w);
	return gvt_watch_wakes(&w);
}

/*
 * After the bad entry: broken, verbs fail, one stat; detach gives back the
 * cookies in `outstanding` (bitmask of cookie indices) once each; reset
 * and a few laps of round trips work.
 */
static void check_broken(struct gvt_q *q, enum which w, uint32_t outstanding)
{
	struct gv_seg s = gvt_seg(g_buf[0], 16);
	void *ck[NUM];
	void *bck[1] = { GVT_COOKIE(77) };
	uint32_t lens[NUM], seen = 0;
	void *d;

	assert_true(gv_vq_broken(q->vq));
	check_stats_one(q, w);
	assert_int_equal(gv_vq_get_used(q->vq, ck, lens, NUM), 0);
	assert_int_equal(gv_vq_used_pending(q->vq), 0);
	assert_int_equal(gv_vq_add(q->vq, &s, 0, 1, GVT_COOKIE(77), false), -EIO);
	assert_int_equal(gv_vq_add(q->vq, &s, 1, 0, GVT_COOKIE(77), false), -EIO);
	assert_int_equal(gv_vq_add_burst(q->vq, &s, bck, 1, true), 0);
	assert_int_equal(gv_vq_reclaim_in_order(q->vq, ck, NUM), 0);
	assert_false(gv_vq_kick_prepare(q->vq));
	assert_false(watch_wakes(q->vq)); /* a broken queue: nothing to wake for */
	gv_vq_flush(q->vq);
	assert_int_equal(gv_vq_get_used(q->vq, ck, lens, NUM), 0);
	assert_true(gv_vq_broken(q->vq));
	check_stats_one(q, w);

	while ((d = gv_vq_detach(q->vq)) != NULL) {
		uint64_t i = GVT_COOKIE_IDX(d);

		if (i >= 32 || !(outstanding & (1u << i)) || (seen & (1u << i)))
			fail_msg("detach returned unexpected cookie %llu", (unsigned long long)i);
		seen |= 1u << i;
	}
	assert_int_equal(seen, outstanding);
	assert_null(gv_vq_detach(q->vq));

	gvt_q_reset(q);
	assert_false(gv_vq_broken(q->vq));
	assert_int_equal(gv_vq_num_free(q->vq), NUM);
	assert_int_equal(gv_vq_inflight(q->vq), 0);
	assert_int_equal(gv_vq_used_pending(q->vq), 0);
	for (int i = 0; i < 3 * NUM + 1; i++)
		gvt_roundtrip1(q, g_buf[i % NUM], 64, GVT_COOKIE(1000 + i));
	assert_false(gv_vq_broken(q->vq));
	/* Leave a fresh ring for the next case (injector at slot 0, wrap 1). */
	gvt_q_reset(q);
}

/* Post n chains (cookie i: 1 out + 1 in of 100 writable bytes), take them. */
static void post_take(struct gvt_q *q, uint32_t n, uint16_t *ids)
{
	struct gv_chain c;

	for (uint32_t i = 0; i < n; i++) {
		struct gv_seg s[2] = { gvt_seg(g_buf[i], 20), gvt_seg(g_buf[i] + 128, 100) };

		assert_int_equal(gv_vq_add(q->vq, s, 1, 1, GVT_COOKIE(i), false), 0);
	}
	gv_vq_flush(q->vq);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(gv_vqd_take(q->vqd, &c), 1);
		assert_int_equal(c.seg[0].addr, gvt_iova(g_buf[i]));
		ids[i] = c.id;
	}
}

static uint32_t get_all(struct gvt_q *q, void **ck, uint32_t *lens)
{
	return gv_vq_get_used(q->vq, ck, lens, NUM);
}

/* -------------------------------------------------------- hostile device */

static void t_bad_id(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint32_t bad[] = { NUM, NUM + 1, 0xffff, 0x10000u + 0, 0xffffffffu };
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[3];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	for (size_t b = 0; b < sizeof(bad) / sizeof(bad[0]); b++) {
		/* Packed ids are 16 bits wide: 0x10000 would read as 0. */
		if (p->layout == GV_LAYOUT_PACKED && bad[b] > 0xffff)
			continue;
		gvt_inject_init(&in);
		post_take(&q, 3, ids);
		gvt_inject_used(&q, &in, ids[0], 10, 2);
		gvt_inject_used(&q, &in, bad[b], 10, 2);
		assert_int_equal(get_all(&q, ck, lens), 1);
		assert_ptr_equal(ck[0], GVT_COOKIE(0));
		assert_int_equal(lens[0], 10);
		check_broken(&q, W_BAD_ID, 0x6);
	}
	gvt_q_free(&q);
}

static void t_never_posted(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[2];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	for (uint32_t x = 0; x < NUM; x++) {
		gvt_inject_init(&in);
		post_take(&q, 2, ids);
		if (x == ids[0] || x == ids[1]) {
			/* Not a bad id for this layout; just finish the lap. */
			gvt_q_reset(&q);
			continue;
		}
		/* Valid, then an id that is in range but was never posted. */
		gvt_inject_used(&q, &in, ids[1], 100, 2);
		gvt_inject_used(&q, &in, x, 0, 2);
		assert_int_equal(get_all(&q, ck, lens), 1);
		assert_ptr_equal(ck[0], GVT_COOKIE(1));
		assert_int_equal(lens[0], 100);
		check_broken(&q, W_NOT_INFLIGHT, 0x1);
	}
	gvt_q_free(&q);
}

/*
 * A chain added but not flushed, returned by the device (it was never
 * made available): the get publishes it before it reads the used entries,
 * so the chain the driver takes back was the device's, and no later flush
 * hands the device an avail entry whose descriptors are free. A used index
 * beyond what is published then breaks the queue.
 */
static void t_never_available(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_seg s = gvt_seg(g_buf[1] + 128, 100);
	struct gv_split_avail *a;
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[1], held;
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	a = gvt_split_avail(&q);
	gvt_inject_init(&in);
	post_take(&q, 1, ids);
	assert_int_equal(gv_vq_add(q.vq, &s, 0, 1, GVT_COOKIE(1), false), 0);
	held = a->ring[1];
	assert_int_not_equal(held, ids[0]);
	assert_int_equal(a->idx, 1);
	gvt_inject_used(&q, &in, held, 10, 1);
	assert_int_equal(get_all(&q, ck, lens), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(1));
	assert_int_equal(a->idx, 2); /* published before it was taken back */
	gv_vq_flush(q.vq);
	assert_int_equal(a->idx, 2); /* and nothing left to publish */
	assert_false(gv_vq_broken(q.vq));

	/* The index counts one more chain than the device was given. */
	gvt_inject_used(&q, &in, ids[0], 10, 1);
	gvt_inject_used(&q, &in, ids[0], 10, 1);
	assert_int_equal(get_all(&q, ck, lens), 0);
	check_broken(&q, W_BAD_USED_IDX, 0x1);
	gvt_q_free(&q);
}

static void t_returned_twice(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[3];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	/* Twice in the same batch. */
	gvt_inject_init(&in);
	post_take(&q, 3, ids);
	gvt_inject_used(&q, &in, ids[1], 5, 2);
	gvt_inject_used(&q, &in, ids[1], 5, 2);
	assert_int_equal(get_all(&q, ck, lens), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(1));
	check_broken(&q, W_NOT_INFLIGHT, 0x5);

	/* Again in a later batch, after the driver took it back. */
	gvt_inject_init(&in);
	post_take(&q, 3, ids);
	gvt_inject_used(&q, &in, ids[0], 7, 2);
	assert_int_equal(get_all(&q, ck, lens), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(0));
	assert_int_equal(lens[0], 7);
	assert_false(gv_vq_broken(q.vq));
	gvt_inject_used(&q, &in, ids[2], 8, 2);
	gvt_inject_used(&q, &in, ids[0], 7, 2);
	assert_int_equal(get_all(&q, ck, lens), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(2));
	assert_int_equal(lens[0], 8);
	check_broken(&q, W_NOT_INFLIGHT, 0x2);
	gvt_q_free(&q);
}

/*
 * One short chain published again and again while a longer one is in
 * flight: used_pending is a hint, but never more than what is in flight
 * (packed walks the ring by our own chain sizes, so the short chain fits
 * the longer one's slots several times).
 */
static void t_pending_bounded(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_seg s[4] = { gvt_seg(g_buf[0], 20), gvt_seg(g_buf[1], 100),
			       gvt_seg(g_buf[2], 100), gvt_seg(g_buf[3], 100) };
	struct gvt_q q;
	struct gvt_inject in;
	struct gv_chain c;
	uint16_t short_id;
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	gvt_inject_init(&in);
	assert_int_equal(gv_vq_add(q.vq, s, 1, 0, GVT_COOKIE(0), false), 0);
	assert_int_equal(gv_vq_add(q.vq, s, 1, 3, GVT_COOKIE(1), false), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
	short_id = c.id;
	assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
	for (int i = 0; i < 5; i++)
		gvt_inject_used(&q, &in, short_id, 0, 1);
	assert_int_equal(gv_vq_inflight(q.vq), 2);
	assert_true(gv_vq_used_pending(q.vq) <= 2);
	if (p->layout == GV_LAYOUT_SPLIT) {
		/* used->idx 5 ahead with 2 in flight: refused before any entry. */
		assert_int_equal(get_all(&q, ck, lens), 0);
		check_broken(&q, W_BAD_USED_IDX, 0x3);
	} else {
		assert_int_equal(get_all(&q, ck, lens), 1);
		assert_ptr_equal(ck[0], GVT_COOKIE(0));
		check_broken(&q, W_NOT_INFLIGHT, 0x2);
	}
	gvt_q_free(&q);
}

static void t_bad_len(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[4];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	/* Each chain: 20 readable + 100 writable bytes. */
	gvt_inject_init(&in);
	post_take(&q, 4, ids);
	gvt_inject_used(&q, &in, ids[0], 0, 2); /* shorter: fine */
	gvt_inject_used(&q, &in, ids[1], 99, 2); /* shorter: fine */
	gvt_inject_used(&q, &in, ids[2], 100, 2); /* exact: fine */
	gvt_inject_used(&q, &in, ids[3], 101, 2); /* < 120 total, > 100 writable */
	assert_int_equal(get_all(&q, ck, lens), 3);
	assert_ptr_equal(ck[0], GVT_COOKIE(0));
	assert_ptr_equal(ck[1], GVT_COOKIE(1));
	assert_ptr_equal(ck[2], GVT_COOKIE(2));
	assert_int_equal(lens[0], 0);
	assert_int_equal(lens[1], 99);
	assert_int_equal(lens[2], 100);
	check_broken(&q, W_BAD_LEN, 0x8);

	gvt_inject_init(&in);
	post_take(&q, 2, ids);
	gvt_inject_used(&q, &in, ids[1], 0xffffffffu, 2);
	assert_int_equal(get_all(&q, ck, lens), 0);
	check_broken(&q, W_BAD_LEN, 0x3);
	gvt_q_free(&q);
}

static void t_bad_len_readonly(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	struct gv_chain c;
	uint16_t ids[2];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	gvt_inject_init(&in);
	for (int i = 0; i < 2; i++)
		assert_int_equal(gvt_post1(&q, g_buf[i], 64, false, GVT_COOKIE(i)), 0);
	gv_vq_flush(q.vq);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
		ids[i] = c.id;
	}
	/*
	 * Nothing was writable, so any length is meaningless and harmless:
	 * accepted and reported as 0 (DPDK's vhost writes one on packed TX).
	 */
	gvt_inject_used(&q, &in, ids[0], 0, 1);
	gvt_inject_used(&q, &in, ids[1], 4096, 1);
	assert_int_equal(get_all(&q, ck, lens), 2);
	assert_ptr_equal(ck[0], GVT_COOKIE(0));
	assert_ptr_equal(ck[1], GVT_COOKIE(1));
	assert_int_equal(lens[0], 0);
	assert_int_equal(lens[1], 0);
	assert_false(gv_vq_broken(q.vq));
	{
		struct gv_vq_stats st;

		gv_vq_stats(q.vq, &st);
		assert_int_equal(st.bad_len, 0);
	}
	gvt_q_free(&q);
}

static void t_bad_used_idx(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint16_t jumps[] = { 2, 3, 100, 0x8000, 0xffff };
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[2];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	for (size_t j = 0; j < sizeof(jumps) / sizeof(jumps[0]); j++) {
		struct gv_split_used *u = gvt_split_used(&q);

		gvt_inject_init(&in);
		post_take(&q, 2, ids);
		gvt_inject_used(&q, &in, ids[0], 1, 2);
		assert_int_equal(get_all(&q, ck, lens), 1);
		assert_ptr_equal(ck[0], GVT_COOKIE(0));
		/* One chain in flight; the index claims more. */
		u->ring[u->idx & (NUM - 1)].id = ids[1];
		u->ring[u->idx & (NUM - 1)].len = 1;
		__atomic_store_n(&u->idx, (uint16_t)(u->idx + jumps[j]), __ATOMIC_RELEASE);
		assert_true(gv_vq_used_pending(q.vq) <= 1);
		assert_int_equal(get_all(&q, ck, lens), 0);
		check_broken(&q, W_BAD_USED_IDX, 0x2);
	}
	gvt_q_free(&q);
}

static void t_bad_flags(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[2];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	for (int lap = 0; lap < 2; lap++) {
		uint16_t bad;

		gvt_inject_init(&in);
		if (lap == 1) {
			/* One lap of good traffic first: driver used wrap is 0. */
			for (int i = 0; i < NUM; i++)
				gvt_roundtrip1(&q, g_buf[i], 64, GVT_COOKIE(500 + i));
			gvt_inject_skip(&q, &in, NUM);
			assert_false(in.wrap);
		}
		post_take(&q, 2, ids);
		gvt_inject_used(&q, &in, ids[0], 3, 2);
		/* USED bit matches the driver's wrap counter, AVAIL does not. */
		bad = in.wrap ? GV_DESC_F_USED : GV_DESC_F_AVAIL;
		gvt_packed_write(&q, in.pos, ids[1], 3, bad);
		assert_int_equal(get_all(&q, ck, lens), 1);
		assert_ptr_equal(ck[0], GVT_COOKIE(0));
		assert_int_equal(lens[0], 3);
		check_broken(&q, W_BAD_FLAGS, 0x2);
	}
	gvt_q_free(&q);
}

/* IN_ORDER negotiated, but the device skips a chain. */
static void t_bad_order(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[3];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, GV_VQ_F_IN_ORDER, 0);
	gvt_inject_init(&in);
	post_take(&q, 3, ids);
	gvt_inject_used(&q, &in, ids[0], 4, 2);
	gvt_inject_used(&q, &in, ids[2], 4, 2);
	assert_int_equal(get_all(&q, ck, lens), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(0));
	assert_int_equal(lens[0], 4);
	check_broken(&q, W_BAD_ORDER, 0x6);
	gvt_q_free(&q);
}

/* Post n one-descriptor chains (cookie base+i, 100 writable bytes), take them. */
static void post_take1(struct gvt_q *q, uint32_t n, uint32_t base, uint16_t *ids)
{
	struct gv_chain c;

	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(gvt_post1(q, g_buf[i], 100, true, GVT_COOKIE(base + i)), 0);
	gv_vq_flush(q->vq);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(gv_vqd_take(q->vqd, &c), 1);
		ids[i] = c.id;
	}
}

/*
 * IN_ORDER, packed: a used descriptor closes a batch of three chains,
 * reclaim takes one of them and leaves the batch open; the device then
 * also writes the other two at their own positions and get_used takes
 * them. Nothing of the batch is left: chains posted afterwards are not
 * done until the device says so (a batch left open would hand them out).
 * One-descriptor chains, so the burst verbs' fast loop sees them.
 */
static void t_stale_batch(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in, mid;
	uint16_t ids[3], ids2[2];
	void *ck[NUM];
	uint32_t lens[NUM];

	gvt_q_setup(&q, p, NUM, GV_VQ_F_IN_ORDER, 0);
	gvt_inject_init(&in);
	post_take1(&q, 3, 0, ids);
	mid = in;
	gvt_inject_used(&q, &in, ids[2], 0, 3);
	gvt_inject_skip(&q, &mid, 1);
	gvt_inject_used(&q, &mid, ids[1], 4, 1);
	gvt_inject_used(&q, &mid, ids[2], 4, 1);
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, 1), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(0));
	assert_int_equal(get_all(&q, ck, lens), 2);
	assert_ptr_equal(ck[0], GVT_COOKIE(1));
	assert_ptr_equal(ck[1], GVT_COOKIE(2));
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	assert_int_equal(gv_vq_used_pending(q.vq), 0);

	/* Two more chains: in flight until the device returns them. */
	post_take1(&q, 2, 3, ids2);
	assert_int_equal(gv_vq_used_pending(q.vq), 0);
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, NUM), 0);
	assert_int_equal(get_all(&q, ck, lens), 0);
	assert_int_equal(gv_vq_inflight(q.vq), 2);
	gvt_inject_used(&q, &in, ids2[1], 0, 2);
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, NUM), 2);
	assert_ptr_equal(ck[0], GVT_COOKIE(3));
	assert_ptr_equal(ck[1], GVT_COOKIE(4));
	assert_false(gv_vq_broken(q.vq));
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	gvt_q_free(&q);
}

/* --------------------------------------------------------- hostile driver */

static void expect_bad_chain(struct gvt_q *q)
{
	struct gv_chain c;
	struct gv_vqd_stats s;

	assert_int_equal(gv_vqd_take(q->vqd, &c), -EIO);
	assert_true(gv_vqd_broken(q->vqd));
	gv_vqd_stats(q->vqd, &s);
	assert_int_equal(s.bad_chains, 1);
	assert_true(gv_vqd_take(q->vqd, &c) != 1);
	assert_true(gv_vqd_broken(q->vqd));
}

/* Post a 3-segment chain (and before it a good one), return the head. */
static uint16_t post_chain3(struct gvt_q *q, bool take_good)
{
	struct gv_seg s[3] = { gvt_seg(g_buf[0], 16), gvt_seg(g_buf[1], 16), gvt_seg(g_buf[2], 16) };
	struct gv_chain c;

	assert_int_equal(gvt_post1(q, g_buf[3], 16, true, GVT_COOKIE(9)), 0);
	assert_int_equal(gv_vq_add(q->vq, s, 1, 2, GVT_COOKIE(1), false), 0);
	gv_vq_flush(q->vq);
	if (take_good) {
		assert_int_equal(gv_vqd_take(q->vqd, &c), 1);
		assert_int_equal(c.nseg, 1);
	}
	return q->cfg.layout == GV_LAYOUT_SPLIT ? gvt_split_avail(q)->ring[1] : 1;
}

static void t_dev_split_loops(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;

	for (int v = 0; v < 4; v++) {
		struct gv_split_desc *d;
		uint16_t head, n1, n2;

		gvt_q_setup(&q, p, NUM, 0, 0);
		d = gvt_split_desc(&q);
		head = post_chain3(&q, true);
		n1 = d[head].next;
		n2 = d[n1].next;
		switch (v) {
		case 0: /* last -> head */
			d[n2].flags |= GV_DESC_F_NEXT;
			d[n2].next = head;
			break;
		case 1: /* last -> middle */
			d[n2].flags |= GV_DESC_F_NEXT;
			d[n2].next = n1;
			break;
		case 2: /* self loop */
			d[n1].next = n1;
			break;
		case 3: /* next out of range */
			d[n1].next = NUM;
			break;
		}
		expect_bad_chain(&q);
		gvt_q_free(&q);
	}
}

static void t_dev_packed_too_long(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_packed_desc *d;

	gvt_q_setup(&q, p, NUM, 0, 0);
	d = gvt_packed_desc(&q);
	(void)post_chain3(&q, true); /* good chain at slot 0, ours at 1..3 */
	/* Every slot available in this lap, all with NEXT: no end in sight. */
	d[0].flags |= GV_DESC_F_NEXT; /* slot 0 was already taken */
	for (int i = 1; i < NUM; i++) {
		d[i].addr = gvt_iova(g_buf[i]);
		d[i].len = 16;
		d[i].flags = GV_DESC_F_AVAIL | GV_DESC_F_NEXT | GV_DESC_F_WRITE;
	}
	expect_bad_chain(&q);
	gvt_q_free(&q);
}

/*
 * Malformed indirect tables: len 0 / not a multiple of 16, a nested
 * INDIRECT entry, and (split) a table-internal next out of range.
 */
static void t_dev_indirect_bad(void **state)
{
	const struct gvt_param *p = gvt_param(state);

	for (int v = 0; v < 6; v++) {
		const uint32_t bad_len[] = { 0, 17, 40, 8 };
		struct gvt_q q;
		struct gv_seg s[3] = { gvt_seg(g_buf[0], 16), gvt_seg(g_buf[1], 16), gvt_seg(g_buf[2], 16) };
		struct gv_chain c;
		uint32_t *len;
		uint64_t tbl_addr;

		if (v == 5 && p->layout == GV_LAYOUT_PACKED)
			continue; /* packed tables are sequential: no next field */
		gvt_q_setup(&q, p, NUM, GV_VQ_F_INDIRECT, 4);
		assert_int_equal(gvt_post1(&q, g_buf[3], 16, true, GVT_COOKIE(9)), 0);
		assert_int_equal(gv_vq_add(q.vq, s, 1, 2, GVT_COOKIE(1), true), 0);
		gv_vq_flush(q.vq);
		assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
		if (p->layout == GV_LAYOUT_SPLIT) {
			struct gv_split_desc *d = &gvt_split_desc(&q)[gvt_split_avail(&q)->ring[1]];

			assert_true(d->flags & GV_DESC_F_INDIRECT);
			len = &d->len;
			tbl_addr = d->addr;
		} else {
			assert_true(gvt_packed_desc(&q)[1].flags & GV_DESC_F_INDIRECT);
			len = &gvt_packed_desc(&q)[1].len;
			tbl_addr = gvt_packed_desc(&q)[1].addr;
		}
		assert_int_equal(*len, 48);
		if (v < 4) {
			*len = bad_len[v];
		} else if (v == 4) {
			/* Entry 1 of the table claims to be an indirect table. */
			if (p->layout == GV_LAYOUT_SPLIT)
				((struct gv_split_desc *)(uintptr_t)tbl_addr)[1].flags |= GV_DESC_F_INDIRECT;
			else
				((struct gv_packed_desc *)(uintptr_t)tbl_addr)[1].flags |= GV_DESC_F_INDIRECT;
		} else {
			struct gv_split_desc *t = (struct gv_split_desc *)(uintptr_t)tbl_addr;

			assert_true(t[0].flags & GV_DESC_F_NEXT);
			t[0].next = 3; /* the table has 3 entries */
		}
		expect_bad_chain(&q);
		gvt_q_free(&q);
	}
}

/* Split: an avail index that runs ahead of the ring, or a head >= num. */
static void t_dev_split_avail(void **state)
{
	const struct gvt_param *p = gvt_param(state);

	for (int v = 0; v < 2; v++) {
		struct gvt_q q;
		struct gv_split_avail *av;

		gvt_q_setup(&q, p, NUM, 0, 0);
		av = gvt_split_avail(&q);
		(void)post_chain3(&q, true);
		if (v == 0) {
			struct gv_chain c;

			/* NUM + 1 entries pending after the second chain */
			av->idx = (uint16_t)(av->idx + NUM + 1);
			/*
			 * The device read the index (2) when it took the first
			 * chain and takes what that exposed without reading it
			 * again; the bad index is refused at the next read.
			 */
			assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
			assert_int_equal(c.nseg, 3);
		} else {
			av->ring[1] = NUM;
		}
		expect_bad_chain(&q);
		gvt_q_free(&q);
	}
}

/* A writable segment followed by a readable one. */
static void t_dev_write_then_read(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	(void)post_chain3(&q, true); /* chain: R, W, W */
	if (p->layout == GV_LAYOUT_SPLIT) {
		struct gv_split_desc *d = gvt_split_desc(&q);
		uint16_t head = gvt_split_avail(&q)->ring[1], n1 = d[head].next, n2 = d[n1].next;

		d[head].flags |= GV_DESC_F_WRITE;
		d[n2].flags &= (uint16_t)~GV_DESC_F_WRITE; /* W, W, R */
	} else {
		struct gv_packed_desc *d = gvt_packed_desc(&q);

		d[1].flags |= GV_DESC_F_WRITE;
		d[3].flags &= (uint16_t)~GV_DESC_F_WRITE;
	}
	expect_bad_chain(&q);
	gvt_q_free(&q);
}

static void *xlate_refuse(void *ctx, uint64_t addr, uint32_t len)
{
	const uint8_t *bad = ctx;

	if (addr < gvt_iova(bad) + 16 && addr + len > gvt_iova(bad))
		return NULL;
	return gvt_xlate(NULL, addr, len);
}

static void t_dev_xlate_fail(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain c;
	struct gv_seg s[2] = { gvt_seg(g_buf[0], 16), gvt_seg(g_buf[5], 16) };

	gvt_q_setup(&q, p, NUM, 0, 0);
	q.dcfg.xlate = xlate_refuse;
	q.dcfg.xlate_ctx = g_buf[5];
	gvt_vqd_reinit(&q);
	assert_int_equal(gvt_post1(&q, g_buf[3], 16, true, GVT_COOKIE(9)), 0);
	assert_int_equal(gv_vq_add(q.vq, s, 1, 1, GVT_COOKIE(1), false), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
	expect_bad_chain(&q);
	gvt_q_free(&q);
}

/*
 * gv_vq_watch, packed IN_ORDER: one used descriptor returns three chains
 * (split has no such batch: its used index counts every chain). The
 * condition says "do not sleep" once it is written and while reclaim has
 * taken only part of the batch (the next descriptor is not written: only
 * the driver's state knows); with all three taken and nothing posted,
 * still "do not sleep" (nothing will be written); "sleep" once a chain is
 * posted again.
 */
static void t_watch_batch(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gvt_inject in;
	uint16_t ids[3];
	void *ck[NUM];

	gvt_q_setup(&q, p, NUM, GV_VQ_F_IN_ORDER, 0);
	gvt_inject_init(&in);
	post_take1(&q, 3, 0, ids);
	assert_false(watch_wakes(q.vq));
	gvt_inject_used(&q, &in, ids[2], 0, 3);
	assert_true(watch_wakes(q.vq));
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, 1), 1);
	assert_true(watch_wakes(q.vq));
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, NUM), 2);
	assert_true(watch_wakes(q.vq)); /* nothing posted: the caller must post, not sleep */
	post_take1(&q, 1, 3, ids);
	assert_false(watch_wakes(q.vq));
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_ALL(t_bad_id),
		GVT_TEST_ALL(t_never_posted),
		GVT_TEST_SPLIT(t_never_available),
		GVT_TEST_ALL(t_returned_twice),
		GVT_TEST_ALL(t_pending_bounded),
		GVT_TEST_ALL(t_bad_len),
		GVT_TEST_ALL(t_bad_len_readonly),
		GVT_TEST_ALL(t_bad_order),
		GVT_TEST_PACKED(t_stale_batch),
		GVT_TEST_PACKED(t_watch_batch),
		GVT_TEST_SPLIT(t_bad_used_idx),
		GVT_TEST_PACKED(t_bad_flags),
		GVT_TEST_SPLIT(t_dev_split_loops),
		GVT_TEST_PACKED(t_dev_packed_too_long),
		GVT_TEST_ALL(t_dev_indirect_bad),
		GVT_TEST_SPLIT(t_dev_split_avail),
		GVT_TEST_ALL(t_dev_write_then_read),
		GVT_TEST_ALL(t_dev_xlate_fail),
	};

	return GVT_RUN(tests);
}
