/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fixed_packed.c - the packed ring's fixed mode
 * (common/ring/gv_vq_fixed_packed.h), the core under the packed vector RX
 * paths, against the device end, both barrier policies, on a ring size
 * that is not a power of two:
 *   enable      refused on a split ring, a zero length, buffers in flight;
 *               before it, the fixed verbs move nothing; buffer i sits at
 *               position i, whole, the batch's first flags held back
 *               until the kick decision
 *   holes       buffers returned ahead of the oldest free nothing for
 *               reposting until the oldest comes back (exact room counts)
 *   random      thousands of rounds, device order random (in order with
 *               IN_ORDER), lengths random, both ways of taking (in-step
 *               runs checked from the ring as a vector burst does, and
 *               one by one): every cookie comes back once with its
 *               length, the device never gets a buffer still in flight
 *               and never sees a malformed chain
 *   hostile     bad id, id not in flight, length beyond the buffer,
 *               impossible flags, IN_ORDER out of order, used flags
 *               beyond what is in flight: the queue breaks with exactly
 *               that counter (or ignores what is not in flight), detach
 *               gives every outstanding cookie back once, reset and
 *               re-enable work
 *   threads     the device end on a second thread (not pinned), IN_ORDER,
 *               a 60-descriptor ring: 200000 buffers, each filled with its
 *               sequence number and returned with a length derived from
 *               it; the driver takes them in-step (flags, then id and
 *               length, as a vector burst) or one by one and checks each
 *               one's bytes and length; bounded by a deadline
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "gv_test_util.h"
#include "gv_vq_fixed_packed.h"

enum { NUM = 12, BUF = 128 };

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
	uint32_t n = gvpf_room(q->vq), added;

	if (n > *nfree)
		n = *nfree;
	if (n > max)
		n = max;
	for (uint32_t i = 0; i < n; i++)
		ck[i] = &g_obj[free_objs[*nfree - 1 - i]];
	added = gvpf_add(q->vq, ck, n, 0, 0);
	assert_int_equal(added, n);
	*nfree -= n;
	gv_vq_kick_prepare(q->vq);
	return n;
}

static void fixed_setup(struct gvt_q *q, const struct gvt_param *p, uint32_t features)
{
	objs_init();
	gvt_q_setup(q, p, NUM, features, 0);
	assert_int_equal(gvpf_enable(q->vq, BUF), 0);
	assert_int_equal(gvpf_room(q->vq), NUM);
}

static void test_enable(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	void *ck;
	uint32_t len;
	void *cks[4] = { &g_obj[0], &g_obj[1], &g_obj[2], &g_obj[3] };

	objs_init();
	assert_int_equal(gvt_q_init(&q, GV_LAYOUT_SPLIT, p->barrier, 16, 0, 0), 0);
	assert_int_equal(gvpf_enable(q.vq, BUF), -EINVAL);
	gvt_q_free(&q);
	gvt_q_setup(&q, p, NUM, 0, 0);
	assert_int_equal(gvpf_enable(q.vq, 0), -EINVAL);
	assert_int_equal(gvt_post1(&q, g_mem[0], BUF, true, GVT_COOKIE(0)), 0);
	assert_int_equal(gvpf_enable(q.vq, BUF), -EBUSY);
	gv_vq_flush(q.vq);
	assert_int_equal(gvt_dev_echo(&q, 1), 1);
	/* Not in fixed mode: the fixed verbs move nothing. */
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 0);
	assert_null(gvpf_post_slots(q.vq, &len));
	assert_int_equal(len, 0);
	assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 1), 1);
	/* Entered one position into the ring: buffer ids follow positions. */
	assert_int_equal(gvpf_enable(q.vq, BUF), 0);
	assert_int_equal(gvpf_used_pos(q.vq), 1);
	assert_int_equal(gvpf_add(q.vq, cks, 4, 0, 0), 4);
	/* The first one's flags are held back; the others are whole. */
	assert_int_equal(gvt_packed_desc(&q)[1].flags, 0);
	for (uint32_t i = 1; i <= 4; i++) {
		const struct gv_packed_desc *d = &gvt_packed_desc(&q)[i];

		assert_int_equal(d->id, i);
		assert_int_equal(d->len, BUF);
		assert_int_equal(d->addr, g_obj[i - 1].addr);
		if (i > 1)
			assert_int_equal(d->flags, GV_DESC_F_WRITE | GV_DESC_F_AVAIL);
	}
	assert_int_equal(gv_vqd_avail_count(q.vqd, NUM), 0);
	gv_vq_kick_prepare(q.vq);
	assert_int_equal(gvt_packed_desc(&q)[1].flags, GV_DESC_F_WRITE | GV_DESC_F_AVAIL);
	assert_int_equal(gv_vqd_avail_count(q.vqd, NUM), 4);
	/* Nothing used yet: nothing taken, not broken. */
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 0);
	assert_int_equal(gv_vq_used_pending(q.vq), 0);
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

