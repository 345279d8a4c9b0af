/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_fixed.h - what the tests of the core's fixed mode share
 * (common/ring/gv_vq_fixed.h; test_fixed.c: split, test_fixed_packed.c:
 * packed), header only: the objects posted as cookies,
 * posting, a queue set up in fixed mode, the device taking chains, the
 * start of the enable and hostile cases and the end of a hostile case
 * (the queue broken with one counter, detach, reset, the mode entered
 * again), and whole cases the includer registers: test_holes,
 * test_random and test_random_in_order (the device takes, returns a
 * random subset in random order, the driver takes in step or one by one
 * and reposts); for TX fixed mode the device side, the start, random
 * rounds and the end of a hostile step.
 *
 * The includer defines NUM (ring size), BUF (buffer length) and
 * GVT_FIXED_L (its layout, a literal, the gvf_* verbs' L), then defines the steps that differ by
 * layout: fx_ready(), fx_step_walk(), holes_in_step(), tx_post() and
 * tx_take_back().
 */
#ifndef GV_TEST_FIXED_H
#define GV_TEST_FIXED_H

#include "gv_test_util.h"
#include "gv_vq_burst.h"
#include "gv_vq_fixed.h"

/* A cookie: the object whose first 8 bytes hold its buffer's address. */
struct obj {
	uint64_t addr;
	uint32_t idx;
};

static uint8_t g_mem[2 * NUM][BUF];
static struct obj g_obj[2 * NUM];

static void objs_init(void)
{
	for (uint32_t i = 0; i < 2 * NUM; i++) {
		g_obj[i].addr = gvt_iova(g_mem[i]);
		g_obj[i].idx = i;
	}
}

/* Post objects from a free list of object indices, then publish; how many. */
static uint32_t post(struct gvt_q *q, uint32_t *free_objs, uint32_t *nfree, uint32_t max)
{
	void *ck[2 * NUM];
	uint32_t n = gvf_room(q->vq), added;

	if (n > *nfree)
		n = *nfree;
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++)
		ck[i] = &g_obj[free_objs[*nfree - 1 - i]];
	added = gvf_add(q->vq, ck, n, 0, 0, GVT_FIXED_L);
	assert_int_equal(added, n);
	*nfree -= n;
	gv_vq_kick_prepare(q->vq);
	return n;
}

static void fixed_setup(struct gvt_q *q, const struct gvt_param *p, uint32_t features)
{
	objs_init();
	gvt_q_setup(q, p, NUM, features, 0);
	assert_int_equal(gvf_enable(q->vq, BUF, GVT_FIXED_L), 0);
	assert_int_equal(gvf_room(q->vq), NUM);
}

/* Take `n` chains on the device (one whole buffer each); their ids in ids[]. */
static void dev_take(struct gvt_q *q, uint16_t *ids, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct gv_chain c;

		assert_int_equal(gv_vqd_take(q->vqd, &c), 1);
		assert_int_equal(c.nseg, 1);
		assert_int_equal(c.in_len, BUF);
		ids[i] = c.id;
	}
}

/* The includer's steps. What is returned and ready to take (split: the used index). */
static uint32_t fx_ready(struct gvt_q *q, const struct gvt_param *p);
/* test_holes: objects 4 and 5 returned in step, checked from the ring as the vector path does. */
static void holes_in_step(struct gvt_q *q);

/*
 * Before the mode: enable refused on the other layout, for a zero length
 * and with a buffer in flight (posted by the general verbs); the device
 * returns it, the fixed verbs move nothing, the general verb takes it
 * back. The caller enters the mode.
 */
