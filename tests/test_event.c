/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_event.c - notification decisions, both layouts, both barrier modes:
 *   need_event       gv_need_event() edge cases and 16-bit wrap (property
 *                    check against the [old, new) interval)
 *   kick_flags       kick_prepare without EVENT_IDX: device enable_kick
 *   kick_event_idx   kick_prepare with EVENT_IDX: device enable_kick, then
 *                    avail_event (split) / off_wrap (packed) written
 *                    directly, including the index crossing 65536 (split)
 *                    and the wrap counter flipping (packed)
 *   irq_flags        need_interrupt after disable_cb / enable_cb, no EVENT_IDX
 *   irq_event_idx    same with EVENT_IDX, used_event / driver off_wrap raw
 *                    values, the used index crossing 65536
 *   disable_fresh    disable_cb on a fresh queue really suppresses
 *   enable_pending   enable_cb returns false while used chains wait
 *   watch_laps       the power monitor's condition (gv_vq_watch) across
 *                    the split used index crossing 65536 and the packed
 *                    wrap counter flipping
 */
#include "gv_test_util.h"

/* ------------------------------------------------------------ need_event */

static bool in_interval(uint16_t ev, uint16_t new_idx, uint16_t old)
{
	/* Is ev one of old, old+1, ..., new-1 (mod 65536)? */
	for (uint16_t i = old; i != new_idx; i++)
		if (i == ev)
			return true;
	return false;
}

static void t_need_event(void **state)
{
	const uint16_t olds[] = { 0, 1, 100, 32767, 32768, 65000, 65533, 65534, 65535 };
	const uint16_t deltas[] = { 0, 1, 2, 3, 100, 1000, 32768 };

	(void)state;
	assert_true(gv_need_event(0, 1, 0));
	assert_false(gv_need_event(1, 1, 0));
	assert_false(gv_need_event(0, 0, 0));
	assert_false(gv_need_event(65535, 0, 0));
	/* old = 65534, new = 2: 65534, 65535, 0, 1 are crossed. */
	assert_true(gv_need_event(65534, 2, 65534));
	assert_true(gv_need_event(65535, 2, 65534));
	assert_true(gv_need_event(0, 2, 65534));
	assert_true(gv_need_event(1, 2, 65534));
	assert_false(gv_need_event(2, 2, 65534));
	assert_false(gv_need_event(3, 2, 65534));
	assert_false(gv_need_event(65533, 2, 65534));
	assert_true(gv_need_event(65535, 0, 65535));
	assert_false(gv_need_event(0, 0, 65535));
	assert_false(gv_need_event(65534, 0, 65535));
	/* Everything but new itself when the window is 65535 wide. */
	assert_true(gv_need_event(5, 4, 5));
	assert_true(gv_need_event(3, 4, 5));
	assert_false(gv_need_event(4, 4, 5));

	for (size_t i = 0; i < sizeof(olds) / sizeof(olds[0]); i++)
		for (size_t j = 0; j < sizeof(deltas) / sizeof(deltas[0]); j++) {
			uint16_t old = olds[i], nw = (uint16_t)(old + deltas[j]);
			const int probe[] = { -3, -2, -1, 0, 1, 2, (int)deltas[j] - 1, (int)deltas[j],
					      (int)deltas[j] + 1, (int)deltas[j] / 2 };

			for (size_t k = 0; k < sizeof(probe) / sizeof(probe[0]); k++) {
				uint16_t ev = (uint16_t)(old + probe[k]);

				if (!!gv_need_event(ev, nw, old) != in_interval(ev, nw, old))
					fail_msg("need_event(%u, %u, %u)", ev, nw, old);
			}
		}
}

/* -------------------------------------------------------------- helpers */

static uint8_t g_buf[4096];

/* Post n one-segment buffers (and publish through kick_prepare). */
static bool post_kick(struct gvt_q *q, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		assert_int_equal(gvt_post1(q, g_buf, 64, true, GVT_COOKIE(i)), 0);
	return gv_vq_kick_prepare(q->vq);
}

/* Device returns everything available; need_interrupt consulted. */
static bool dev_drain(struct gvt_q *q)
{
	gvt_dev_echo(q, UINT32_MAX);
	return gv_vqd_need_interrupt(q->vqd);
}

