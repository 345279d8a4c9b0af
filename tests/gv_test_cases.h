/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_cases.h - layout-generic test bodies, included by test_split.c
 * and test_packed.c (each runs them for its layout, both barrier modes):
 *
 *   tc_wrap          num buffers pushed through many times for every size,
 *                    16-bit index wrap, packed wrap counter flips; cookies,
 *                    lengths, data, num_free, full-ring -ENOSPC
 *   tc_chain         multi-segment out+in chains, segment order/lengths,
 *                    gv_vqd_read/gv_vqd_write across segment boundaries
 *   tc_chain_errors  -EINVAL (empty, zero-length), -ENOSPC, num_free
 *   tc_burst         gv_vq_add_burst readable / writable, cut at free slots
 *   tc_indirect      indirect tables: 1 slot per chain, table placement,
 *                    too many segments, feature not negotiated
 * More cases (model, in-order, avail_count, detach/reset): gv_test_model.h.
 */
#ifndef GV_TEST_CASES_H
#define GV_TEST_CASES_H

#include "gv_test_util.h"

static inline struct gv_chain *tc_chain_alloc(void)
{
	struct gv_chain *c = (struct gv_chain *)calloc(1, sizeof(*c));

	assert_non_null(c);
	return c;
}

/* ------------------------------------------------------------- wrap ------ */

#define WRAP_BUF 16u

/* Push at least `total` one-segment buffers through a ring of `num`. */
static void tc_wrap_one(const struct gvt_param *p, uint32_t num, uint32_t total, uint32_t align)
{
	struct gvt_q q;
	struct gvt_pool pool;
	struct gv_chain *c = tc_chain_alloc();
	void **cookies = calloc(num + 1, sizeof(void *));
	uint32_t *lens = calloc(num + 1, sizeof(uint32_t));
	struct gv_seg *segs = calloc(num, sizeof(*segs));
	void **bck = calloc(num, sizeof(void *));
	uint64_t seq = 0;
	uint32_t iter = 0;

	assert_non_null(cookies);
	assert_non_null(lens);
	assert_non_null(segs);
	assert_non_null(bck);
	assert_int_equal(gvt_q_init_align(&q, p->layout, p->barrier, num, 0, 0, align), 0);
	gvt_pool_init(&pool, num, WRAP_BUF);

	while (seq < total) {
		uint32_t k = (iter % 5 == 0) ? num : 1 + (iter * 7919u + 3) % num;
		uint64_t first = seq;

		assert_int_equal(gv_vq_num_free(q.vq), num);
		if (iter & 1) {
			for (uint32_t j = 0; j < k; j++) {
				segs[j] = gvt_seg(gvt_pool_buf(&pool, (uint32_t)(seq + j)), WRAP_BUF);
				bck[j] = GVT_COOKIE(seq + j);
			}
			assert_int_equal(gv_vq_add_burst(q.vq, segs, bck, k, true), k);
		} else {
			for (uint32_t j = 0; j < k; j++)
				assert_int_equal(gvt_post1(&q, gvt_pool_buf(&pool, (uint32_t)(seq + j)),
							   WRAP_BUF, true, GVT_COOKIE(seq + j)),
						 0);
		}
		seq += k;
		assert_int_equal(gv_vq_num_free(q.vq), num - k);
		assert_int_equal(gv_vq_inflight(q.vq), k);
		if (k == num) {
			/* Full ring: nothing more fits. */
			segs[0] = gvt_seg(pool.mem, 8);
			bck[0] = GVT_COOKIE(~0ull);
			assert_int_equal(gvt_post1(&q, pool.mem, 8, true, GVT_COOKIE(~0ull)), -ENOSPC);
			assert_int_equal(gv_vq_add_burst(q.vq, segs, bck, 1, true), 0);
		}
		if (iter & 2)
			(void)gv_vq_kick_prepare(q.vq);
		else
			gv_vq_flush(q.vq);

		assert_int_equal(gv_vqd_avail_count(q.vqd, num), k);
		/* Device: take all, write the sequence number, return. */
		for (uint32_t j = 0; j < k; j++) {
			uint64_t s = first + j;
			uint32_t v = (uint32_t)s;

			assert_int_equal(gv_vqd_take(q.vqd, c), 1);
			assert_int_equal(c->nseg, 1);
			assert_int_equal(c->ndesc, 1);
			assert_int_equal(c->n_out, 0);
			assert_int_equal(c->in_len, WRAP_BUF);
			assert_int_equal(c->out_len, 0);
			assert_true(c->seg[0].write);
			assert_int_equal(c->seg[0].addr, gvt_iova(gvt_pool_buf(&pool, (uint32_t)s)));
			assert_true(c->id < num);
			assert_int_equal(gv_vqd_write(q.vqd, c, 0, &v, 4), 4);
			gv_vqd_push(q.vqd, c->id, c->ndesc, 4 + (uint32_t)(s % 13));
			if ((iter & 4) && j == k / 2)
				gv_vqd_publish(q.vqd);
		}
		assert_int_equal(gv_vqd_take(q.vqd, c), 0);
		gv_vqd_publish(q.vqd);

		assert_int_equal(gv_vq_used_pending(q.vq), k);
		assert_int_equal(gv_vq_get_used(q.vq, cookies, lens, num + 1), k);
		for (uint32_t j = 0; j < k; j++) {
			uint64_t s = first + j;
			uint32_t v;

			assert_ptr_equal(cookies[j], GVT_COOKIE(s));
			assert_int_equal(lens[j], 4 + (uint32_t)(s % 13));
			memcpy(&v, gvt_pool_buf(&pool, (uint32_t)s), 4);
			assert_int_equal(v, (uint32_t)s);
		}
		assert_int_equal(gv_vq_get_used(q.vq, cookies, lens, num + 1), 0);
		assert_int_equal(gv_vq_inflight(q.vq), 0);
		iter++;
	}
	assert_false(gv_vq_broken(q.vq));
	assert_false(gv_vqd_broken(q.vqd));

	gvt_pool_free(&pool);
	gvt_q_free(&q);
	free(c);
	free(cookies);
	free(lens);
	free(segs);
	free(bck);
}