static void enable_before(struct gvt_q *q, const struct gvt_param *p)
{
	const enum gv_layout other =
		GVT_FIXED_L == GV_LAYOUT_SPLIT ? GV_LAYOUT_PACKED : GV_LAYOUT_SPLIT;
	void *ck;
	uint32_t len;

	objs_init();
	assert_int_equal(gvt_q_init(q, other, p->barrier, 16, 0, 0), 0);
	assert_int_equal(gvf_enable(q->vq, BUF, GVT_FIXED_L), -EINVAL);
	gvt_q_free(q);
	gvt_q_setup(q, p, NUM, 0, 0);
	assert_int_equal(gvf_enable(q->vq, 0, GVT_FIXED_L), -EINVAL);
	assert_int_equal(gvt_post1(q, g_mem[0], BUF, true, GVT_COOKIE(0)), 0);
	assert_int_equal(gvf_enable(q->vq, BUF, GVT_FIXED_L), -EBUSY);
	gv_vq_flush(q->vq);
	assert_int_equal(gvt_dev_echo(q, 1), 1);
	assert_int_equal(gvf_ready(q->vq, NUM, GVT_FIXED_L, p->barrier), 0);
	if (GVT_FIXED_L == GV_LAYOUT_PACKED)
		assert_int_equal(gvf_take_one(q->vq, &ck, &len, GVT_FIXED_L, p->barrier), 0);
	assert_null(gvf_post_slots(q->vq, &len, GVT_FIXED_L));
	assert_int_equal(len, 0);
	assert_int_equal(gv_vq_get_used(q->vq, &ck, &len, 1), 1);
}

/* Nothing is ready (packed: its verb also finds the next descriptor not used). */
static void nothing_ready(struct gvt_q *q, const struct gvt_param *p)
{
	assert_int_equal(fx_ready(q, p), 0);
	if (GVT_FIXED_L == GV_LAYOUT_PACKED) {
		void *ck;
		uint32_t len;

		assert_int_equal(gvf_take_one(q->vq, &ck, &len, GVT_FIXED_L, p->barrier), 0);
	}
}

/* Take one returned buffer: it is object `obj`, `len` long; then the room is `room`. */
static void take_obj(struct gvt_q *q, const struct gvt_param *p, uint32_t obj, uint32_t len,
		     uint32_t room)
{
	void *ck;
	uint32_t got;

	assert_int_equal(gvf_take_one(q->vq, &ck, &got, GVT_FIXED_L, p->barrier), 1);
	assert_ptr_equal(ck, &g_obj[obj]);
	assert_int_equal(got, len);
	assert_int_equal(gvf_room(q->vq), room);
}

/* The device returns buffer `id` (object id) alone: it is the one ready, taken; then `room`. */
static void back_one(struct gvt_q *q, const struct gvt_param *p, uint16_t id, uint32_t len,
		     uint32_t room)
{
	gv_vqd_push(q->vqd, id, 1, len);
	gv_vqd_publish(q->vqd);
	assert_int_equal(fx_ready(q, p), 1);
	take_obj(q, p, id, len, room);
}

/*
 * The mode is enforced: in fixed mode the general posting and taking
 * verbs, out of line and inline, refuse (-EPERM / 0) and change nothing,
 * not even a returned buffer, which the fixed verbs then take; the queue
 * is not broken. After a reset the general verbs work again.
 */