/* Take `n` chains on the device; their ids in ids[]. */
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

/* Take one used buffer: it is object `obj`, `len` long; then the room is `room`. */
static void take_one(struct gvt_q *q, const struct gvt_param *p, uint32_t obj, uint32_t len,
		     uint32_t room)
{
	void *ck;
	uint32_t got;

	assert_int_equal(gvpf_take_one(q->vq, &ck, &got, p->barrier), 1);
	assert_ptr_equal(ck, &g_obj[obj]);
	assert_int_equal(got, len);
	assert_int_equal(gvpf_room(q->vq), room);
}

static void test_holes(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	uint32_t free_objs[2 * NUM], nfree = 0;
	uint16_t ids[NUM];
	void *ck;
	uint32_t len;

	fixed_setup(&q, p, 0);
	for (uint32_t i = 0; i < 2 * NUM; i++)
		free_objs[nfree++] = 2 * NUM - 1 - i; /* posts objects 0, 1, 2, ... */
	assert_int_equal(post(&q, free_objs, &nfree, NUM), NUM);
	assert_int_equal(gvpf_room(q.vq), 0);
	dev_take(&q, ids, 6);
	for (uint32_t i = 0; i < 6; i++)
		assert_int_equal(ids[i], i); /* buffer i at position i */
	/* 3 and 1 first: holes, nothing to repost. */
	gv_vqd_push(q.vqd, 3, 1, 30);
	gv_vqd_push(q.vqd, 1, 1, 10);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_used_pending(q.vq), 2);
	take_one(&q, p, 3, 30, 0);
	assert_false(gvpf_in_step(q.vq));
	take_one(&q, p, 1, 10, 0);
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 0);
	assert_int_equal(gv_vq_inflight(q.vq), NUM - 2);
	/* The oldest (0): 0 and 1 can be posted again; 2 is still out. */
	gv_vqd_push(q.vqd, 0, 1, 5);
	gv_vqd_publish(q.vqd);
	take_one(&q, p, 0, 5, 2);
	/* 2: then 3 (returned before) too. */
	gv_vqd_push(q.vqd, 2, 1, 20);
	gv_vqd_publish(q.vqd);
	take_one(&q, p, 2, 20, 4);
	assert_true(gvpf_in_step(q.vq));
	/* In step again: 4 and 5 at positions 4 and 5, as the vector path takes them. */
	gv_vqd_push(q.vqd, 4, 1, 40);
	gv_vqd_push(q.vqd, 5, 1, 50);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gvpf_used_pos(q.vq), 4);
	for (uint32_t k = 0; k < 2; k++) {
		const struct gv_packed_desc *d = &gvpf_ring(q.vq)[4 + k];

		assert_int_equal(d->flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED),
				 GVPF_USED_BITS(gvpf_used_wrap(q.vq)));
		assert_int_equal(d->id, 4 + k);
		assert_int_equal(d->len, 40 + 10 * k);
		assert_ptr_equal(gvpf_cookie(q.vq, d->id), &g_obj[4 + k]);
	}
	gvpf_take_in_step(q.vq, 2);
	assert_int_equal(gvpf_room(q.vq), 6);
	assert_int_equal(gv_vq_inflight(q.vq), NUM - 6);
	/* Reposting writes only the free positions: 0..5 get objects 12.. */
	assert_int_equal(post(&q, free_objs, &nfree, 6), 6);
	assert_int_equal(gvt_packed_desc(&q)[0].addr, g_obj[NUM].addr);
	assert_int_equal(gvt_packed_desc(&q)[5].addr, g_obj[NUM + 5].addr);
	assert_int_equal(gvt_packed_desc(&q)[6].addr, g_obj[6].addr);
	assert_int_equal(gvt_packed_desc(&q)[0].id, 0);
	assert_int_equal(gvt_packed_desc(&q)[0].len, BUF);
	gvt_q_free(&q);
}