static void tc_wrap_sizes(const struct gvt_param *p, const uint32_t *sizes, size_t nsizes,
			  uint32_t align)
{
	for (size_t i = 0; i < nsizes; i++) {
		uint32_t num = sizes[i];
		uint32_t total = 70000;

		if (total < 3 * num + num / 2)
			total = 3 * num + num / 2;
		tc_wrap_one(p, num, total, align);
	}
}

/* ------------------------------------------------------------ chains ----- */

static void tc_chain(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *arena = gvt_alloc(64, 256);
	uint8_t *o0 = arena, *o1 = arena + 16, *i0 = arena + 64, *i1 = arena + 96, *i2 = arena + 128;
	struct gv_seg segs[5];
	char tmp[32];
	void *ck = NULL;
	uint32_t len = 0;

	memset(arena, 0xee, 256);
	memcpy(o0, "abc", 3);
	memcpy(o1, "defgh", 5);
	segs[0] = gvt_seg(o0, 3);
	segs[1] = gvt_seg(o1, 5);
	segs[2] = gvt_seg(i0, 4);
	segs[3] = gvt_seg(i1, 7);
	segs[4] = gvt_seg(i2, 1);

	gvt_q_setup(&q, p, 16, 0, 0);
	assert_int_equal(gv_vq_add(q.vq, segs, 2, 3, GVT_COOKIE(7), false), 0);
	assert_int_equal(gv_vq_num_free(q.vq), 11);
	assert_int_equal(gv_vq_inflight(q.vq), 1);
	/* Staged, not published. */
	assert_int_equal(gv_vqd_avail_count(q.vqd, 16), 0);
	assert_int_equal(gv_vqd_take(q.vqd, c), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 16), 1);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->nseg, 5);
	assert_int_equal(c->ndesc, 5);
	assert_int_equal(c->n_out, 2);
	assert_int_equal(c->out_len, 8);
	assert_int_equal(c->in_len, 12);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(c->seg[i].addr, segs[i].addr);
		assert_int_equal(c->seg[i].len, segs[i].len);
		assert_int_equal(c->seg[i].write, i >= 2);
	}
	/* Reads across the readable segments. */
	memset(tmp, 0, sizeof(tmp));
	assert_int_equal(gv_vqd_read(q.vqd, c, 0, tmp, 8), 8);
	assert_memory_equal(tmp, "abcdefgh", 8);
	memset(tmp, 0, sizeof(tmp));
	assert_int_equal(gv_vqd_read(q.vqd, c, 2, tmp, 4), 4);
	assert_memory_equal(tmp, "cdef", 4);
	memset(tmp, 0, sizeof(tmp));
	assert_int_equal(gv_vqd_read(q.vqd, c, 6, tmp, 10), 2);
	assert_memory_equal(tmp, "gh\0", 3);
	assert_int_equal(gv_vqd_read(q.vqd, c, 8, tmp, 1), 0);
	assert_int_equal(gv_vqd_read(q.vqd, c, 100, tmp, 1), 0);
	/* Writes across the writable segments; readable ones untouched. */
	assert_int_equal(gv_vqd_write(q.vqd, c, 2, "0123456", 7), 7);
	assert_memory_equal(i0, "\xee\xee" "01", 4);
	assert_memory_equal(i1, "23456\xee\xee", 7);
	assert_int_equal(gv_vqd_write(q.vqd, c, 10, "XYZ", 3), 2);
	assert_int_equal(i1[6], 'X');
	assert_int_equal(i2[0], 'Y');
	assert_int_equal(gv_vqd_write(q.vqd, c, 12, "Q", 1), 0);
	assert_int_equal(gv_vqd_write(q.vqd, c, 0, "ab", 2), 2);
	assert_memory_equal(i0, "ab01", 4);
	assert_memory_equal(o0, "abc", 3);
	assert_memory_equal(o1, "defgh", 5);
	/* Nothing outside the segments was touched. */
	assert_int_equal(arena[64 + 4], 0xee);
	assert_int_equal(arena[96 + 7], 0xee);
	assert_int_equal(arena[128 + 1], 0xee);
	assert_int_equal(arena[3], 0xee);

	gv_vqd_push(q.vqd, c->id, c->ndesc, 12);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 4), 1);
	assert_ptr_equal(ck, GVT_COOKIE(7));
	assert_int_equal(len, 12);
	assert_int_equal(gv_vq_num_free(q.vq), 16);

	/* Readable-only and writable-only chains. */
	assert_int_equal(gv_vq_add(q.vq, segs, 2, 0, GVT_COOKIE(8), false), 0);
	assert_int_equal(gv_vq_add(q.vq, segs + 2, 0, 3, GVT_COOKIE(9), false), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->nseg, 2);
	assert_int_equal(c->n_out, 2);
	assert_int_equal(c->in_len, 0);
	assert_int_equal(c->out_len, 8);
	assert_int_equal(gv_vqd_write(q.vqd, c, 0, "z", 1), 0);
	gv_vqd_push(q.vqd, c->id, c->ndesc, 0);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->nseg, 3);
	assert_int_equal(c->n_out, 0);
	assert_int_equal(c->in_len, 12);
	assert_int_equal(c->out_len, 0);
	assert_int_equal(gv_vqd_read(q.vqd, c, 0, tmp, 1), 0);
	gv_vqd_push(q.vqd, c->id, c->ndesc, 5);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 1), 1);
	assert_ptr_equal(ck, GVT_COOKIE(8));
	assert_int_equal(len, 0);
	assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 1), 1);
	assert_ptr_equal(ck, GVT_COOKIE(9));
	assert_int_equal(len, 5);
	assert_false(gv_vq_broken(q.vq));

	gvt_q_free(&q);
	free(arena);
	free(c);
}