static void test_mode_gate(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	uint32_t free_objs[2 * NUM], nfree = 0, lens[4];
	const struct gv_seg seg = { gvt_iova(g_mem[NUM]), BUF };
	void *ck[4] = { &g_obj[NUM] };
	uint16_t ids[1];
	struct gvt_q q;

	fixed_setup(&q, p, GV_VQ_F_IN_ORDER);
	for (uint32_t i = 0; i < 2 * NUM; i++)
		free_objs[nfree++] = 2 * NUM - 1 - i;
	assert_int_equal(post(&q, free_objs, &nfree, 2), 2);
	dev_take(&q, ids, 1);
	gv_vqd_push(q.vqd, ids[0], 1, 7);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_add(q.vq, &seg, 0, 1, ck[0], false), -EPERM);
	assert_int_equal(gv_vq_add_burst(q.vq, &seg, ck, 1, true), 0);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 4), 0);
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, 4), 0);
	assert_int_equal(gvb_add(q.vq, &seg, 0, 1, ck[0], false, GVT_FIXED_L, p->barrier), -EPERM);
	assert_int_equal(gvb_add_burst(q.vq, &seg, ck, 1, true, GVT_FIXED_L), 0);
	assert_int_equal(gvb_add_rx_obj(q.vq, ck, 1, 0, 0, BUF, GVT_FIXED_L), 0);
	assert_int_equal(gvb_get_used(q.vq, ck, lens, 4, GVT_FIXED_L, p->barrier), 0);
	assert_int_equal(gvb_reclaim_in_order(q.vq, ck, 4, GVT_FIXED_L, p->barrier), 0);
	assert_false(gv_vq_broken(q.vq));
	assert_int_equal(gv_vq_inflight(q.vq), 2);
	assert_int_equal(fx_ready(&q, p), 1);
	take_obj(&q, p, 0, 7, NUM - 1);
	gvt_q_reset(&q);
	assert_int_equal(gv_vq_add(q.vq, &seg, 0, 1, ck[0], false), 0);
	gvt_q_free(&q);
}

/*
 * Holes: NUM posted (objects 0, 1, 2, ... at descriptors / positions 0,
 * 1, 2, ...), the device takes 6 and returns 3 and 1 first: holes,
 * nothing to repost; then the oldest (0) frees 0 and 1, and 2 frees 2
 * and 3 (returned before): in step again. 4 and 5 come back in step and
 * are taken as the vector path does; reposting writes only the free
 * positions (0..5 get objects NUM..).
 */
static void test_holes(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	uint32_t free_objs[2 * NUM], nfree = 0;
	uint16_t ids[NUM];
	struct gvt_q q;

	fixed_setup(&q, p, 0);
	for (uint32_t i = 0; i < 2 * NUM; i++)
		free_objs[nfree++] = 2 * NUM - 1 - i; /* posts objects 0, 1, 2, ... */
	assert_int_equal(post(&q, free_objs, &nfree, NUM), NUM);
	assert_int_equal(gvf_room(q.vq), 0);
	dev_take(&q, ids, 6);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(ids[i], i);
	gv_vqd_push(q.vqd, 3, 1, 30);
	gv_vqd_push(q.vqd, 1, 1, 10);
	gv_vqd_publish(q.vqd);
	assert_int_equal(fx_ready(&q, p), 2);
	take_obj(&q, p, 3, 30, 0);
	assert_false(gvf_in_step(q.vq, GVT_FIXED_L));
	take_obj(&q, p, 1, 10, 0);
	nothing_ready(&q, p);
	assert_int_equal(gv_vq_inflight(q.vq), NUM - 2);
	back_one(&q, p, 0, 5, 2);
	back_one(&q, p, 2, 20, 4);
	assert_true(gvf_in_step(q.vq, GVT_FIXED_L));
	gv_vqd_push(q.vqd, 4, 1, 40);
	gv_vqd_push(q.vqd, 5, 1, 50);
	gv_vqd_publish(q.vqd);
	assert_int_equal(fx_ready(&q, p), 2);
	holes_in_step(&q);
	gvf_take_in_step(q.vq, 2, GVT_FIXED_L);
	assert_int_equal(gvf_room(q.vq), 6);
	assert_int_equal(gv_vq_inflight(q.vq), NUM - 6);
	assert_int_equal(post(&q, free_objs, &nfree, 6), 6);
	if (GVT_FIXED_L == GV_LAYOUT_SPLIT) {
		assert_int_equal(gvt_split_desc(&q)[0].addr, g_obj[NUM].addr);
		assert_int_equal(gvt_split_desc(&q)[5].addr, g_obj[NUM + 5].addr);
		assert_int_equal(gvt_split_desc(&q)[6].addr, g_obj[6].addr);
	} else {
		assert_int_equal(gvt_packed_desc(&q)[0].addr, g_obj[NUM].addr);
		assert_int_equal(gvt_packed_desc(&q)[5].addr, g_obj[NUM + 5].addr);
		assert_int_equal(gvt_packed_desc(&q)[6].addr, g_obj[6].addr);
		/* Reposted whole: buffer 0 at position 0. */
		assert_int_equal(gvt_packed_desc(&q)[0].id, 0);
		assert_int_equal(gvt_packed_desc(&q)[0].len, BUF);
	}
	gvt_q_free(&q);
}

