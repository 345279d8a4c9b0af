/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fixed.c - the split ring's fixed mode (common/ring/gv_vq_fixed.h on a split ring; gv_vq_fixed_split.h),
 * the core under the vector RX paths, against the device end, both
 * barrier policies:
 *   enable      refused on a packed ring, a zero length, buffers in flight;
 *               before it, the fixed verbs move nothing
 *   holes       buffers returned ahead of the oldest free nothing for
 *               reposting until the oldest comes back (exact room counts)
 *   random      thousands of rounds, device order random (in order with
 *               IN_ORDER), lengths random, both verbs (in-step batches and
 *               one by one): every cookie comes back once with its length,
 *               the device never gets a buffer that is still in flight and
 *               never sees a malformed chain
 *   hostile     bad id, id not in flight (twice), length beyond the
 *               buffer, used index ahead, IN_ORDER out of order: the queue
 *               breaks with exactly that counter, detach gives every
 *               outstanding cookie back once, reset and re-enable work
 *   tx          TX fixed mode (gvf_tx_enable): refused without
 *               IN_ORDER; thousands of rounds of random post sizes over
 *               many laps, the device sees one readable descriptor per
 *               buffer with the address and length written, at id ==
 *               position, and returns random runs, one entry each or one
 *               entry for a whole batch; the driver takes them by the used
 *               index alone, oldest first; a used index ahead breaks the
 *               queue (bad_used_idx) and detach gives every buffer back
 * What it shares with test_fixed_packed.c: gv_test_fixed.h.
 */
enum { NUM = 16, BUF = 128 };
#define GVT_FIXED_L GV_LAYOUT_SPLIT

#include "gv_test_fixed.h"

static void test_enable(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;

	enable_before(&q, p);
	/* Once the chain is back (scalar verbs), the mode can be entered. */
	assert_int_equal(gvf_enable(q.vq, BUF, GV_LAYOUT_SPLIT), 0);
	/* The avail ring is i -> i, every descriptor writable and BUF long. */
	for (uint32_t i = 0; i < NUM; i++) {
		assert_int_equal(gvt_split_avail(&q)->ring[i], i);
		assert_int_equal(gvt_split_desc(&q)[i].len, BUF);
		assert_int_equal(gvt_split_desc(&q)[i].flags, GV_DESC_F_WRITE);
	}
	gvt_q_free(&q);
}

/* test_holes: 4 and 5 in step, as the vector path takes them. */
static void holes_in_step(struct gvt_q *q)
{
	const uint32_t up = gvf_used_pos(q->vq, GV_LAYOUT_SPLIT), mask = gvf_num(q->vq) - 1;

	for (uint32_t k = 0; k < 2; k++) {
		const struct gv_split_used_elem *e = &gvf_split_used(q->vq)[(up + k) & mask];

		assert_int_equal(e->id, (up + k) & mask);
		assert_ptr_equal(gvf_cookie(q->vq, e->id, GV_LAYOUT_SPLIT), &g_obj[4 + k]);
	}
}

/* The split steps gv_test_fixed.h calls: ready = the entries the used index covers. */
static uint32_t fx_ready(struct gvt_q *q, const struct gvt_param *p)
{
	return gvf_ready(q->vq, 2 * NUM, GV_LAYOUT_SPLIT, p->barrier);
}

/* As a vector burst: id == position, length within the buffer. */
static uint32_t fx_step_walk(struct gvt_q *q, uint32_t ready, struct fx_round *r)
{
	const uint32_t up = gvf_used_pos(q->vq, GV_LAYOUT_SPLIT), mask = gvf_num(q->vq) - 1;
	uint32_t k = 0;

	while (k < ready) {
		const struct gv_split_used_elem *e = &gvf_split_used(q->vq)[(up + k) & mask];

		if (e->id != ((up + k) & mask) || e->len > gvf_len(q->vq, GV_LAYOUT_SPLIT))
			break;
		fx_got(r, gvf_cookie(q->vq, e->id, GV_LAYOUT_SPLIT), e->len);
		k++;
	}
	return k;
}