/*
 * Random rounds: the device takes some of what is available, returns a
 * random subset of what it holds in random order (in posting order with
 * IN_ORDER) with random lengths; the driver takes what is used, in-step
 * runs when it can, one by one otherwise, and reposts.
 */
static void random_rounds(const struct gvt_param *p, uint32_t features, uint64_t seed)
{
	struct gvt_q q;
	uint32_t free_objs[2 * NUM], nfree = 0;
	uint16_t held[NUM];
	uint32_t nheld = 0, sent_len[2 * NUM];
	bool in_flight[2 * NUM] = { false }; /* objects posted and not returned */
	const bool in_order = features & GV_VQ_F_IN_ORDER;
	uint64_t returned = 0, taken = 0, batched = 0, out_of_step = 0, wraps = 0;

	fixed_setup(&q, p, features);
	for (uint32_t i = 0; i < 2 * NUM; i++)
		free_objs[nfree++] = i;
	for (uint32_t round = 0; round < 3000; round++) {
		uint32_t n, k, ready;
		const uint32_t wrap0 = gvpf_used_wrap(q.vq);

		for (uint32_t i = 0, m = nfree; i < gvpf_room(q.vq) && i < m; i++)
			in_flight[free_objs[m - 1 - i]] = true;
		post(&q, free_objs, &nfree, 2 * NUM);
		n = (uint32_t)(gvt_rand(&seed) % (NUM + 1));
		for (k = 0; k < n; k++) {
			struct gv_chain c;
			const struct obj *o = NULL;

			if (gv_vqd_take(q.vqd, &c) != 1)
				break;
			assert_int_equal(c.nseg, 1);
			assert_int_equal(c.in_len, BUF);
			for (uint32_t i = 0; i < 2 * NUM; i++)
				if (g_obj[i].addr == c.seg[0].addr)
					o = &g_obj[i];
			assert_non_null(o);
			assert_true(in_flight[o->idx]);
			for (uint32_t i = 0; i < nheld; i++)
				assert_int_not_equal(held[i], c.id);
			held[nheld++] = c.id;
		}
		assert_false(gv_vqd_broken(q.vqd));
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
			const struct obj *o = (const struct obj *)gvpf_cookie(q.vq, held[k]);

			sent_len[o->idx] = len;
			gv_vqd_push(q.vqd, held[k], 1, len);
		}
		memmove(held, held + n, (nheld - n) * sizeof(held[0]));
		nheld -= n;
		gv_vqd_publish(q.vqd);
		returned += n;
		ready = gv_vq_used_pending(q.vq);
		assert_int_equal(ready, n);
		k = 0;
		if (gvpf_in_step(q.vq) && (round & 1)) {
			uint32_t pos = gvpf_used_pos(q.vq), w = gvpf_used_wrap(q.vq);

			/* As a vector burst: flags, id == position, length, across the ring end. */
			while (k < ready && k < gvpf_inflight(q.vq)) {
				const struct gv_packed_desc *d = &gvpf_ring(q.vq)[pos];
				const struct obj *o;

				if ((d->flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) != GVPF_USED_BITS(w) ||
				    d->id != pos || d->len > gvpf_len(q.vq))
					break;
				o = (const struct obj *)gvpf_cookie(q.vq, d->id);
				assert_true(in_flight[o->idx]);
				assert_int_equal(d->len, sent_len[o->idx]);
				in_flight[o->idx] = false;
				free_objs[nfree++] = o->idx;
				k++;
				if (++pos == NUM) {
					pos = 0;
					w ^= 1;
				}
			}
			gvpf_take_in_step(q.vq, k);
			batched += k;
		}
		for (; k < ready; k++) {
			void *ck = NULL;
			uint32_t len;
			const struct obj *o;

			assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 1);
			o = ck;
			assert_true(in_flight[o->idx]);
			assert_int_equal(len, sent_len[o->idx]);
			in_flight[o->idx] = false;
			free_objs[nfree++] = o->idx;
		}
		{
			void *ck;
			uint32_t len;

			/* Nothing more is used. */
			assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 0);
		}
		taken += ready;
		wraps += gvpf_used_wrap(q.vq) != wrap0;
		out_of_step += !gvpf_in_step(q.vq);
		assert_false(gv_vq_broken(q.vq));
		assert_int_equal(gv_vq_inflight(q.vq), nheld + gv_vqd_avail_count(q.vqd, NUM));
		assert_true(gvpf_room(q.vq) <= NUM - gv_vq_inflight(q.vq));
	}
	assert_int_equal(taken, returned);
	assert_true(returned > 3000);
	assert_true(wraps > 100);
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