/*
 * A hostile case's start: `posted` buffers (objects 0, 1, ...), the
 * device takes 4 and returns 0 and 1 fine, the driver takes them.
 */
static void hostile_start(struct gvt_q *q, const struct gvt_param *p, uint32_t features,
			  uint32_t posted)
{
	uint32_t free_objs[NUM], nfree = 0;
	uint16_t ids[4];

	fixed_setup(q, p, features);
	for (uint32_t i = 0; i < NUM; i++)
		free_objs[nfree++] = NUM - 1 - i;
	assert_int_equal(post(q, free_objs, &nfree, posted), posted);
	dev_take(q, ids, 4);
	gv_vqd_push(q->vqd, 0, 1, 10);
	gv_vqd_push(q->vqd, 1, 1, 11);
	gv_vqd_publish(q->vqd);
	assert_int_equal(fx_ready(q, p), 2);
	take_obj(q, p, 0, 10, NUM - posted + 1);
	take_obj(q, p, 1, 11, NUM - posted + 2);
}

/* What a random round's driver side knows: objects out, their lengths, the free list. */
struct fx_round {
	bool in_flight[2 * NUM]; /* objects posted and not returned */
	uint32_t sent_len[2 * NUM];
	uint32_t free_objs[2 * NUM], nfree;
};

/* The driver took object o, `len` long: it was in flight with that length; free again. */
static void fx_got(struct fx_round *r, const struct obj *o, uint32_t len)
{
	assert_true(r->in_flight[o->idx]);
	assert_int_equal(len, r->sent_len[o->idx]);
	r->in_flight[o->idx] = false;
	r->free_objs[r->nfree++] = o->idx;
}

/*
 * The includer's other step: in-step entries from the used position, at most `ready`, checked from
 * the ring as a vector burst does, each passed to fx_got; how many (the
 * caller takes them with fx_take_in_step).
 */
static uint32_t fx_step_walk(struct gvt_q *q, uint32_t ready, struct fx_round *r);

/*
 * Random rounds: the device takes some of what is available, returns a
 * random subset of what it holds in random order (in posting order with
 * IN_ORDER) with random lengths; the driver takes what is ready, in-step
 * runs when it can, one by one otherwise, and reposts.
 */
