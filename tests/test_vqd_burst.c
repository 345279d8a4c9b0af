/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_vqd_burst.c - the device end's burst verbs (gv_vqd_take_burst,
 * gv_vqd_push_burst) and its flat translation range: what they take and
 * return, where they stop (longer chains, nothing available), wrap-around,
 * and hostile input (bad ids, bad index, untranslatable addresses), on
 * both layouts and both barrier policies.
 */
#include "gv_test_util.h"

#define NUM 8u
#define BUF_LEN 64u

static uint8_t g_bufs[4 * NUM][BUF_LEN] __attribute__((aligned(64)));

/* Device end on q's ring again, with the flat range over g_bufs[0..nflat). */
static void set_flat(struct gvt_q *q, uint32_t nflat)
{
	q->dcfg.flat_addr = gvt_iova(g_bufs);
	q->dcfg.flat_len = (uint64_t)nflat * BUF_LEN;
	q->dcfg.flat_host = g_bufs;
	gvt_vqd_reinit(q);
}

/* xlate that knows only the ring (ctx: the gvt_q): buffers need the flat range. */
static void *xlate_ring_only(void *ctx, uint64_t addr, uint32_t len)
{
	const struct gvt_q *q = ctx;
	uint64_t base = gvt_iova(q->ring);

	if (addr < base || addr - base > q->ring_bytes || len > q->ring_bytes - (addr - base))
		return NULL;
	return (void *)(uintptr_t)addr;
}

/* Take a burst, return each buffer with its writable length, publish. */
static int echo_burst(struct gvt_q *q, uint32_t n)
{
	struct gv_vqd_buf b[4 * NUM];
	uint32_t lens[4 * NUM];
	int got = gv_vqd_take_burst(q->vqd, b, n);

	for (int k = 0; k < got; k++)
		lens[k] = b[k].write ? b[k].len : 0;
	if (got > 0) {
		gv_vqd_push_burst(q->vqd, b, lens, (uint32_t)got);
		gv_vqd_publish(q->vqd);
	}
	return got;
}

/* One-descriptor chains: taken in order with the right fields, returned. */
static void t_take_push(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_vqd_buf b[NUM];
	uint32_t lens[NUM];
	void *ck[NUM];
	uint32_t got_len[NUM];
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	set_flat(&q, 2); /* buffers 0 and 1 inline, the others through xlate */
	for (uint32_t i = 0; i < 5; i++)
		assert_int_equal(gvt_post1(&q, g_bufs[i], 16 + i, i != 3, GVT_COOKIE(i)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b, 3), 3);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b + 3, NUM), 2);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b + 5, NUM), 0);
	for (uint32_t i = 0; i < 5; i++) {
		assert_ptr_equal(b[i].ptr, g_bufs[i]);
		assert_int_equal(b[i].addr, gvt_iova(g_bufs[i]));
		assert_int_equal(b[i].len, 16 + i);
		assert_int_equal(b[i].write, i != 3);
		lens[i] = b[i].write ? i + 1 : 0;
	}
	/* Returned out of order: ids, not positions, name the buffers. */
	gv_vqd_push_burst(q.vqd, b + 2, lens + 2, 3);
	gv_vqd_push_burst(q.vqd, b, lens, 2);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, got_len, NUM), 5);
	for (uint32_t k = 0; k < 5; k++) {
		uint32_t i = (uint32_t)GVT_COOKIE_IDX(ck[k]);

		assert_int_equal(k, k < 3 ? i - 2 : i + 3);
		assert_int_equal(got_len[k], i == 3 ? 0 : i + 1);
	}
	assert_false(gv_vqd_broken(q.vqd));
	gvt_q_free(&q);
}

/* A longer chain stops the burst; gv_vqd_take takes it, bursts go on. */
static void t_stop_at_chain(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_seg s[2] = { gvt_seg(g_bufs[1], 8), gvt_seg(g_bufs[2], 8) };
	struct gv_vqd_buf b[NUM];
	struct gv_chain c;
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	set_flat(&q, 4 * NUM);
	assert_int_equal(gvt_post1(&q, g_bufs[0], 8, true, GVT_COOKIE(0)), 0);
	assert_int_equal(gv_vq_add(q.vq, s, 1, 1, GVT_COOKIE(1), false), 0);
	assert_int_equal(gvt_post1(&q, g_bufs[3], 8, true, GVT_COOKIE(3)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), 1);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b + 1, NUM), 0);
	assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
	assert_int_equal(c.nseg, 2);
	assert_ptr_equal(c.seg[0].ptr, g_bufs[1]);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b + 1, NUM), 1);
	assert_ptr_equal(b[1].ptr, g_bufs[3]);
	assert_false(gv_vqd_broken(q.vqd));
	gvt_q_free(&q);
}

/* Many laps of mixed burst sizes: every buffer comes back, in order. */
static void t_laps(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	uint32_t posted = 0, back = 0;

	gvt_q_setup(&q, p, NUM, 0, 0);
	set_flat(&q, 4 * NUM);
	for (uint32_t round = 0; round < 200; round++) {
		uint32_t want = 1 + round % NUM, post = 0, n;
		void *ck[NUM];

		while (post < want && gv_vq_num_free(q.vq) > 0) {
			uint32_t i = posted % (4 * NUM);

			assert_int_equal(gvt_post1(&q, g_bufs[i], BUF_LEN, true, GVT_COOKIE(posted)), 0);
			posted++;
			post++;
		}
		gv_vq_flush(q.vq);
		assert_int_equal(echo_burst(&q, 1 + round % 3), (int)(post < 1 + round % 3 ? post : 1 + round % 3));
		while (echo_burst(&q, NUM) > 0)
			;
		n = gv_vq_get_used(q.vq, ck, NULL, NUM);
		assert_int_equal(n, post);
		for (uint32_t k = 0; k < n; k++)
			assert_int_equal(GVT_COOKIE_IDX(ck[k]), back + k);
		back += n;
	}
	assert_int_equal(back, posted);
	assert_false(gv_vqd_broken(q.vqd));
	gvt_q_free(&q);
}