enum bad { B_ID, B_TWICE, B_LEN, B_FLAGS, B_ORDER, B_BEYOND };

/* Post NUM (or 4 for B_BEYOND), let the device return 0 and 1 fine, then the bad entry. */
static void hostile(const struct gvt_param *p, enum bad bad)
{
	struct gvt_q q;
	uint32_t free_objs[2 * NUM], nfree = 0, seen = 0, posted = bad == B_BEYOND ? 4 : NUM;
	uint16_t ids[NUM];
	struct gv_vq_stats s;
	void *ck = NULL;
	uint32_t len;
	struct gv_packed_desc *d;

	fixed_setup(&q, p, bad == B_ORDER ? GV_VQ_F_IN_ORDER : 0);
	for (uint32_t i = 0; i < NUM; i++)
		free_objs[nfree++] = NUM - 1 - i;
	assert_int_equal(post(&q, free_objs, &nfree, posted), posted);
	dev_take(&q, ids, 4);
	gv_vqd_push(q.vqd, 0, 1, 10);
	gv_vqd_push(q.vqd, 1, 1, 11);
	gv_vqd_publish(q.vqd);
	take_one(&q, p, 0, 10, NUM - posted + 1);
	take_one(&q, p, 1, 11, NUM - posted + 2);
	d = &gvt_packed_desc(&q)[2];
	switch (bad) {
	case B_ID:
		gvt_packed_write(&q, 2, NUM, 1, gvt_packed_used_flags(true));
		break;
	case B_TWICE:
		gvt_packed_write(&q, 2, 1, 1, gvt_packed_used_flags(true));
		break;
	case B_LEN:
		gvt_packed_write(&q, 2, 2, BUF + 1, gvt_packed_used_flags(true));
		break;
	case B_FLAGS: /* USED without AVAIL in lap 1: neither available nor used */
		gvt_packed_write(&q, 2, 2, 1, GV_DESC_F_USED);
		break;
	case B_ORDER:
		gvt_packed_write(&q, 2, 3, 1, gvt_packed_used_flags(true));
		break;
	case B_BEYOND:
		/* 2 and 3 back; then "used" flags at 4 and 5, which were never posted. */
		gv_vqd_push(q.vqd, 2, 1, 12);
		gv_vqd_push(q.vqd, 3, 1, 13);
		gv_vqd_publish(q.vqd);
		gvt_packed_write(&q, 4, 4, 1, gvt_packed_used_flags(true));
		gvt_packed_write(&q, 5, 5, 1, gvt_packed_used_flags(true));
		take_one(&q, p, 2, 12, NUM - 1);
		take_one(&q, p, 3, 13, NUM);
		assert_int_equal(gv_vq_used_pending(q.vq), 0);
		assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 0);
		assert_false(gv_vq_broken(q.vq));
		assert_null(gv_vq_detach(q.vq));
		gvt_q_free(&q);
		return;
	}
	(void)d;
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), -1);
	assert_true(gv_vq_broken(q.vq));
	gv_vq_stats(q.vq, &s);
	assert_int_equal(gvt_stats_total(&s), 1);
	assert_int_equal(bad == B_ID ? s.bad_id : bad == B_TWICE ? s.id_not_inflight
				  : bad == B_LEN ? s.bad_len : bad == B_FLAGS ? s.bad_flags
				  : s.bad_order, 1);
	/* Broken: nothing more goes in or out. */
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), -1);
	assert_int_equal(gvpf_add(q.vq, (void **)&ck, 1, 0, 0), 0);
	/* Detach: every buffer still out (2 .. NUM-1), once each. */
	while ((ck = gv_vq_detach(q.vq)) != NULL) {
		const struct obj *o = ck;

		assert_true(o->idx >= 2 && o->idx < NUM);
		assert_false(seen & (1u << o->idx));
		seen |= 1u << o->idx;
	}
	assert_int_equal(seen, ((1u << NUM) - 1) & ~3u);
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	/* Reset leaves the mode; it can be entered again. */
	gvt_q_reset(&q);
	assert_false(gv_vq_broken(q.vq));
	assert_int_equal(gvpf_enable(q.vq, BUF), 0);
	nfree = 0;
	for (uint32_t i = 0; i < NUM; i++)
		free_objs[nfree++] = i;
	assert_int_equal(post(&q, free_objs, &nfree, NUM), NUM);
	dev_take(&q, ids, 1);
	gv_vqd_push(q.vqd, ids[0], 1, 7);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gvpf_take_one(q.vq, &ck, &len, p->barrier), 1);
	assert_int_equal(len, 7);
	gvt_q_free(&q);
}