static void tc_chain_errors(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 1024);
	struct gv_seg segs[9];
	void *ck[8] = { GVT_COOKIE(90), GVT_COOKIE(91) };
	uint32_t lens[8];
	uint16_t ids[4], nd[4];
	int rc;

	for (int i = 0; i < 9; i++)
		segs[i] = gvt_seg(buf + 64 * i, 32);
	gvt_q_setup(&q, p, 8, 0, 0);

	assert_int_equal(gv_vq_add(q.vq, segs, 0, 0, GVT_COOKIE(0), false), -EINVAL);
	segs[1].len = 0;
	assert_int_equal(gv_vq_add(q.vq, segs, 1, 1, GVT_COOKIE(0), false), -EINVAL);
	assert_int_equal(gv_vq_add(q.vq, segs + 1, 0, 1, GVT_COOKIE(0), false), -EINVAL);
	segs[1].len = 32;
	/* Longer than the whole ring: can never fit. */
	rc = gv_vq_add(q.vq, segs, 4, 5, GVT_COOKIE(0), false);
	assert_true(rc == -EINVAL || rc == -ENOSPC);
	/* Indirect without the feature. */
	assert_int_equal(gv_vq_add(q.vq, segs, 1, 1, GVT_COOKIE(0), true), -EINVAL);
	assert_int_equal(gv_vq_num_free(q.vq), 8);
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	assert_false(gv_vq_broken(q.vq));

	/* Three chains of two: 2 descriptors left. */
	for (int i = 0; i < 3; i++) {
		assert_int_equal(gv_vq_add(q.vq, segs, 1, 1, GVT_COOKIE(i), false), 0);
		assert_int_equal(gv_vq_num_free(q.vq), 8 - 2 * (i + 1));
	}
	assert_int_equal(gv_vq_add(q.vq, segs, 1, 2, GVT_COOKIE(3), false), -ENOSPC);
	assert_int_equal(gv_vq_num_free(q.vq), 2);
	assert_int_equal(gv_vq_inflight(q.vq), 3);
	assert_int_equal(gv_vq_add(q.vq, segs, 2, 0, GVT_COOKIE(3), false), 0);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	assert_int_equal(gvt_post1(&q, buf, 8, true, GVT_COOKIE(4)), -ENOSPC);
	assert_int_equal(gv_vq_add_burst(q.vq, segs, ck, 1, true), 0);
	gv_vq_flush(q.vq);

	for (int i = 0; i < 4; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		assert_int_equal(c->ndesc, 2);
		ids[i] = c->id;
		nd[i] = c->ndesc;
	}
	/* Device returns the second chain only: two descriptors come back. */
	gv_vqd_push(q.vqd, ids[1], nd[1], 7);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 8), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(1));
	assert_int_equal(lens[0], 7);
	assert_int_equal(gv_vq_num_free(q.vq), 2);
	assert_int_equal(gv_vq_add(q.vq, segs, 1, 2, GVT_COOKIE(5), false), -ENOSPC);
	assert_int_equal(gv_vq_add(q.vq, segs + 4, 1, 1, GVT_COOKIE(5), false), 0);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->nseg, 2);
	assert_int_equal(c->seg[0].addr, segs[4].addr);
	assert_int_equal(c->seg[1].addr, segs[5].addr);
	assert_true(c->seg[1].write);
	gv_vqd_push(q.vqd, c->id, c->ndesc, 1);
	gv_vqd_push(q.vqd, ids[3], nd[3], 0);
	gv_vqd_push(q.vqd, ids[0], nd[0], 32);
	gv_vqd_push(q.vqd, ids[2], nd[2], 3);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 8), 4);
	assert_ptr_equal(ck[0], GVT_COOKIE(5));
	assert_ptr_equal(ck[1], GVT_COOKIE(3));
	assert_ptr_equal(ck[2], GVT_COOKIE(0));
	assert_ptr_equal(ck[3], GVT_COOKIE(2));
	assert_int_equal(lens[0], 1);
	assert_int_equal(lens[1], 0);
	assert_int_equal(lens[2], 32);
	assert_int_equal(lens[3], 3);
	assert_int_equal(gv_vq_num_free(q.vq), 8);
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	/* The whole ring as one chain. */
	assert_int_equal(gv_vq_add(q.vq, segs, 3, 5, GVT_COOKIE(6), false), 0);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->nseg, 8);
	assert_int_equal(c->n_out, 3);
	assert_int_equal(c->in_len, 5 * 32);
	gv_vqd_push(q.vqd, c->id, c->ndesc, 160);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 8), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(6));
	assert_int_equal(lens[0], 160);
	assert_false(gv_vq_broken(q.vq));

	gvt_q_free(&q);
	free(buf);
	free(c);
}

