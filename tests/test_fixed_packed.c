/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fixed_packed.c - the packed ring's fixed mode
 * (common/ring/gv_vq_fixed.h on a packed ring; gv_vq_fixed_packed.h), the core under the packed vector RX
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
 *   tx          TX fixed mode (gvf_tx_enable): refused without IN_ORDER;
 *               thousands of rounds of random post sizes over many laps,
 *               the device sees one readable descriptor per buffer with
 *               the address and length given, at id == position, and
 *               returns random runs, one used descriptor each or one for
 *               a whole batch; the driver takes each run in random slices,
 *               oldest first; an id beyond what is in flight breaks the
 *               queue (id_not_inflight) and detach gives every buffer back
 *   tx_reset    a batch's remainder kept across calls, gone after detach and
 *               reset; a used descriptor naming a buffer whose head is held
 *               back (not published) breaks the queue
 * What it shares with test_fixed.c: gv_test_fixed.h.
 */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

enum { NUM = 12, BUF = 128 };
#define GVT_FIXED_L GV_LAYOUT_PACKED

#include "gv_test_fixed.h"

static void test_enable(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	void *ck;
	uint32_t len;
	void *cks[4] = { &g_obj[0], &g_obj[1], &g_obj[2], &g_obj[3] };

	enable_before(&q, p);
	/* Entered one position into the ring: buffer ids follow positions. */
	assert_int_equal(gvf_enable(q.vq, BUF, GV_LAYOUT_PACKED), 0);
	assert_int_equal(gvf_used_pos(q.vq, GV_LAYOUT_PACKED), 1);
	assert_int_equal(gvf_add(q.vq, cks, 4, 0, 0, GV_LAYOUT_PACKED), 4);
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
	assert_int_equal(packed_fixed_take_one(q.vq, &ck, &len, p->barrier), 0);
	assert_int_equal(gv_vq_used_pending(q.vq), 0);
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

/* test_holes: 4 and 5 in step at positions 4 and 5, as the vector path takes them. */
static void holes_in_step(struct gvt_q *q)
{
	assert_int_equal(gvf_used_pos(q->vq, GV_LAYOUT_PACKED), 4);
	for (uint32_t k = 0; k < 2; k++) {
		const struct gv_packed_desc *d = &gvf_packed_ring(q->vq)[4 + k];

		assert_int_equal(d->flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED),
				 GVPF_USED_BITS(gvf_packed_used_wrap(q->vq)));
		assert_int_equal(d->id, 4 + k);
		assert_int_equal(d->len, 40 + 10 * k);
		assert_ptr_equal(gvf_cookie(q->vq, d->id, GV_LAYOUT_PACKED), &g_obj[4 + k]);
	}
}

/* The packed steps gv_test_fixed.h calls: ready = descriptors used from the used position. */
static uint32_t fx_ready(struct gvt_q *q, const struct gvt_param *p)
{
	(void)p;
	return gv_vq_used_pending(q->vq);
}

/* As a vector burst: flags, id == position, length, across the ring end. */
static uint32_t fx_step_walk(struct gvt_q *q, uint32_t ready, struct fx_round *r)
{
	uint32_t pos = gvf_used_pos(q->vq, GV_LAYOUT_PACKED), w = gvf_packed_used_wrap(q->vq), k = 0;

	while (k < ready && k < gvf_inflight(q->vq)) {
		const struct gv_packed_desc *d = &gvf_packed_ring(q->vq)[pos];

		if ((d->flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) != GVPF_USED_BITS(w) ||
		    d->id != pos || d->len > gvf_len(q->vq, GV_LAYOUT_PACKED))
			break;
		fx_got(r, gvf_cookie(q->vq, d->id, GV_LAYOUT_PACKED), d->len);
		k++;
		if (++pos == NUM) {
			pos = 0;
			w ^= 1;
		}
	}
	return k;
}

/* Post NUM (or 4 for B_BEYOND), let the device return 0 and 1 fine, then the bad entry. */
static void hostile(const struct gvt_param *p, enum bad bad)
{
	struct gvt_q q;
	void *ck = NULL;
	uint32_t len;

	hostile_start(&q, p, bad == B_ORDER ? GV_VQ_F_IN_ORDER : 0, bad == B_BEYOND ? 4 : NUM);
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
		take_obj(&q, p, 2, 12, NUM - 1);
		take_obj(&q, p, 3, 13, NUM);
		assert_int_equal(gv_vq_used_pending(q.vq), 0);
		assert_int_equal(packed_fixed_take_one(q.vq, &ck, &len, p->barrier), 0);
		assert_false(gv_vq_broken(q.vq));
		assert_null(gv_vq_detach(q.vq));
		gvt_q_free(&q);
		return;
	default:
		fail_msg("not a packed case: %d", (int)bad);
	}
	hostile_end(&q, p, bad);
}