static void test_hostile(void **state)
{
	for (int b = B_ID; b <= B_BEYOND; b++)
		hostile(gvt_param(state), (enum bad)b);
}

/* ------------------------------------------------------------ threads -- */

enum { T_NUM = 60, T_OBJS = 2 * T_NUM, T_BUF = 64, T_BUFS = 200000 };

struct two {
	struct gvt_q q;
	atomic_int stop;
	atomic_int dev_fail; /* what the device saw wrong, 0: nothing */
	uint8_t mem[T_OBJS][T_BUF];
	struct obj obj[T_OBJS];
};

static uint32_t t_len(uint32_t seq)
{
	return 4 + seq % (T_BUF - 3); /* 4..T_BUF */
}

static double t_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The device: takes chains in order, writes seq into each, returns it in order. */
static void *t_device(void *arg)
{
	struct two *t = arg;
	uint32_t seq = 0, unpublished = 0;

	while (!atomic_load(&t->stop)) {
		struct gv_chain c;
		int rc = gv_vqd_take(t->q.vqd, &c);

		if (rc == 1) {
			if (c.nseg != 1 || c.in_len != T_BUF || c.seg[0].len != T_BUF) {
				atomic_store(&t->dev_fail, 1);
				break;
			}
			memcpy(c.seg[0].ptr, &seq, sizeof(seq));
			gv_vqd_push(t->q.vqd, c.id, 1, t_len(seq));
			seq++;
			if (++unpublished < (seq % 7) + 1)
				continue;
		} else if (rc != 0) {
			atomic_store(&t->dev_fail, 2);
			break;
		}
		gv_vqd_publish(t->q.vqd);
		unpublished = 0;
		if (rc == 0)
			sched_yield();
	}
	gv_vqd_publish(t->q.vqd);
	return NULL;
}