static uint32_t drv_reap(struct gvt_q *q)
{
	void *ck[64];
	uint32_t n = 0, k;

	while ((k = gv_vq_get_used(q->vq, ck, NULL, 64)) > 0)
		n += k;
	return n;
}

/*
 * `count` round trips of one buffer, each one kicked, interrupted and
 * reaped, so both ends' notion of "since the last call" stays current.
 */
static void roundtrips(struct gvt_q *q, uint32_t count)
{
	for (uint32_t i = 0; i < count; i++) {
		(void)post_kick(q, 1);
		(void)dev_drain(q);
		assert_int_equal(drv_reap(q), 1);
	}
}

/* ---------------------------------------------------------------- kicks */

static void t_kick_flags(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;

	gvt_q_setup(&q, p, 8, 0, 0);
	assert_true(post_kick(&q, 1));
	assert_true(post_kick(&q, 2)); /* flags: every batch is kicked */
	dev_drain(&q);
	assert_int_equal(drv_reap(&q), 3);

	gv_vqd_enable_kick(q.vqd, false);
	if (p->layout == GV_LAYOUT_SPLIT)
		assert_true(gvt_split_used(&q)->flags & GV_USED_F_NO_NOTIFY);
	else
		assert_int_equal(gvt_packed_dev_event(&q)->flags, GV_EVENT_F_DISABLE);
	assert_false(post_kick(&q, 1));
	assert_false(post_kick(&q, 3));
	dev_drain(&q);
	assert_int_equal(drv_reap(&q), 4);

	gv_vqd_enable_kick(q.vqd, true);
	assert_true(post_kick(&q, 1));
	dev_drain(&q);
	assert_int_equal(drv_reap(&q), 1);
	/* Many laps later the flags still decide. */
	roundtrips(&q, 50);
	assert_true(post_kick(&q, 1));
	gv_vqd_enable_kick(q.vqd, false);
	assert_false(post_kick(&q, 1));
	dev_drain(&q);
	assert_int_equal(drv_reap(&q), 2);
	gvt_q_free(&q);
}

/* Split: write avail_event, post n, expect kick_prepare's answer. */
static void split_avail_event_step(struct gvt_q *q, uint16_t ev, uint32_t n, bool expect)
{
	*gvt_split_avail_event(q) = ev;
	if (post_kick(q, n) != expect)
		fail_msg("avail idx %u, avail_event %u, posted %u: kick %d expected",
			 gvt_split_avail(q)->idx, ev, n, expect);
	dev_drain(q);
	assert_int_equal(drv_reap(q), n);
}

/* Packed: write the device event (DESC off/wrap, or flags), expect kick. */
static void packed_event_step(struct gvt_q *q, uint16_t flags, uint16_t off, bool wrap, uint32_t n,
			      bool expect, bool drain)
{
	struct gv_packed_event *e = gvt_packed_dev_event(q);

	e->off_wrap = (uint16_t)(off | (wrap ? 0x8000u : 0));
	e->flags = flags;
	if (post_kick(q, n) != expect)
		fail_msg("event flags %u off %u wrap %d, posted %u: kick %d expected", flags, off,
			 wrap, n, expect);
	if (drain) {
		dev_drain(q);
		(void)drv_reap(q);
	}
}