static void random_rounds(const struct gvt_param *p, uint32_t features, uint64_t seed)
{
	struct gvt_q q;
	struct fx_round r = { .nfree = 0 };
	uint16_t held[NUM];
	uint32_t nheld = 0;
	const bool in_order = features & GV_VQ_F_IN_ORDER;
	uint64_t returned = 0, taken = 0, batched = 0, out_of_step = 0, wraps = 0;

	fixed_setup(&q, p, features);
	for (uint32_t i = 0; i < 2 * NUM; i++)
		r.free_objs[r.nfree++] = i;
	for (uint32_t round = 0; round < 3000; round++) {
		uint32_t n, k, ready;
		const uint32_t wrap0 = GVT_FIXED_L == GV_LAYOUT_PACKED ? gvf_packed_used_wrap(q.vq) : 0;

		/* Post: mark what goes out. */
		for (uint32_t i = 0, m = r.nfree; i < gvf_room(q.vq) && i < m; i++)
			r.in_flight[r.free_objs[m - 1 - i]] = true;
		post(&q, r.free_objs, &r.nfree, 2 * NUM);
		/* Device takes a random number of chains. */
		n = (uint32_t)(gvt_rand(&seed) % (NUM + 1));
		for (k = 0; k < n; k++) {
			struct gv_chain c;
			const struct obj *o = NULL;

			if (gv_vqd_take(q.vqd, &c) != 1)
				break;
			assert_int_equal(c.nseg, 1);
			assert_int_equal(c.in_len, BUF);
			/* The chain's buffer is an object in flight, not held twice. */
			for (uint32_t i = 0; i < 2 * NUM; i++)
				if (g_obj[i].addr == c.seg[0].addr)
					o = &g_obj[i];
			assert_non_null(o);
			assert_true(r.in_flight[o->idx]);
			for (uint32_t i = 0; i < nheld; i++)
				assert_int_not_equal(held[i], c.id);
			held[nheld++] = c.id;
		}
		assert_false(gv_vqd_broken(q.vqd));
		/* Device returns a random subset, in random order (every 4th round) unless IN_ORDER. */
		n = nheld ? (uint32_t)(gvt_rand(&seed) % (nheld + 1)) : 0;
		if (!in_order && gvt_rand(&seed) % 4 == 0)
			for (uint32_t i = nheld; i > 1; i--) {
				uint32_t j = (uint32_t)(gvt_rand(&seed) % i);
				uint16_t t = held[i - 1];

				held[i - 1] = held[j];
				held[j] = t;
			}
		for (k = 0; k < n; k++) {
			uint32_t len = (uint32_t)(gvt_rand(&seed) % (BUF + 1));
			const struct obj *o = (const struct obj *)gvf_cookie(q.vq, held[k], GVT_FIXED_L);

			r.sent_len[o->idx] = len;
			gv_vqd_push(q.vqd, held[k], 1, len);
		}
		memmove(held, held + n, (nheld - n) * sizeof(held[0]));
		nheld -= n;
		gv_vqd_publish(q.vqd);
		returned += n;
		/* Driver takes what is ready: exactly what came back. */
		ready = fx_ready(&q, p);
		assert_int_equal(ready, n);
		k = 0;
		if (gvf_in_step(q.vq, GVT_FIXED_L) && (round & 1)) {
			k = fx_step_walk(&q, ready, &r);
			gvf_take_in_step(q.vq, k, GVT_FIXED_L);
			batched += k;
		}
		for (; k < ready; k++) {
			void *ck = NULL;
			uint32_t len;

			assert_int_equal(gvf_take_one(q.vq, &ck, &len, GVT_FIXED_L, p->barrier), 1);
			fx_got(&r, ck, len);
		}
		nothing_ready(&q, p);
		if (GVT_FIXED_L == GV_LAYOUT_PACKED)
			wraps += gvf_packed_used_wrap(q.vq) != wrap0;
		taken += ready;
		out_of_step += !gvf_in_step(q.vq, GVT_FIXED_L);
		assert_false(gv_vq_broken(q.vq));
		assert_int_equal(gv_vq_inflight(q.vq), nheld + gv_vqd_avail_count(q.vqd, NUM));
		assert_true(gvf_room(q.vq) <= NUM - gv_vq_inflight(q.vq));
	}
	assert_int_equal(taken, returned);
	assert_true(returned > 3000);
	/* Packed: the used position went round the ring often. */
	assert_true(GVT_FIXED_L == GV_LAYOUT_SPLIT || wraps > 100);
	/* Both ways of taking ran; without IN_ORDER, holes were left and closed again. */
	assert_true(batched > 500);
	assert_true(in_order ? out_of_step == 0 : out_of_step > 500);
	gvt_q_free(&q);
}

static void test_random(void **state)
{
	random_rounds(gvt_param(state), 0, 1);
	random_rounds(gvt_param(state), GV_VQ_F_EVENT_IDX, 2);
}

static void test_random_in_order(void **state)
{
	random_rounds(gvt_param(state), GV_VQ_F_IN_ORDER, 3);
}

/* What a hostile case's device writes (each layout has its own subset). */
enum bad { B_ID, B_TWICE, B_LEN, B_FLAGS, B_IDX, B_ORDER, B_BEYOND };