/* Post NUM, let the device return 0 and 1 fine, then the bad entry. */
static void hostile(const struct gvt_param *p, enum bad bad)
{
	struct gvt_q q;
	struct gv_split_used *u;

	hostile_start(&q, p, bad == B_ORDER ? GV_VQ_F_IN_ORDER : 0, NUM);
	u = gvt_split_used(&q);
	switch (bad) {
	case B_ID:
		gv_vqd_push(q.vqd, NUM, 1, 1);
		break;
	case B_TWICE:
		gv_vqd_push(q.vqd, 1, 1, 1);
		break;
	case B_LEN:
		gv_vqd_push(q.vqd, 2, 1, BUF + 1);
		break;
	case B_IDX:
		break;
	case B_ORDER:
		gv_vqd_push(q.vqd, 3, 1, 1);
		break;
	default:
		fail_msg("not a split case: %d", (int)bad);
	}
	gv_vqd_publish(q.vqd);
	if (bad == B_IDX)
		u->idx = (uint16_t)(u->idx + NUM);
	hostile_end(&q, p, bad);
}

static void test_hostile(void **state)
{
	static const enum bad cases[] = { B_ID, B_TWICE, B_LEN, B_IDX, B_ORDER };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		hostile(gvt_param(state), cases[i]);
}

/* TX fixed mode: post `n` objects from *next (round robin), lengths from the object index. */
static void tx_post(struct gvt_q *q, uint32_t n, uint32_t *next)
{
	uint32_t done = 0;

	while (done < n) {
		void *pairs;
		uint32_t room;
		void **slots = gvf_tx_slots(q->vq, &room, UINT32_MAX, &pairs, NULL, GV_LAYOUT_SPLIT);
		struct gv_split_desc *d = pairs; /* split: the descriptors themselves */

		assert_true(room > 0);
		if (room > n - done)
			room = n - done;
		for (uint32_t i = 0; i < room; i++) {
			const struct obj *o = &g_obj[(*next)++ % (2 * NUM)];

			slots[i] = (void *)o;
			/* A whole descriptor at once, as a vector store writes it. */
			d[i] = (struct gv_split_desc){ o->addr, 1 + o->idx, 0, 0 };
		}
		gvf_tx_commit(q->vq, room, NULL, GV_LAYOUT_SPLIT);
		done += room;
	}
	gv_vq_kick_prepare(q->vq);
}

/* The used index alone says what came back: the entries' ids do not matter. */
static uint32_t tx_take_back(struct gvt_q *q, const struct gvt_param *p, uint32_t back,
			     uint64_t *seed)
{
	uint32_t k;

	(void)seed;
	for (uint32_t i = 0; i < NUM; i++)
		gvt_split_used(q)->ring[i].id = 0xdead;
	k = gvf_tx_done(q->vq, 2 * NUM, GV_LAYOUT_SPLIT, p->barrier);
	assert_true(gvf_in_step(q->vq, GV_LAYOUT_SPLIT));
	for (uint32_t i = 0; i < k; i++) {
		const uint32_t pos = (gvf_used_pos(q->vq, GV_LAYOUT_SPLIT) + i) % NUM;

		assert_ptr_equal(gvf_cookies(q->vq, GV_LAYOUT_SPLIT)[pos], &g_obj[(back + i) % (2 * NUM)]);
	}
	gvf_tx_take(q->vq, k, GV_LAYOUT_SPLIT);
	return k;
}

static void test_tx(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	uint64_t seed = 0x7a5eedull + p->barrier;
	uint32_t next = 0, back = 0, taken = 0;
	struct gv_vq_stats s;
	struct gvt_q q;

	tx_start(&q, p);
	for (uint32_t i = 0; i < NUM; i++) {
		assert_int_equal(gvt_split_avail(&q)->ring[i], i);
		assert_int_equal(gvt_split_desc(&q)[i].flags, 0);
	}
	tx_rounds(&q, p, 20000, &seed, &next, &back, &taken);
	assert_true(next > 65536); /* the 16-bit avail and used indexes wrapped */
	/* Hostile: the used index runs ahead of what is in flight. */
	tx_post(&q, gvf_room(q.vq), &next);
	gvt_split_used(&q)->idx = (uint16_t)(gvt_split_used(&q)->idx + NUM + 1);
	assert_int_equal(gvf_tx_done(q.vq, 2 * NUM, GV_LAYOUT_SPLIT, p->barrier), 0);
	gv_vq_stats(q.vq, &s);
	assert_int_equal(s.bad_used_idx, 1);
	tx_end_broken(&q, back, next);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_SPLIT(test_enable), GVT_TEST_SPLIT(test_mode_gate),	  GVT_TEST_SPLIT(test_holes),
		GVT_TEST_SPLIT(test_random),	  GVT_TEST_SPLIT(test_random_in_order),
		GVT_TEST_SPLIT(test_hostile),	  GVT_TEST_SPLIT(test_tx),
	};

	return GVT_RUN(tests);
}
