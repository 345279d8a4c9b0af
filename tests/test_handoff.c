/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_handoff.c - the queue handoff between a burst and the control path
 * (gv_queue_enter/exit, gv_queue_pause/resume; gv_queue.h, gv_queue.c).
 *
 * A "burst" thread and a "control" thread, pinned to different CPUs when
 * there are two, both update one plain (non-atomic) record: the burst
 * thread only between gv_queue_enter and gv_queue_exit, the control thread
 * only between gv_queue_pause and gv_queue_resume. Each update is a
 * read-modify-write of two words spread over a short spin, and each side
 * marks itself inside while it works and checks the other is not. If the
 * handoff let both in at once, an update would be lost (the counts would
 * not add up) or a side would see the other inside. Run with the bursts
 * leaving the store-load fence to the control path's membarrier (the
 * default where the kernel has it) and with bursts fencing themselves
 * (gv_q_self_fence, the fallback).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gv_queue.h"

#define BURSTS 1000000u /* burst-thread updates per case */
#define PAUSES 50000u /* control-thread pauses per case */

static struct gv_queue q;
/* The shared record: only one side may be inside at a time. */
static volatile uint64_t rec_a, rec_b;
static volatile int burst_inside, ctl_inside;
static volatile int overlap; /* a side saw the other inside */

static void pin(int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* A read-modify-write of the record that takes a while: lost updates show. */
static void update(void)
{
	uint64_t a = rec_a, b = rec_b;

	for (volatile int i = 0; i < 20; i++)
		;
	rec_a = a + 1;
	rec_b = b + 1;
}

/* One side's turn while it holds the queue: mark itself in, check the other is out, update. */
static void inside(volatile int *self, const volatile int *other)
{
	*self = 1;
	if (*other)
		overlap = 1;
	update();
	*self = 0;
}

static void *burst_thread(void *arg)
{
	uint64_t *done = arg; /* read by the control thread while this one runs */
	uint64_t n = 0;

	pin(1);
	while (n < BURSTS) {
		if (!gv_queue_enter(&q))
			continue;
		inside(&burst_inside, &ctl_inside);
		gv_queue_exit(&q);
		__atomic_store_n(done, ++n, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void run_case(bool self_fence)
{
	pthread_t th;
	uint64_t bursts = 0, pauses = 0;
	cpu_set_t was;

	memset(&q, 0, sizeof(q));
	rec_a = rec_b = 0;
	burst_inside = ctl_inside = overlap = 0;
	gv_q_self_fence = self_fence;
	assert_int_equal(pthread_getaffinity_np(pthread_self(), sizeof(was), &was), 0);
	assert_int_equal(pthread_create(&th, NULL, burst_thread, &bursts), 0);
	pin(0);
	while (pauses < PAUSES) {
		gv_queue_pause(&q);
		/*
		 * A burst that entered was waited for; one that tries now backs
		 * off (busy may be 1 for that moment, so it is not checked).
		 */
		inside(&ctl_inside, &burst_inside);
		gv_queue_resume(&q);
		pauses++;
		if (__atomic_load_n(&bursts, __ATOMIC_RELAXED) >= BURSTS)
			break;
	}
	/* The burst thread ends by itself after BURSTS updates. */
	assert_int_equal(pthread_join(th, NULL), 0);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was); /* unpin: later cases start free */
	print_message("self_fence=%d: %llu bursts, %llu pauses\n", self_fence,
		      (unsigned long long)bursts, (unsigned long long)pauses);
	assert_int_equal(overlap, 0);
	assert_int_equal(rec_a, bursts + pauses);
	assert_int_equal(rec_b, bursts + pauses);
	assert_true(bursts == BURSTS);
	assert_true(pauses > 0);
}

/* While paused, a burst backs off without touching the ring; after resume it enters. */
static void test_paused_backs_off(void **state)
{
	(void)state;
	memset(&q, 0, sizeof(q));
	gv_queue_pause(&q);
	assert_false(gv_queue_enter(&q));
	assert_int_equal(q.busy, 0);
	gv_queue_pause(&q); /* pausing a paused queue returns at once */
	gv_queue_resume(&q);
	assert_true(gv_queue_enter(&q));
	assert_int_equal(q.busy, 1);
	gv_queue_exit(&q);
	assert_int_equal(q.busy, 0);
}

static void test_membarrier(void **state)
{
	bool mode = gv_q_self_fence;

	(void)state;
	/* On this project's machines (Linux >= 4.14, no seccomp filter) membarrier is there. */
	assert_false(mode);
	run_case(false);
	gv_q_self_fence = mode;
}

static void test_self_fence(void **state)
{
	bool mode = gv_q_self_fence;

	(void)state;
	run_case(true);
	gv_q_self_fence = mode;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paused_backs_off),
		cmocka_unit_test(test_membarrier),
		cmocka_unit_test(test_self_fence),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
