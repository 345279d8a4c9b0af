/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xcore_rtt.c - the machine's cross-core latency right now: two threads
 * pinned to two CPUs pass a counter back and forth through two cache
 * lines; prints the median round trip in ns over 16 chunks.
 *
 *   xcore_rtt [CPU_A CPU_B [ROUND_TRIPS]]     defaults 0 1 100000
 *
 * bench/pmd_compare.sh compiles it and runs it around every sample: on a
 * shared virtual machine the two vCPUs move between physical cores, and
 * the round trip (seen here: ~100, ~500 or ~1400-2100 ns) sets how fast any
 * vhost-user pair can go. Two samples compare only when the machine was
 * in the same state for both.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CHUNKS 16

static _Alignas(64) atomic_long ping;
static _Alignas(64) atomic_long pong;
static long trips;

static cpu_set_t one_cpu(int cpu)
{
	cpu_set_t s;

	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	return s;
}

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static void *echo(void *arg)
{
	(void)arg;
	for (long i = 1; i <= trips; i++) {
		while (atomic_load_explicit(&ping, memory_order_acquire) != i)
			;
		atomic_store_explicit(&pong, i, memory_order_release);
	}
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	cpu_set_t a = one_cpu(argc > 1 ? atoi(argv[1]) : 0);
	cpu_set_t b = one_cpu(argc > 2 ? atoi(argv[2]) : 1);
	long per;
	double ns[CHUNKS];
	pthread_attr_t attr;
	pthread_t t;

	trips = argc > 3 ? atol(argv[3]) : 100000;
	per = trips / CHUNKS;
	trips = per * CHUNKS;
	/* Both threads pinned before the echo thread exists: no thread spins alone. */
	if (per < 1 || pthread_setaffinity_np(pthread_self(), sizeof(a), &a) != 0 ||
	    pthread_attr_init(&attr) != 0 || pthread_attr_setaffinity_np(&attr, sizeof(b), &b) != 0 ||
	    pthread_create(&t, &attr, echo, NULL) != 0) {
		fprintf(stderr, "usage: xcore_rtt [CPU_A CPU_B [ROUND_TRIPS>=16]] (CPUs this process may use)\n");
		return 2;
	}
	for (int c = 0; c < CHUNKS; c++) {
		double t0 = now_ns();

		for (long i = c * per + 1; i <= (c + 1) * per; i++) {
			atomic_store_explicit(&ping, i, memory_order_release);
			while (atomic_load_explicit(&pong, memory_order_acquire) != i)
				;
		}
		ns[c] = (now_ns() - t0) / (double)per;
	}
	pthread_join(t, NULL);
	qsort(ns, CHUNKS, sizeof(ns[0]), cmp);
	printf("%.0f\n", (ns[CHUNKS / 2 - 1] + ns[CHUNKS / 2]) / 2);
	return 0;
}