static void t_kick_event_idx(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	enum { NUM = 4 };

	gvt_q_setup(&q, p, NUM, GV_VQ_F_EVENT_IDX, 0);
	/* Device end asks for kicks: the first post after it is kicked. */
	gv_vqd_enable_kick(q.vqd, true);
	assert_true(post_kick(&q, 1));
	if (p->layout == GV_LAYOUT_SPLIT)
		assert_false(post_kick(&q, 1)); /* avail_event did not move */
	dev_drain(&q);
	drv_reap(&q);
	gv_vqd_enable_kick(q.vqd, true);
	assert_true(post_kick(&q, 1));
	dev_drain(&q);
	drv_reap(&q);
	gv_vqd_enable_kick(q.vqd, false);
	assert_false(post_kick(&q, 1));
	assert_false(post_kick(&q, 2));
	dev_drain(&q);
	drv_reap(&q);
	gv_vqd_enable_kick(q.vqd, true);
	assert_true(post_kick(&q, 2));
	dev_drain(&q);
	drv_reap(&q);

	if (p->layout == GV_LAYOUT_SPLIT) {
		uint16_t idx = gvt_split_avail(&q)->idx;

		/* Bring the avail index to 65534. */
		roundtrips(&q, (uint16_t)(65534 - idx));
		assert_int_equal(gvt_split_avail(&q)->idx, 65534);
		split_avail_event_step(&q, 65534, 1, true); /* 65534 -> 65535 */
		split_avail_event_step(&q, 65535, 1, true); /* 65535 -> 0 */
		split_avail_event_step(&q, 1, 2, true); /* 0 -> 2 crosses 1 */
		assert_int_equal(gvt_split_avail(&q)->idx, 2);
		split_avail_event_step(&q, 1, 1, false); /* behind */
		split_avail_event_step(&q, 5, 2, false); /* 3 -> 5: not reached */
		split_avail_event_step(&q, 5, 1, true); /* 5 -> 6 */
		roundtrips(&q, 65530 - 6); /* idx 65530 */
		split_avail_event_step(&q, 0, 3, false); /* 65530 -> 65533 */
		split_avail_event_step(&q, 0, 4, true); /* 65533 -> 1 crosses 0 */
		split_avail_event_step(&q, 0, 2, false); /* 1 -> 3 */
		split_avail_event_step(&q, 65535, 3, false); /* 3 -> 6 */
		split_avail_event_step(&q, 6, 3, true); /* 6 -> 9 */
	} else {
		uint32_t r;

		/* From a fresh ring: next avail slot 0, wrap 1. */
		gvt_q_reset(&q);
		/* slots 0,1,2 (wrap 1): the event is at slot 2 */
		packed_event_step(&q, GV_EVENT_F_DESC, 2, true, 1, false, false);
		packed_event_step(&q, GV_EVENT_F_DESC, 2, true, 1, false, false);
		packed_event_step(&q, GV_EVENT_F_DESC, 2, true, 1, true, true);
		/* next slot 3 (wrap 1); event at slot 0 of the next lap */
		packed_event_step(&q, GV_EVENT_F_DESC, 0, false, 1, false, false);
		packed_event_step(&q, GV_EVENT_F_DESC, 0, false, 1, true, true);
		/* next slot 1 (wrap 0): three at once cross slot 2 */
		packed_event_step(&q, GV_EVENT_F_DESC, 2, false, 3, true, true);
		/* next slot 0 (wrap 1): event at slot 1 wrap 1 */
		packed_event_step(&q, GV_EVENT_F_DESC, 1, true, 1, false, false);
		packed_event_step(&q, GV_EVENT_F_DESC, 1, true, 1, true, true);
		/* next slot 2 (wrap 1): event at slot 1 wrap 1 is behind */
		packed_event_step(&q, GV_EVENT_F_DESC, 1, true, 2, false, true);
		packed_event_step(&q, GV_EVENT_F_DISABLE, 0, false, 1, false, true);
		packed_event_step(&q, GV_EVENT_F_ENABLE, 0, false, 1, true, true);
		/* 14 posted since the reset; many laps later: */
		r = 70001;
		roundtrips(&q, r);
		{
			uint32_t t = 14 + r + 1; /* after the first post below */
			uint16_t pos = (uint16_t)(t % NUM);
			bool wrap = ((t / NUM) & 1) == 0;

			packed_event_step(&q, GV_EVENT_F_DESC, pos, wrap, 1, false, false);
			packed_event_step(&q, GV_EVENT_F_DESC, pos, wrap, 1, true, true);
		}
	}
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

/* ----------------------------------------------------------- interrupts */

static void t_irq_flags(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain c;
	uint16_t ids[4];

	gvt_q_setup(&q, p, 8, 0, 0);
	(void)post_kick(&q, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
		ids[i] = c.id;
	}
	gv_vqd_push(q.vqd, ids[0], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd)); /* enabled by default */

	gv_vq_disable_cb(q.vq);
	if (p->layout == GV_LAYOUT_SPLIT)
		assert_true(gvt_split_avail(&q)->flags & GV_AVAIL_F_NO_INTERRUPT);
	else
		assert_int_equal(gvt_packed_drv_event(&q)->flags, GV_EVENT_F_DISABLE);
	gv_vqd_push(q.vqd, ids[1], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_false(gv_vqd_need_interrupt(q.vqd));

	assert_false(gv_vq_enable_cb(q.vq)); /* two chains waiting */
	assert_int_equal(drv_reap(&q), 2);
	assert_true(gv_vq_enable_cb(q.vq));
	if (p->layout == GV_LAYOUT_SPLIT)
		assert_false(gvt_split_avail(&q)->flags & GV_AVAIL_F_NO_INTERRUPT);
	else
		assert_int_equal(gvt_packed_drv_event(&q)->flags, GV_EVENT_F_ENABLE);
	gv_vqd_push(q.vqd, ids[2], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd));
	gv_vqd_push(q.vqd, ids[3], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd)); /* flags: every batch */
	assert_int_equal(drv_reap(&q), 2);
	gvt_q_free(&q);
}