/* The counter that `bad` must raise. */
static uint64_t bad_count(const struct gv_vq_stats *s, enum bad bad)
{
	switch (bad) {
	case B_ID:
		return s->bad_id;
	case B_TWICE:
		return s->id_not_inflight;
	case B_LEN:
		return s->bad_len;
	case B_FLAGS:
		return s->bad_flags;
	case B_IDX:
		return s->bad_used_idx;
	case B_ORDER:
		return s->bad_order;
	case B_BEYOND:
		break;
	}
	fail_msg("no counter for case %d", (int)bad);
	return 0;
}

/*
 * The end of a hostile case, the bad entry written: the general verb
 * refuses it (split: when the used index itself is sane) and the queue is
 * broken with exactly one counter, the one `bad` raises; nothing more
 * goes in or out. Then detach gives
 * every buffer still out (2 .. NUM-1) back once; reset leaves the mode,
 * which can be entered again and moves a buffer.
 */
static void hostile_end(struct gvt_q *q, const struct gvt_param *p, enum bad bad)
{
	uint32_t free_objs[NUM], nfree = 0, seen = 0, len;
	struct gv_vq_stats s;
	uint16_t ids[1];
	void *ck = NULL;

	/* Split: a bad used index breaks the queue in gvf_ready itself. */
	if (gvf_ready(q->vq, NUM, GVT_FIXED_L, p->barrier) >= 1)
		assert_int_equal(gvf_take_one(q->vq, &ck, &len, GVT_FIXED_L, p->barrier), -1);
	assert_true(gv_vq_broken(q->vq));
	gv_vq_stats(q->vq, &s);
	assert_int_equal(gvt_stats_total(&s), 1);
	assert_int_equal(bad_count(&s, bad), 1);
	assert_int_equal(gvf_ready(q->vq, NUM, GVT_FIXED_L, p->barrier), 0);
	if (GVT_FIXED_L == GV_LAYOUT_PACKED)
		assert_int_equal(gvf_take_one(q->vq, &ck, &len, GVT_FIXED_L, p->barrier), -1);
	assert_int_equal(gvf_add(q->vq, (void **)&ck, 1, 0, 0, GVT_FIXED_L), 0);
	while ((ck = gv_vq_detach(q->vq)) != NULL) {
		const struct obj *o = ck;

		assert_true(o->idx >= 2 && o->idx < NUM);
		assert_false(seen & (1u << o->idx));
		seen |= 1u << o->idx;
	}
	assert_int_equal(seen, ((1u << NUM) - 1) & ~3u);
	assert_int_equal(gv_vq_inflight(q->vq), 0);
	gvt_q_reset(q);
	assert_false(gv_vq_broken(q->vq));
	assert_int_equal(gvf_enable(q->vq, BUF, GVT_FIXED_L), 0);
	for (uint32_t i = 0; i < NUM; i++)
		free_objs[nfree++] = i;
	assert_int_equal(post(q, free_objs, &nfree, NUM), NUM);
	dev_take(q, ids, 1);
	gv_vqd_push(q->vqd, ids[0], 1, 7);
	gv_vqd_publish(q->vqd);
	assert_int_equal(fx_ready(q, p), 1);
	assert_int_equal(gvf_take_one(q->vq, &ck, &len, GVT_FIXED_L, p->barrier), 1);
	assert_int_equal(len, 7);
	gvt_q_free(q);
}

/*
 * TX fixed mode, the device side: take every chain posted (objects in
 * round-robin order from *taken): one readable buffer each, at id ==
 * position, with the address and the length (1 + object index) given.
 */
static void tx_dev_take_all(struct gvt_q *q, uint32_t *taken)
{
	struct gv_chain c;

	while (gv_vqd_take(q->vqd, &c) == 1) {
		const uint32_t want = *taken % (2 * NUM);

		assert_int_equal(c.id, *taken % NUM);
		assert_int_equal(c.nseg, 1);
		assert_int_equal(c.n_out, 1);
		assert_int_equal(c.out_len, 1 + want);
		assert_int_equal(c.seg[0].addr, g_obj[want].addr);
		(*taken)++;
	}
}