static void threads(const struct gvt_param *p)
{
	struct two *t = calloc(1, sizeof(*t));
	uint32_t free_objs[T_OBJS], nfree = 0, seq = 0, batched = 0, single = 0;
	uint64_t spins = 0, rs = 7;
	const double deadline = t_now() + 120.0;
	pthread_t th;

	assert_non_null(t);
	for (uint32_t i = 0; i < T_OBJS; i++) {
		t->obj[i].addr = gvt_iova(t->mem[i]);
		t->obj[i].idx = i;
		free_objs[nfree++] = i;
	}
	gvt_q_setup(&t->q, p, T_NUM, GV_VQ_F_IN_ORDER | GV_VQ_F_EVENT_IDX, 0);
	assert_int_equal(gvpf_enable(t->q.vq, T_BUF), 0);
	assert_int_equal(pthread_create(&th, NULL, t_device, t), 0);
	while (seq < T_BUFS && t_now() < deadline && !atomic_load(&t->dev_fail)) {
		void *ck[T_OBJS];
		uint32_t n = gvpf_room(t->q.vq) < nfree ? gvpf_room(t->q.vq) : nfree, k = 0;

		for (uint32_t i = 0; i < n; i++)
			ck[i] = &t->obj[free_objs[--nfree]];
		if (gvpf_add(t->q.vq, ck, n, 0, 0) != n)
			break;
		gv_vq_kick_prepare(t->q.vq);
		if (gvpf_in_step(t->q.vq) && (gvt_rand(&rs) & 1)) {
			/* In step, as a vector burst: flags, barrier, then id and length. */
			uint32_t pos = gvpf_used_pos(t->q.vq), w = gvpf_used_wrap(t->q.vq);

			while (k < gvpf_inflight(t->q.vq)) {
				const struct gv_packed_desc *d = &gvpf_ring(t->q.vq)[pos];
				const uint16_t f = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);
				const struct obj *o;

				if ((f & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) != GVPF_USED_BITS(w))
					break;
				assert_int_equal(d->id, pos);
				o = gvpf_cookie(t->q.vq, pos);
				assert_int_equal(d->len, t_len(seq + k));
				assert_memory_equal(t->mem[o->idx], &(uint32_t){ seq + k }, 4);
				free_objs[nfree++] = o->idx;
				k++;
				if (++pos == T_NUM) {
					pos = 0;
					w ^= 1;
				}
			}
			gvpf_take_in_step(t->q.vq, k);
			batched += k;
		} else {
			void *c;
			uint32_t len;
			int rc;

			while ((rc = gvpf_take_one(t->q.vq, &c, &len, p->barrier)) == 1) {
				const struct obj *o = c;

				assert_int_equal(len, t_len(seq + k));
				assert_memory_equal(t->mem[o->idx], &(uint32_t){ seq + k }, 4);
				free_objs[nfree++] = o->idx;
				k++;
			}
			assert_int_equal(rc, 0);
			single += k;
		}
		seq += k;
		spins++;
		if (k == 0)
			sched_yield();
	}
	atomic_store(&t->stop, 1);
	assert_int_equal(pthread_join(th, NULL), 0);
	print_message("%u buffers (%u in step, %u one by one) in %" PRIu64 " rounds\n", seq, batched,
		      single, spins);
	assert_int_equal(atomic_load(&t->dev_fail), 0);
	assert_true(seq >= T_BUFS);
	assert_true(batched > 0 && single > 0);
	assert_false(gv_vq_broken(t->q.vq));
	assert_false(gv_vqd_broken(t->q.vqd));
	gvt_q_free(&t->q);
	free(t);
}

static void test_threads(void **state)
{
	threads(gvt_param(state));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_PACKED(test_enable),	   GVT_TEST_PACKED(test_holes),
		GVT_TEST_PACKED(test_random),	   GVT_TEST_PACKED(test_random_in_order),
		GVT_TEST_PACKED(test_hostile),	   GVT_TEST_PACKED(test_threads),
	};

	return GVT_RUN(tests);
}