/* ------------------------------------------------------------- burst ----- */

/* gv_vq_add_burst: readable (TX) and writable (RX), capped by free slots. */
static void tc_burst(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	enum { NUM = 8 };
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 16 * 64);
	struct gv_seg segs[16];
	void *cks[16], *ck[16];
	uint32_t lens[16];
	uint16_t ids[16];
	char tmp[8];

	for (int i = 0; i < 16; i++) {
		memset(buf + 64 * i, 'a' + i, 64);
		segs[i] = gvt_seg(buf + 64 * i, 10 + i);
		cks[i] = GVT_COOKIE(i);
	}
	gvt_q_setup(&q, p, NUM, 0, 0);
	/* TX: readable only. */
	assert_int_equal(gv_vq_add_burst(q.vq, segs, cks, 5, false), 5);
	assert_int_equal(gv_vq_num_free(q.vq), NUM - 5);
	assert_int_equal(gv_vq_inflight(q.vq), 5);
	assert_int_equal(gv_vqd_avail_count(q.vqd, NUM), 0); /* staged */
	gv_vq_flush(q.vq);
	for (int i = 0; i < 5; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		assert_int_equal(c->nseg, 1);
		assert_int_equal(c->n_out, 1);
		assert_int_equal(c->out_len, 10 + i);
		assert_int_equal(c->in_len, 0);
		assert_false(c->seg[0].write);
		assert_int_equal(c->seg[0].addr, segs[i].addr);
		assert_int_equal(gv_vqd_read(q.vqd, c, 9 + i, tmp, 8), 1);
		assert_int_equal(tmp[0], 'a' + i);
		ids[i] = c->id;
	}
	/* Only 3 free: the burst is cut to 3. */
	assert_int_equal(gv_vq_add_burst(q.vq, segs + 5, cks + 5, 10, true), 3);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	assert_int_equal(gv_vq_add_burst(q.vq, segs + 8, cks + 8, 1, true), 0);
	gv_vq_flush(q.vq);
	for (int i = 5; i < 8; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		assert_int_equal(c->n_out, 0);
		assert_int_equal(c->in_len, 10 + i);
		assert_true(c->seg[0].write);
		assert_int_equal(c->seg[0].addr, segs[i].addr);
		ids[i] = c->id;
	}
	assert_int_equal(gv_vqd_take(q.vqd, c), 0);
	for (int i = 7; i >= 0; i--)
		gv_vqd_push(q.vqd, ids[i], 1, i >= 5 ? 10 + (uint32_t)i : 0);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 16), 8);
	for (int i = 0; i < 8; i++) {
		assert_ptr_equal(ck[i], GVT_COOKIE(7 - i));
		assert_int_equal(lens[i], 7 - i >= 5 ? 17 - i : 0);
	}
	assert_int_equal(gv_vq_num_free(q.vq), NUM);
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
	free(buf);
	free(c);
}