/*
 * TX fixed mode: the device returns the oldest `ret` it holds (from
 * position `back`) in random runs, each one used entry per buffer or one
 * for the whole run (an IN_ORDER batch), and publishes them.
 */
static void tx_dev_return(struct gvt_q *q, uint32_t back, uint32_t ret, uint64_t *seed)
{
	for (uint32_t i = 0; i < ret;) {
		uint32_t run = 1 + gvt_below(seed, ret - i);

		if (run > 1 && gvt_below(seed, 2)) {
			gv_vqd_push_in_order_batch(q->vqd, (uint16_t)((back + i + run - 1) % NUM), 0,
						   (uint16_t)run, run);
		} else {
			run = 1;
			gv_vqd_push(q->vqd, (uint16_t)((back + i) % NUM), 1, 0);
		}
		i += run;
	}
	gv_vqd_publish(q->vqd);
}

/* TX fixed mode, the includer's steps: post n objects from *next (round robin). */
static void tx_post(struct gvt_q *q, uint32_t n, uint32_t *next);
/*
 * Take back what the device returned (objects from `back`, oldest
 * first), checking each is the object posted there; how many.
 */
static uint32_t tx_take_back(struct gvt_q *q, const struct gvt_param *p, uint32_t back,
			     uint64_t *seed);

/* TX fixed mode: refused without IN_ORDER, then entered on a fresh queue. */
static void tx_start(struct gvt_q *q, const struct gvt_param *p)
{
	objs_init();
	gvt_q_setup(q, p, NUM, 0, 0);
	assert_int_equal(gvf_tx_enable(q->vq, GVT_FIXED_L), -EINVAL);
	gvt_q_free(q);
	gvt_q_setup(q, p, NUM, GV_VQ_F_IN_ORDER, 0);
	assert_int_equal(gvf_tx_enable(q->vq, GVT_FIXED_L), 0);
}

/*
 * TX fixed mode, `rounds` random rounds: the driver posts a random number
 * of buffers, the device takes them all and returns a random run of the
 * oldest it holds (tx_dev_return), the driver takes back exactly those
 * (tx_take_back); the room then counts every buffer still out.
 */
static void tx_rounds(struct gvt_q *q, const struct gvt_param *p, uint32_t rounds,
		      uint64_t *seed, uint32_t *next, uint32_t *back, uint32_t *taken)
{
	for (uint32_t round = 0; round < rounds; round++) {
		uint32_t ret;

		tx_post(q, gvt_below(seed, gvf_room(q->vq) + 1), next);
		tx_dev_take_all(q, taken);
		assert_int_equal(*taken, *next);
		ret = gvt_below(seed, *taken - *back + 1);
		tx_dev_return(q, *back, ret, seed);
		assert_int_equal(tx_take_back(q, p, *back, seed), ret);
		*back += ret;
		assert_int_equal(gvf_room(q->vq), NUM - (*next - *back));
	}
}

/*
 * TX fixed mode, the end of a hostile step: the queue broke with exactly
 * one counter, and detach gives back every buffer still out, oldest
 * first (objects back..next-1); the queue is freed.
 */
static void tx_end_broken(struct gvt_q *q, uint32_t back, uint32_t next)
{
	struct gv_vq_stats s;
	uint32_t seen = 0;
	void *ck;

	assert_true(gv_vq_broken(q->vq));
	gv_vq_stats(q->vq, &s);
	assert_int_equal(gvt_stats_total(&s), 1);
	while ((ck = gv_vq_detach(q->vq)) != NULL) {
		assert_ptr_equal(ck, &g_obj[(back + seen) % (2 * NUM)]);
		seen++;
	}
	assert_int_equal(seen, next - back);
	gvt_q_free(q);
}

#endif /* GV_TEST_FIXED_H */