static void check_drv_event(struct gvt_q *q, uint16_t used_pos, bool wrap)
{
	if (q->cfg.layout == GV_LAYOUT_SPLIT) {
		assert_int_equal(*gvt_split_used_event(q), used_pos);
	} else {
		struct gv_packed_event *e = gvt_packed_drv_event(q);

		assert_int_equal(e->flags, GV_EVENT_F_DESC);
		assert_int_equal(e->off_wrap, used_pos | (wrap ? 0x8000u : 0));
	}
}

static void t_irq_event_idx(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain c;
	uint16_t ids[4];
	uint32_t start;

	gvt_q_setup(&q, p, 4, GV_VQ_F_EVENT_IDX, 0);
	assert_true(gv_vq_enable_cb(q.vq));
	check_drv_event(&q, 0, true);
	(void)post_kick(&q, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
		ids[i] = c.id;
	}
	gv_vqd_push(q.vqd, ids[0], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd));
	gv_vqd_push(q.vqd, ids[1], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_false(gv_vqd_need_interrupt(q.vqd)); /* driver has not re-armed */
	assert_false(gv_vq_enable_cb(q.vq)); /* two waiting */
	assert_int_equal(drv_reap(&q), 2);
	assert_true(gv_vq_enable_cb(q.vq));
	check_drv_event(&q, 2, true);
	gv_vqd_push(q.vqd, ids[2], 1, 0);
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd));
	assert_int_equal(drv_reap(&q), 1);

	/* Disabled: no interrupt even when the index passes the old event. */
	gv_vq_disable_cb(q.vq);
	(void)post_kick(&q, 2);
	assert_false(dev_drain(&q));
	assert_int_equal(drv_reap(&q), 2);
	assert_true(gv_vq_enable_cb(q.vq));
	/* 5 used: split used_event 5; packed slot 1, wrap 0 */
	check_drv_event(&q, p->layout == GV_LAYOUT_SPLIT ? 5 : 1, false);

	/* Many laps; then the used index crosses 65536 (split). */
	start = (p->layout == GV_LAYOUT_SPLIT) ? gvt_split_used(&q)->idx : 5;
	roundtrips(&q, 65534 - start);
	assert_true(gv_vq_enable_cb(q.vq));
	if (p->layout == GV_LAYOUT_SPLIT)
		check_drv_event(&q, 65534, false);
	else
		check_drv_event(&q, 65534 % 4, (65534 / 4) % 2 == 0);
	(void)post_kick(&q, 3);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
		ids[i] = c.id;
	}
	gv_vqd_push(q.vqd, ids[0], 1, 0); /* 65534 -> 65535 */
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd));
	assert_int_equal(drv_reap(&q), 1);
	assert_true(gv_vq_enable_cb(q.vq));
	gv_vqd_push(q.vqd, ids[1], 1, 0); /* 65535 -> 0 */
	gv_vqd_publish(q.vqd);
	assert_true(gv_vqd_need_interrupt(q.vqd));
	gv_vqd_push(q.vqd, ids[2], 1, 0); /* 0 -> 1, not re-armed */
	gv_vqd_publish(q.vqd);
	assert_false(gv_vqd_need_interrupt(q.vqd));
	assert_false(gv_vq_enable_cb(q.vq));
	assert_int_equal(drv_reap(&q), 2);
	assert_true(gv_vq_enable_cb(q.vq));
	if (p->layout == GV_LAYOUT_SPLIT)
		check_drv_event(&q, 1, false);
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