static void test_hostile(void **state)
{
	static const enum bad cases[] = { B_ID, B_TWICE, B_LEN, B_FLAGS, B_ORDER, B_BEYOND };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		hostile(gvt_param(state), cases[i]);
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
	assert_int_equal(gvf_enable(t->q.vq, T_BUF, GV_LAYOUT_PACKED), 0);
	assert_int_equal(pthread_create(&th, NULL, t_device, t), 0);
	while (seq < T_BUFS && t_now() < deadline && !atomic_load(&t->dev_fail)) {
		void *ck[T_OBJS];
		uint32_t n = gvf_room(t->q.vq) < nfree ? gvf_room(t->q.vq) : nfree, k = 0;

		for (uint32_t i = 0; i < n; i++)
			ck[i] = &t->obj[free_objs[--nfree]];
		if (gvf_add(t->q.vq, ck, n, 0, 0, GV_LAYOUT_PACKED) != n)
			break;
		gv_vq_kick_prepare(t->q.vq);
		if (gvf_in_step(t->q.vq, GV_LAYOUT_PACKED) && (gvt_rand(&rs) & 1)) {
			/* In step, as a vector burst: flags, barrier, then id and length. */
			uint32_t pos = gvf_used_pos(t->q.vq, GV_LAYOUT_PACKED), w = gvf_packed_used_wrap(t->q.vq);

			while (k < gvf_inflight(t->q.vq)) {
				const struct gv_packed_desc *d = &gvf_packed_ring(t->q.vq)[pos];
				const uint16_t f = __atomic_load_n(&d->flags, __ATOMIC_ACQUIRE);
				const struct obj *o;

				if ((f & (GV_DESC_F_AVAIL | GV_DESC_F_USED)) != GVPF_USED_BITS(w))
					break;
				assert_int_equal(d->id, pos);
				o = gvf_cookie(t->q.vq, pos, GV_LAYOUT_PACKED);
				assert_int_equal(d->len, t_len(seq + k));
				assert_memory_equal(t->mem[o->idx], &(uint32_t){ seq + k }, 4);
				free_objs[nfree++] = o->idx;
				k++;
				if (++pos == T_NUM) {
					pos = 0;
					w ^= 1;
				}
			}
			packed_fixed_take_in_step(t->q.vq, k);
			batched += k;
		} else {
			void *c;
			uint32_t len;
			int rc;

			while ((rc = packed_fixed_take_one(t->q.vq, &c, &len, p->barrier)) == 1) {
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

/*
 * TX fixed mode: post `n` objects from *next (round robin), lengths from
 * the object index; published (the kick decision) when `publish`.
 */
static void tx_post_p(struct gvt_q *q, uint32_t n, uint32_t *next, bool publish)
{
	uint32_t done = 0;

	while (done < n) {
		struct gv_seg segs[NUM];
		void *pairs;
		uint32_t room;
		void **slots = gvf_tx_slots(q->vq, &room, NUM, &pairs, segs, GV_LAYOUT_PACKED);

		assert_true(room > 0);
		if (room > n - done)
			room = n - done;
		for (uint32_t i = 0; i < room; i++) {
			const struct obj *o = &g_obj[(*next)++ % (2 * NUM)];

			slots[i] = (void *)o;
			((struct gv_seg *)pairs)[i] = (struct gv_seg){ o->addr, 1 + o->idx };
		}
		gvf_tx_commit(q->vq, room, segs, GV_LAYOUT_PACKED);
		done += room;
	}
	if (publish)
		gv_vq_kick_prepare(q->vq);
}

static void tx_post(struct gvt_q *q, uint32_t n, uint32_t *next)
{
	tx_post_p(q, n, next, true);
}

/* Used descriptors, one per buffer or per batch, taken in random slices, oldest first. */
static uint32_t tx_take_back(struct gvt_q *q, const struct gvt_param *p, uint32_t back,
			     uint64_t *seed)
{
	uint32_t got = 0, k;

	while ((k = gvf_tx_done(q->vq, UINT32_MAX, GV_LAYOUT_PACKED, p->barrier)) > 0) {
		uint32_t t = 1 + gvt_below(seed, k);

		for (uint32_t i = 0; i < t; i++) {
			const uint32_t pos = (gvf_used_pos(q->vq, GV_LAYOUT_PACKED) + i) % NUM;

			assert_ptr_equal(gvf_cookies(q->vq, GV_LAYOUT_PACKED)[pos],
					 &g_obj[(back + got + i) % (2 * NUM)]);
		}
		gvf_tx_take(q->vq, t, GV_LAYOUT_PACKED);
		got += t;
	}
	assert_false(gv_vq_broken(q->vq));
	return got;
}

static void test_tx(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	uint64_t seed = 0x7a5eedull + p->barrier;
	uint32_t next = 0, back = 0, taken = 0;
	struct gv_vq_stats s;
	struct gvt_q q;

	tx_start(&q, p);
	tx_rounds(&q, p, 20000, &seed, &next, &back, &taken);
	assert_true(next > 1000 * NUM); /* many laps: both wrap counters flipped often */
	/* Everything back, then a hostile batch that ends one past the 2 in flight. */
	if (next != back) {
		gv_vqd_push_in_order_batch(q.vqd, (uint16_t)((next - 1) % NUM), 0,
					   (uint16_t)(next - back), next - back);
		gv_vqd_publish(q.vqd);
		assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), (int32_t)(next - back));
		packed_fixed_tx_take(q.vq, next - back);
		back = next;
	}
	tx_post(&q, 2, &next);
	tx_dev_take_all(&q, &taken);
	gv_vqd_push_in_order_batch(q.vqd, (uint16_t)((back + 2) % NUM), 0, 3, 3);
	gv_vqd_publish(q.vqd);
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), -1);
	gv_vq_stats(q.vq, &s);
	assert_int_equal(s.id_not_inflight, 1);
	tx_end_broken(&q, back, next);
}

