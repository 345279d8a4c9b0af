/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_core_ipd.c - instructions per descriptor of the core's streaming
 * verbs and of the rte_ring reference, in one thread, for callgrind
 * (bench/core_ipd.sh runs it). The same calls as the cross-core loops of
 * gv_bench_shim.c, one burst at a time: driver posts and flushes, device
 * takes the burst and returns it, driver reclaims. Each side's calls sit
 * in their own noinline function so callgrind counts them apart.
 *
 *   gv_core_ipd vq split|packed BURST     gv_vq / gv_vqd burst verbs
 *   gv_core_ipd rte 16|8 BURST            rte_ring SPSC, element size
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ring.h>

#include "gv_vq.h"
#include "gv_vq_burst.h"
#include "gv_vqd.h"

#define NUM 256u
#define ROUNDS 20000u
#define BUF_LEN 2048u
#define NOINLINE __attribute__((noinline))

struct handle {
	uint64_t addr;
	uint32_t len;
	uint32_t pad;
};

static void *xlate_identity(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	(void)len;
	return (void *)(uintptr_t)addr;
}

/* The driver on the core's inline verbs, as gv_bench_shim.c's xc loop (smp). */
NOINLINE static uint32_t drv_post_split(struct gv_vq *vq, const struct gv_seg *s,
					void *const *ck, uint32_t n)
{
	uint32_t k = gvb_add_burst(vq, s, ck, n, true, GV_LAYOUT_SPLIT);

	split_flush(vq, GV_BARRIER_SMP);
	return k;
}

NOINLINE static uint32_t drv_post_packed(struct gv_vq *vq, const struct gv_seg *s,
					 void *const *ck, uint32_t n)
{
	uint32_t k = gvb_add_burst(vq, s, ck, n, true, GV_LAYOUT_PACKED);

	packed_flush(vq, GV_BARRIER_SMP);
	return k;
}

NOINLINE static uint32_t drv_reclaim_split(struct gv_vq *vq, void **ck, uint32_t *lens,
					   uint32_t n)
{
	return gvb_get_used(vq, ck, lens, n, GV_LAYOUT_SPLIT, GV_BARRIER_SMP);
}

NOINLINE static uint32_t drv_reclaim_packed(struct gv_vq *vq, void **ck, uint32_t *lens,
					    uint32_t n)
{
	return gvb_get_used(vq, ck, lens, n, GV_LAYOUT_PACKED, GV_BARRIER_SMP);
}

NOINLINE static int dev_take(struct gv_vqd *d, struct gv_vqd_buf *b, uint32_t n)
{
	return gv_vqd_take_burst(d, b, n);
}

NOINLINE static void dev_return(struct gv_vqd *d, const struct gv_vqd_buf *b, uint32_t *lens,
				int n)
{
	for (int k = 0; k < n; k++)
		lens[k] = b[k].write ? b[k].len : 0;
	gv_vqd_push_burst(d, b, lens, (uint32_t)n);
	gv_vqd_publish(d);
}

static int run_vq(enum gv_layout layout, uint32_t burst)
{
	struct gv_vq *vq = aligned_alloc(64, (gv_vq_state_size(layout, NUM) + 63) & ~63ul);
	struct gv_vqd *d = aligned_alloc(64, (gv_vqd_state_size() + 63) & ~63ul);
	void *ring = aligned_alloc(4096, (gv_ring_size(layout, NUM, 0) + 4095) & ~4095ul);
	uint8_t *bufs = aligned_alloc(4096, (size_t)NUM * BUF_LEN);
	const struct gv_vq_config vc = { .layout = layout, .barrier = GV_BARRIER_SMP, .num = NUM,
					 .ring = ring, .ring_iova = (uint64_t)(uintptr_t)ring };
	struct gv_vqd_config dc = { .layout = layout, .barrier = GV_BARRIER_SMP, .num = NUM,
				    .xlate = xlate_identity,
				    .flat_addr = (uint64_t)(uintptr_t)bufs,
				    .flat_len = (uint64_t)NUM * BUF_LEN, .flat_host = bufs };
	static struct gv_seg segs[NUM];
	static void *ck[NUM], *out[NUM];
	static uint32_t lens[NUM], got_lens[NUM];
	static struct gv_vqd_buf b[NUM];
	uint64_t sum = 0;

	if (!vq || !d || !ring || !bufs)
		return 1;
	if (gv_vq_init(vq, &vc))
		return 1;
	gv_vq_addrs(vq, &dc.addrs);
	if (gv_vqd_init(d, &dc))
		return 1;
	for (uint32_t i = 0; i < NUM; i++) {
		segs[i].addr = (uint64_t)(uintptr_t)(bufs + (size_t)i * BUF_LEN);
		segs[i].len = BUF_LEN;
		ck[i] = bufs + (size_t)i * BUF_LEN;
	}
	for (uint32_t r = 0; r < ROUNDS; r++) {
		uint32_t k = layout == GV_LAYOUT_SPLIT ? drv_post_split(vq, segs, ck, burst)
						       : drv_post_packed(vq, segs, ck, burst);
		uint32_t g;
		int n = dev_take(d, b, burst);

		if (n > 0)
			dev_return(d, b, lens, n);
		g = layout == GV_LAYOUT_SPLIT ? drv_reclaim_split(vq, out, got_lens, burst)
					      : drv_reclaim_packed(vq, out, got_lens, burst);
		if (k != burst || n != (int)burst || g != burst) {
			fprintf(stderr, "short burst: posted %u taken %d reclaimed %u\n", k, n, g);
			return 1;
		}
		for (uint32_t j = 0; j < g; j++)
			sum += (uintptr_t)out[j] + got_lens[j];
	}
	printf("descriptors %u checksum %llu\n", ROUNDS * burst, (unsigned long long)sum);
	return 0;
}