/* An untranslatable buffer after good ones: the good ones, then -EIO. */
static void t_bad_addr(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_vqd_buf b[NUM];
	struct gv_vqd_stats st;
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	q.dcfg.xlate = xlate_ring_only;
	q.dcfg.xlate_ctx = &q;
	set_flat(&q, 2);
	assert_int_equal(gvt_post1(&q, g_bufs[0], BUF_LEN, true, GVT_COOKIE(0)), 0);
	/* Straddles the end of the flat range: refused by both. */
	assert_int_equal(gvt_post1(&q, g_bufs[1] + 8, BUF_LEN, true, GVT_COOKIE(1)), 0);
	assert_int_equal(gvt_post1(&q, g_bufs[1], BUF_LEN, true, GVT_COOKIE(2)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), 1);
	assert_ptr_equal(b[0].ptr, g_bufs[0]);
	assert_true(gv_vqd_broken(q.vqd));
	assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), -EIO);
	gv_vqd_stats(q.vqd, &st);
	assert_int_equal(st.bad_chains, 1);
	gvt_q_free(&q);
}

/*
 * The flat range's edges: a buffer ending exactly at its end is inline;
 * one starting just below its start (whose end falls inside) is not.
 */
static void t_flat_edges(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gv_vqd_buf b[NUM];
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	q.dcfg.xlate = xlate_ring_only;
	q.dcfg.xlate_ctx = &q;
	set_flat(&q, 2);
	assert_int_equal(gvt_post1(&q, g_bufs[1] + BUF_LEN - 8, 8, true, GVT_COOKIE(0)), 0);
	assert_int_equal(gvt_post1(&q, g_bufs[0], 2 * BUF_LEN, true, GVT_COOKIE(1)), 0);
	assert_int_equal(gvt_post1(&q, (uint8_t *)((uintptr_t)g_bufs[0] - 8), 16, true,
				   GVT_COOKIE(2)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), 2);
	assert_ptr_equal(b[0].ptr, g_bufs[1] + BUF_LEN - 8);
	assert_ptr_equal(b[1].ptr, g_bufs[0]);
	assert_true(gv_vqd_broken(q.vqd));
	gvt_q_free(&q);
}

/* Split: an id out of range or an index too far ahead breaks the queue. */
static void t_split_hostile(void **state)
{
	const struct gvt_param *p = gvt_param(state);

	for (int v = 0; v < 3; v++) {
		struct gv_split_avail *av;
		struct gv_vqd_buf b[NUM];
		struct gvt_q q;

		gvt_q_setup(&q, p, NUM, 0, 0);
		set_flat(&q, 4 * NUM);
		av = gvt_split_avail(&q);
		for (uint32_t i = 0; i < 3; i++)
			assert_int_equal(gvt_post1(&q, g_bufs[i], 8, true, GVT_COOKIE(i)), 0);
		gv_vq_flush(q.vq);
		if (v == 0) {
			av->ring[0] = NUM; /* first id bad: nothing taken */
			assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), -EIO);
		} else if (v == 1) {
			av->ring[2] = NUM; /* third id bad: two good ones */
			assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), 2);
			assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), -EIO);
		} else {
			av->idx = (uint16_t)(av->idx + NUM); /* NUM + 3 ahead */
			assert_int_equal(gv_vqd_take_burst(q.vqd, b, NUM), -EIO);
		}
		assert_true(gv_vqd_broken(q.vqd));
		gvt_q_free(&q);
	}
}

/* A flat range that wraps the address space, or too long, is refused at init. */
static void t_flat_config(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;

	gvt_q_setup(&q, p, NUM, 0, 0);
	q.dcfg.flat_addr = UINT64_MAX - 10;
	q.dcfg.flat_len = 100;
	q.dcfg.flat_host = g_bufs;
	memset(q.vqd, 0, gv_vqd_state_size());
	assert_int_equal(gv_vqd_init(q.vqd, &q.dcfg), -EINVAL);
	q.dcfg.flat_addr = gvt_iova(g_bufs);
	q.dcfg.flat_host = NULL;
	assert_int_equal(gv_vqd_init(q.vqd, &q.dcfg), -EINVAL);
	/* Longer than 2^64 - 2^32 (an offset plus a length could wrap): refused. */
	q.dcfg.flat_host = g_bufs;
	q.dcfg.flat_addr = 0;
	q.dcfg.flat_len = UINT64_MAX - UINT32_MAX + 1;
	assert_int_equal(gv_vqd_init(q.vqd, &q.dcfg), -EINVAL);
	q.dcfg.flat_len = UINT64_MAX - UINT32_MAX;
	assert_int_equal(gv_vqd_init(q.vqd, &q.dcfg), 0);
	gvt_q_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_ALL(t_take_push),
		GVT_TEST_ALL(t_stop_at_chain),
		GVT_TEST_ALL(t_laps),
		GVT_TEST_ALL(t_bad_addr),
		GVT_TEST_ALL(t_flat_edges),
		GVT_TEST_SPLIT(t_split_hostile),
		GVT_TEST_ALL(t_flat_config),
	};

	return GVT_RUN(tests);
}