/*
 * TX fixed mode, state across a reset and a head held back: a batch of 4
 * taken 1 at a time leaves its remainder (3) for the next call; detach
 * gives the 3 back, and after a reset nothing is left of the batch. A
 * used descriptor naming a buffer whose head is still held back (posted,
 * not published) breaks the queue (id_not_inflight).
 */
static void test_tx_reset(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	uint32_t next = 0, taken = 0, seen = 0;
	struct gv_packed_desc *d;
	struct gv_vq_stats s;
	struct gvt_q q;
	void *ck;

	objs_init();
	gvt_q_setup(&q, p, NUM, GV_VQ_F_IN_ORDER, 0);
	assert_int_equal(gvf_tx_enable(q.vq, GV_LAYOUT_PACKED), 0);
	tx_post(&q, 4, &next);
	tx_dev_take_all(&q, &taken);
	gv_vqd_push_in_order_batch(q.vqd, 3, 0, 4, 4);
	gv_vqd_publish(q.vqd);
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), 4);
	packed_fixed_tx_take(q.vq, 1);
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), 3);
	while ((ck = gv_vq_detach(q.vq)) != NULL)
		assert_ptr_equal(ck, &g_obj[1 + seen++]);
	assert_int_equal(seen, 3);
	gvt_q_reset(&q);
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), 0);
	assert_int_equal(gvf_tx_enable(q.vq, GV_LAYOUT_PACKED), 0);
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), 0);
	/* 2 published, 2 more posted with their head held back. */
	next = 0;
	tx_post(&q, 2, &next);
	tx_post_p(&q, 2, &next, false);
	d = &gvt_packed_desc(&q)[gvf_used_pos(q.vq, GV_LAYOUT_PACKED)];
	d->id = 3;
	d->len = 0;
	d->flags = (uint16_t)GVPF_USED_BITS(gvf_packed_used_wrap(q.vq));
	assert_int_equal(packed_fixed_tx_done(q.vq, p->barrier), -1);
	gv_vq_stats(q.vq, &s);
	assert_int_equal(s.id_not_inflight, 1);
	assert_int_equal(gvt_stats_total(&s), 1);
	gvt_q_free(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_PACKED(test_enable), GVT_TEST_PACKED(test_mode_gate),	   GVT_TEST_PACKED(test_holes),
		GVT_TEST_PACKED(test_random),	   GVT_TEST_PACKED(test_random_in_order),
		GVT_TEST_PACKED(test_hostile),	   GVT_TEST_PACKED(test_threads),
		GVT_TEST_PACKED(test_tx),	   GVT_TEST_PACKED(test_tx_reset),
	};

	return GVT_RUN(tests);
}