/* disable_cb right after init must suppress the first interrupts too. */
static void t_disable_fresh(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint32_t feats[] = { 0, GV_VQ_F_EVENT_IDX };

	for (int f = 0; f < 2; f++) {
		struct gvt_q q;

		gvt_q_setup(&q, p, 8, feats[f], 0);
		gv_vq_disable_cb(q.vq);
		for (int i = 0; i < 5; i++) {
			(void)post_kick(&q, 1);
			if (dev_drain(&q))
				fail_msg("features %u: interrupt %d after disable_cb", feats[f], i);
		}
		assert_false(gv_vq_enable_cb(q.vq));
		assert_int_equal(drv_reap(&q), 5);
		assert_true(gv_vq_enable_cb(q.vq));
		(void)post_kick(&q, 1);
		assert_true(dev_drain(&q));
		assert_int_equal(drv_reap(&q), 1);
		gvt_q_free(&q);
	}
}

/* enable_cb reports chains that are already waiting. */
static void t_enable_pending(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint32_t feats[] = { 0, GV_VQ_F_EVENT_IDX };

	for (int f = 0; f < 2; f++) {
		struct gvt_q q;

		gvt_q_setup(&q, p, 16, feats[f], 0);
		assert_true(gv_vq_enable_cb(q.vq));
		gv_vq_disable_cb(q.vq);
		(void)post_kick(&q, 3);
		dev_drain(&q);
		assert_false(gv_vq_enable_cb(q.vq));
		assert_int_equal(gv_vq_used_pending(q.vq), 3);
		assert_int_equal(drv_reap(&q), 3);
		assert_true(gv_vq_enable_cb(q.vq));
		assert_true(gv_vq_enable_cb(q.vq));
		/* Pending published before re-enabling, after many laps. */
		roundtrips(&q, 1000);
		gv_vq_disable_cb(q.vq);
		(void)post_kick(&q, 1);
		dev_drain(&q);
		assert_false(gv_vq_enable_cb(q.vq));
		assert_int_equal(drv_reap(&q), 1);
		assert_true(gv_vq_enable_cb(q.vq));
		gvt_q_free(&q);
	}
}

/*
 * gv_vq_watch over many laps of a 16-entry ring: a second chain stays
 * posted besides the one going round, so each condition is taken with a
 * chain in flight. Taken before the device returns a chain it says
 * "sleep", after it "wake" (the same condition: the device wrote the
 * watched word). 70000 laps: split's used index crosses 65536, packed's
 * wrap counter flips every 16. With nothing posted: "wake".
 */
static void t_watch_laps(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_vq_watch w;
	struct gvt_q q;
	void *ck;

	gvt_q_setup(&q, p, 16, 0, 0);
	gv_vq_watch(q.vq, &w);
	assert_true(gvt_watch_wakes(&w));
	(void)post_kick(&q, 2);
	for (uint32_t i = 0; i < 70000; i++) {
		gv_vq_watch(q.vq, &w);
		assert_false(gvt_watch_wakes(&w));
		assert_int_equal(gvt_dev_echo(&q, 1), 1);
		assert_true(gvt_watch_wakes(&w));
		assert_int_equal(gv_vq_get_used(q.vq, &ck, NULL, 1), 1);
		assert_int_equal(gvt_post1(&q, g_buf, 64, true, GVT_COOKIE(i)), 0);
		gv_vq_flush(q.vq);
	}
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_need_event),
		GVT_TEST_ALL(t_kick_flags),
		GVT_TEST_ALL(t_kick_event_idx),
		GVT_TEST_ALL(t_irq_flags),
		GVT_TEST_ALL(t_irq_event_idx),
		GVT_TEST_ALL(t_disable_fresh),
		GVT_TEST_ALL(t_enable_pending),
		GVT_TEST_ALL(t_watch_laps),
	};

	return GVT_RUN(tests);
}