/* ---------------------------------------------------------- indirect ----- */

static void tc_indirect(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	enum { NUM = 8, MAXI = 8 };
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, NUM * MAXI * 64);
	struct gv_seg segs[NUM][MAXI + 1];
	void *ck[NUM + 1];
	uint32_t lens[NUM + 1];
	uint16_t ids[NUM];
	uint8_t tmp[16];

	for (int i = 0; i < NUM; i++)
		for (int j = 0; j <= MAXI; j++)
			segs[i][j] = gvt_seg(buf + (i * MAXI + (j % MAXI)) * 64, 10 + j);
	gvt_q_setup(&q, p, NUM, GV_VQ_F_INDIRECT, MAXI);

	/* 2 out + 4 in, one ring slot. */
	memcpy(buf, "0123456789", 10);
	memcpy(buf + 64, "ABCDEFGHIJK", 11);
	assert_int_equal(gv_vq_add(q.vq, segs[0], 2, 4, GVT_COOKIE(100), true), 0);
	assert_int_equal(gv_vq_num_free(q.vq), NUM - 1);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 1);
	assert_int_equal(c->nseg, 6);
	assert_int_equal(c->n_out, 2);
	assert_int_equal(c->out_len, 21);
	assert_int_equal(c->in_len, 12 + 13 + 14 + 15);
	for (int j = 0; j < 6; j++) {
		assert_int_equal(c->seg[j].addr, segs[0][j].addr);
		assert_int_equal(c->seg[j].len, segs[0][j].len);
		assert_int_equal(c->seg[j].write, j >= 2);
	}
	/* The table of buffer id `id` sits at entry id * max_indirect. */
	if (p->layout == GV_LAYOUT_SPLIT) {
		struct gv_split_desc *d = &gvt_split_desc(&q)[c->id];

		assert_true(d->flags & GV_DESC_F_INDIRECT);
		assert_false(d->flags & GV_DESC_F_NEXT);
		assert_int_equal(d->len, 6 * 16);
		assert_int_equal(d->addr, gvt_iova(q.indirect) + (uint64_t)c->id * MAXI * 16);
	} else {
		struct gv_packed_desc *d = &gvt_packed_desc(&q)[0];

		assert_true(d->flags & GV_DESC_F_INDIRECT);
		assert_int_equal(d->id, c->id);
		assert_int_equal(d->len, 6 * 16);
		assert_int_equal(d->addr, gvt_iova(q.indirect) + (uint64_t)c->id * MAXI * 16);
	}
	assert_int_equal(gv_vqd_read(q.vqd, c, 8, tmp, 5), 5);
	assert_memory_equal(tmp, "89ABC", 5);
	assert_int_equal(gv_vqd_write(q.vqd, c, 10, "wxyz", 4), 4);
	assert_memory_equal(buf + 2 * 64 + 10, "wx", 2);
	assert_memory_equal(buf + 3 * 64, "yz", 2);
	gv_vqd_push(q.vqd, c->id, c->ndesc, 14);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, NUM), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(100));
	assert_int_equal(lens[0], 14);
	assert_int_equal(gv_vq_num_free(q.vq), NUM);

	/* Too many segments for max_indirect. */
	assert_int_equal(gv_vq_add(q.vq, segs[0], 4, 5, GVT_COOKIE(1), true), -EINVAL);
	assert_int_equal(gv_vq_num_free(q.vq), NUM);

	/* Fill every slot with a max-size table; mix in nothing else. */
	for (int i = 0; i < NUM; i++)
		assert_int_equal(gv_vq_add(q.vq, segs[i], 3, MAXI - 3, GVT_COOKIE(i), true), 0);
	assert_int_equal(gv_vq_num_free(q.vq), 0);
	assert_int_equal(gv_vq_add(q.vq, segs[0], 1, 1, GVT_COOKIE(99), true), -ENOSPC);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), NUM);
	for (int i = 0; i < NUM; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		assert_int_equal(c->ndesc, 1);
		assert_int_equal(c->nseg, MAXI);
		assert_int_equal(c->n_out, 3);
		for (int j = 0; j < MAXI; j++)
			assert_int_equal(c->seg[j].addr, segs[i][j].addr);
		ids[i] = c->id;
	}
	for (int i = NUM - 1; i >= 0; i--)
		gv_vqd_push(q.vqd, ids[i], 1, (uint32_t)i);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, NUM + 1), NUM);
	for (int i = 0; i < NUM; i++) {
		assert_ptr_equal(ck[i], GVT_COOKIE(NUM - 1 - i));
		assert_int_equal(lens[i], NUM - 1 - i);
	}

	/* Direct and indirect chains side by side. */
	assert_int_equal(gv_vq_add(q.vq, segs[1], 1, 2, GVT_COOKIE(50), false), 0);
	assert_int_equal(gv_vq_add(q.vq, segs[2], 1, 6, GVT_COOKIE(51), true), 0);
	assert_int_equal(gv_vq_add(q.vq, segs[3], 2, 0, GVT_COOKIE(52), false), 0);
	assert_int_equal(gv_vq_num_free(q.vq), NUM - 6);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 3);
	ids[0] = c->id;
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 1);
	assert_int_equal(c->nseg, 7);
	assert_int_equal(c->seg[6].addr, segs[2][6].addr);
	ids[1] = c->id;
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 2);
	ids[2] = c->id;
	gv_vqd_push(q.vqd, ids[1], 1, 1);
	gv_vqd_push(q.vqd, ids[2], 2, 0);
	gv_vqd_push(q.vqd, ids[0], 3, 2);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, NUM), 3);
	assert_ptr_equal(ck[0], GVT_COOKIE(51));
	assert_ptr_equal(ck[1], GVT_COOKIE(52));
	assert_ptr_equal(ck[2], GVT_COOKIE(50));
	assert_int_equal(gv_vq_num_free(q.vq), NUM);
	assert_false(gv_vq_broken(q.vq));
	assert_false(gv_vqd_broken(q.vqd));

	gvt_q_free(&q);
	free(buf);
	free(c);
}

#endif /* GV_TEST_CASES_H */