static struct rte_ring *ring_make(const char *name, uint32_t esize)
{
	ssize_t sz = rte_ring_get_memsize_elem(esize, 2 * NUM);
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	r = aligned_alloc(128, ((size_t)sz + 127) & ~127ul);
	if (r && rte_ring_init(r, name, 2 * NUM, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

/* The element size as a literal in each copy, as in gv_bench_shim.c. */
#define RTE_SIDE(sz)                                                                      \
	NOINLINE static uint32_t drv_enq##sz(struct rte_ring *r, void *o, uint32_t n)      \
	{                                                                                 \
		return rte_ring_enqueue_burst_elem(r, o, sz, n, NULL);                    \
	}                                                                                 \
	NOINLINE static uint32_t drv_deq##sz(struct rte_ring *r, void *o, uint32_t n)      \
	{                                                                                 \
		return rte_ring_dequeue_burst_elem(r, o, sz, n, NULL);                    \
	}                                                                                 \
	NOINLINE static uint32_t dev_move##sz(struct rte_ring *f, struct rte_ring *b,      \
					      void *o, uint32_t n)                        \
	{                                                                                 \
		uint32_t k = rte_ring_dequeue_burst_elem(f, o, sz, n, NULL);              \
		return rte_ring_enqueue_burst_elem(b, o, sz, k, NULL);                    \
	}
RTE_SIDE(8)
RTE_SIDE(16)

static int run_rte(uint32_t esize, uint32_t burst)
{
	struct rte_ring *f = ring_make("ipd_fwd", esize), *b = ring_make("ipd_back", esize);
	static struct handle in[NUM], mid[NUM], out[NUM];
	uint64_t sum = 0;

	if (!f || !b)
		return 1;
	for (uint32_t i = 0; i < NUM; i++) {
		in[i].addr = (uint64_t)i * BUF_LEN;
		in[i].len = BUF_LEN;
	}
	for (uint32_t r = 0; r < ROUNDS; r++) {
		uint32_t k, m, g;

		if (esize == 16) {
			k = drv_enq16(f, in, burst);
			m = dev_move16(f, b, mid, burst);
			g = drv_deq16(b, out, burst);
		} else {
			k = drv_enq8(f, in, burst);
			m = dev_move8(f, b, mid, burst);
			g = drv_deq8(b, out, burst);
		}
		if (k != burst || m != burst || g != burst)
			return 1;
		for (uint32_t j = 0; j < g; j++)
			sum += esize == 16 ? out[j].addr + out[j].len : ((uint64_t *)out)[j];
	}
	printf("descriptors %u checksum %llu\n", ROUNDS * burst, (unsigned long long)sum);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t burst = argc == 4 ? (uint32_t)atoi(argv[3]) : 0;

	if (burst == 0 || burst > NUM / 2) {
		fprintf(stderr, "usage: %s vq split|packed BURST | rte 16|8 BURST (BURST 1..%u)\n",
			argv[0], NUM / 2);
		return 2;
	}
	if (!strcmp(argv[1], "vq") && !strcmp(argv[2], "split"))
		return run_vq(GV_LAYOUT_SPLIT, burst);
	if (!strcmp(argv[1], "vq") && !strcmp(argv[2], "packed"))
		return run_vq(GV_LAYOUT_PACKED, burst);
	if (!strcmp(argv[1], "rte") && (!strcmp(argv[2], "16") || !strcmp(argv[2], "8")))
		return run_rte((uint32_t)atoi(argv[2]), burst);
	fprintf(stderr, "%s: unknown mode\n", argv[0]);
	return 2;
}
