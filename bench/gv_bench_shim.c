/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_bench_shim.c - the measured loops of the benchmarks, in C, on the
 * public API of the virtqueue core. See gv_bench_shim.h.
 *
 * Built once per benchmark executable: the same file is linked against
 * the selectable core (gvring) or a fixed-policy core (gvring_fixed_*),
 * which export the same symbols.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_pause.h>
#include <rte_ring.h>

#include "gv_bench_shim.h"
#include "gv_vq.h"
#include "gv_vq_burst.h"
#include "gv_vqd.h"

#define GVB_BUF_LEN 2048u
#define GVB_CACHE_LINE 64
#define GVB_STALL_SECONDS 30.0 /* no progress for this long: give up */

_Static_assert(GV_LAYOUT_SPLIT == 0 && GV_LAYOUT_PACKED == 1, "layout ints");
_Static_assert(GV_BARRIER_SMP == 0 && GV_BARRIER_MANDATORY == 1, "barrier ints");

struct gvb_pair {
	struct gv_vq *vq;
	struct gv_vqd *d;
	void *ring;
	uint8_t *bufs; /* GVB_MAX_BURST buffers the descriptors point at */
	uint32_t num;
	int layout, barrier; /* enum gv_layout, enum gv_barrier */
	struct gv_seg segs[GVB_MAX_BURST];
	void *cookies[GVB_MAX_BURST];
	void *out[GVB_MAX_BURST];
	uint32_t lens[GVB_MAX_BURST];
	struct gv_chain chain; /* device side scratch (single-thread case) */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double thread_cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void *xlate_identity(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	(void)len;
	return (void *)(uintptr_t)addr;
}

static void *zalloc_aligned(size_t align, size_t size)
{
	void *p = NULL;

	size = (size + align - 1) & ~(align - 1);
	if (posix_memalign(&p, align, size) != 0)
		return NULL;
	memset(p, 0, size);
	return p;
}

int gvb_pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ? -1 : 0;
}

int gvb_ncpus(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 1;
	return CPU_COUNT(&set);
}

void gvb_pair_free(struct gvb_pair *p)
{
	if (!p)
		return;
	free(p->vq);
	free(p->d);
	free(p->ring);
	free(p->bufs);
	free(p);
}

struct gvb_pair *gvb_pair_new(int layout, int barrier, uint32_t num)
{
	struct gvb_pair *p = zalloc_aligned(GVB_CACHE_LINE, sizeof(*p));
	struct gv_vq_config vc = { 0 };
	struct gv_vqd_config dc = { 0 };
	uint32_t i;

	if (!p)
		return NULL;
	p->num = num;
	p->layout = layout;
	p->barrier = barrier;
	/* Driver and device state on their own cache lines, like two CPUs. */
	p->vq = zalloc_aligned(GVB_CACHE_LINE, gv_vq_state_size((enum gv_layout)layout, num));
	p->d = zalloc_aligned(GVB_CACHE_LINE, gv_vqd_state_size());
	p->ring = zalloc_aligned(4096, gv_ring_size((enum gv_layout)layout, num, 0));
	p->bufs = zalloc_aligned(4096, (size_t)GVB_MAX_BURST * GVB_BUF_LEN);
	if (!p->vq || !p->d || !p->ring || !p->bufs)
		goto fail;

	vc.layout = (enum gv_layout)layout;
	vc.barrier = (enum gv_barrier)barrier;
	vc.num = num;
	vc.ring = p->ring;
	vc.ring_iova = (uint64_t)(uintptr_t)p->ring;
	if (gv_vq_init(p->vq, &vc) != 0)
		goto fail;

	dc.layout = vc.layout;
	dc.barrier = vc.barrier;
	dc.num = num;
	gv_vq_addrs(p->vq, &dc.addrs);
	dc.xlate = xlate_identity;
	/*
	 * The buffers are one range the device translates inline with a
	 * bounds check (a vhost back-end's memory-region lookup); the ring
	 * itself is translated once, at init, through xlate.
	 */
	dc.flat_addr = (uint64_t)(uintptr_t)p->bufs;
	dc.flat_len = (uint64_t)GVB_MAX_BURST * GVB_BUF_LEN;
	dc.flat_host = p->bufs;
	if (gv_vqd_init(p->d, &dc) != 0)
		goto fail;

	for (i = 0; i < GVB_MAX_BURST; i++) {
		p->segs[i].addr = (uint64_t)(uintptr_t)(p->bufs + (size_t)i * GVB_BUF_LEN);
		p->segs[i].len = GVB_BUF_LEN;
		p->cookies[i] = p->bufs + (size_t)i * GVB_BUF_LEN;
	}
	return p;
fail:
	gvb_pair_free(p);
	return NULL;
}

/* ---- (1) single thread: post, flush, take+push, publish, reclaim ---- */

int64_t gvb_st_round(struct gvb_pair *p, uint32_t burst)
{
	uint32_t i, k, got;

	k = gv_vq_add_burst(p->vq, p->segs, p->cookies, burst, true);
	gv_vq_flush(p->vq);
	for (i = 0; i < k; i++) {
		if (gv_vqd_take(p->d, &p->chain) != 1)
			return -1;
		gv_vqd_push(p->d, p->chain.id, p->chain.ndesc, p->chain.in_len);
	}
	gv_vqd_publish(p->d);
	got = gv_vq_get_used(p->vq, p->out, p->lens, burst);
	if (k != burst || got != k)
		return -1;
	return got;
}

/*
 * ---- cross-core sessions, shared by (2) and (3) ----
 *
 * A session is one device thread, pinned, living for a whole benchmark
 * row: each iteration the driver (the caller, pinned too) bumps `gen`, the
 * device starts serving, the driver streams `total` descriptors, sets
 * `stop_gen`, and waits for the device's `ack` (its counters are then
 * valid). Between iterations the device spins on `gen`. So no thread is
 * created per iteration, and iterations can be short.
 */
enum xc_kind { XC_VQ, XC_RTE };

struct gvb_xc {
	/* Written by the driver. */
	_Alignas(GVB_CACHE_LINE) atomic_uint gen;
	atomic_uint stop_gen;
	atomic_int quit;
	/* Written by the device thread. */
	_Alignas(GVB_CACHE_LINE) atomic_uint ack;
	atomic_int ready;
	atomic_int err;
	uint64_t idle; /* counters of the last iteration, valid once ack == gen */
	uint64_t moved;
	double cpu_frac;
	/* Fixed for the session. */
	_Alignas(GVB_CACHE_LINE) enum xc_kind kind;
	struct gvb_pair *p;
	struct gvb_rte *r;
	uint32_t burst;
	int dev_cpu;
	unsigned int g; /* the driver's last gen */
	pthread_t th;
	cpu_set_t saved; /* the caller's affinity, restored at stop */
};

/*
 * Driver idle path: pause; every ~1M idle loops check the device is
 * healthy and something came back since the last check.
 */
struct xc_stall {
	double t;
	uint64_t reclaimed;
};

static bool xc_stalled(struct gvb_xc *s, uint64_t idle, uint64_t reclaimed, struct xc_stall *st)
{
	double t;

	rte_pause();
	if ((idle & 0xfffff) != 0)
		return false;
	if (atomic_load(&s->err))
		return true;
	t = now_s();
	if (st->t == 0.0 || reclaimed != st->reclaimed) {
		st->t = t;
		st->reclaimed = reclaimed;
		return false;
	}
	return t - st->t > GVB_STALL_SECONDS;
}

/*
 * (2) device: take up to a burst of one-descriptor chains, return each
 * with its writable length, publish: one call each way per burst, as
 * rte_ring's dequeue/enqueue bursts (gv_vqd_take_burst reads the driver's
 * index once per burst, checks every id and translates every address).
 */
static void xc_dev_vq(struct gvb_xc *s, unsigned int g, uint64_t *idle, uint64_t *moved)
{
	struct gvb_pair *p = s->p;
	struct gv_vqd_buf b[GVB_MAX_BURST];
	uint32_t lens[GVB_MAX_BURST];

	while (atomic_load_explicit(&s->stop_gen, memory_order_relaxed) != g) {
		int n = gv_vqd_take_burst(p->d, b, s->burst);

		if (n > 0) {
			for (int k = 0; k < n; k++)
				lens[k] = b[k].write ? b[k].len : 0;
			gv_vqd_push_burst(p->d, b, lens, (uint32_t)n);
			gv_vqd_publish(p->d);
			*moved += (uint64_t)n;
		} else if (n == 0) {
			(*idle)++;
			rte_pause();
		} else {
			atomic_store(&s->err, 1);
			return;
		}
	}
}

/*
 * (2) driver: post whole bursts (at most the ring size in flight),
 * reclaim. On the core's inline datapath verbs (gv_vq_burst.h), compiled
 * per (layout, barrier) as the PMD's bursts are, as rte_ring's inline
 * enqueue/dequeue are in the reference loop.
 */
static inline __attribute__((always_inline)) uint64_t
xc_drv_vq_t(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out, const enum gv_layout L,
	    const enum gv_barrier B)
{
	struct gvb_pair *p = s->p;
	uint64_t posted = 0, reclaimed = 0, idle = 0, sum = 0;
	struct xc_stall st = { 0.0, 0 };

	while (reclaimed < total) {
		uint32_t k = 0, got, i;
		uint64_t n = total - posted < s->burst ? total - posted : s->burst;

		if (n && posted - reclaimed + n <= p->num) {
			k = gvb_add_burst(p->vq, p->segs, p->cookies, (uint32_t)n, true, L);
			if (k) {
				if (L == GV_LAYOUT_SPLIT)
					split_flush(p->vq, B);
				else
					packed_flush(p->vq, B);
			}
			posted += k;
		}
		got = gvb_get_used(p->vq, p->out, p->lens, s->burst, L, B);
		for (i = 0; i < got; i++)
			sum += (uintptr_t)p->out[i] + p->lens[i];
		reclaimed += got;
		if (!k && !got && (gvb_broken(p->vq) || xc_stalled(s, ++idle, reclaimed, &st)))
			break;
	}
	out->drv_idle_loops = idle;
	out->checksum = sum;
	return reclaimed;
}

static uint64_t xc_drv_vq(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out)
{
	const int split = s->p->layout == GV_LAYOUT_SPLIT, smp = s->p->barrier == GV_BARRIER_SMP;

	if (split)
		return smp ? xc_drv_vq_t(s, total, out, GV_LAYOUT_SPLIT, GV_BARRIER_SMP)
			   : xc_drv_vq_t(s, total, out, GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY);
	return smp ? xc_drv_vq_t(s, total, out, GV_LAYOUT_PACKED, GV_BARRIER_SMP)
		   : xc_drv_vq_t(s, total, out, GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY);
}

static void xc_dev_rte(struct gvb_xc *s, unsigned int g, uint64_t *idle, uint64_t *moved);
static uint64_t xc_drv_rte(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out);

static void *xc_dev_main(void *arg)
{
	struct gvb_xc *s = arg;
	unsigned int seen = 0, g;

	if (gvb_pin_self(s->dev_cpu))
		atomic_store(&s->err, 1);
	atomic_store(&s->ready, 1);
	for (;;) {
		uint64_t idle = 0, moved = 0;
		double w0, c0, w;

		while ((g = atomic_load_explicit(&s->gen, memory_order_acquire)) == seen) {
			if (atomic_load_explicit(&s->quit, memory_order_relaxed))
				return NULL;
			rte_pause();
		}
		seen = g;
		w0 = now_s();
		c0 = thread_cpu_s();
		if (!atomic_load(&s->err)) {
			if (s->kind == XC_VQ)
				xc_dev_vq(s, g, &idle, &moved);
			else
				xc_dev_rte(s, g, &idle, &moved);
		}
		w = now_s() - w0;
		s->cpu_frac = w > 0 ? (thread_cpu_s() - c0) / w : 0;
		s->idle = idle;
		s->moved = moved;
		/* After an error too: ack only once the driver ended the iteration. */
		while (atomic_load_explicit(&s->stop_gen, memory_order_acquire) != g)
			rte_pause();
		atomic_store_explicit(&s->ack, g, memory_order_release);
	}
}

static struct gvb_xc *xc_start(enum xc_kind kind, struct gvb_pair *p, struct gvb_rte *r,
			       uint32_t burst, int drv_cpu, int dev_cpu)
{
	struct gvb_xc *s = zalloc_aligned(GVB_CACHE_LINE, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->p = p;
	s->r = r;
	s->burst = burst;
	s->dev_cpu = dev_cpu;
	if (pthread_getaffinity_np(pthread_self(), sizeof(s->saved), &s->saved) ||
	    gvb_pin_self(drv_cpu))
		goto fail;
	if (pthread_create(&s->th, NULL, xc_dev_main, s)) {
		pthread_setaffinity_np(pthread_self(), sizeof(s->saved), &s->saved);
		goto fail;
	}
	while (!atomic_load(&s->ready))
		rte_pause();
	if (atomic_load(&s->err)) {
		gvb_xc_stop(s);
		return NULL;
	}
	return s;
fail:
	free(s);
	return NULL;
}

struct gvb_xc *gvb_xc_start(struct gvb_pair *p, uint32_t burst, int drv_cpu, int dev_cpu)
{
	if (!p || burst == 0 || burst > GVB_MAX_BURST || burst > p->num)
		return NULL;
	return xc_start(XC_VQ, p, NULL, burst, drv_cpu, dev_cpu);
}

int gvb_xc_iter(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out)
{
	unsigned int g = ++s->g;
	uint64_t reclaimed;
	double t0, t1, c0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	atomic_store_explicit(&s->gen, g, memory_order_release);
	t0 = now_s();
	c0 = thread_cpu_s();
	reclaimed = s->kind == XC_VQ ? xc_drv_vq(s, total, out) : xc_drv_rte(s, total, out);
	t1 = now_s();
	out->drv_cpu_frac = t1 > t0 ? (thread_cpu_s() - c0) / (t1 - t0) : 0;
	atomic_store_explicit(&s->stop_gen, g, memory_order_release);
	while (atomic_load_explicit(&s->ack, memory_order_acquire) != g)
		rte_pause();
	out->seconds = t1 - t0;
	out->descs = reclaimed;
	out->dev_idle_loops = s->idle;
	out->dev_cpu_frac = s->cpu_frac;
	if (reclaimed != total || s->moved != total || atomic_load(&s->err))
		rc = -1;
	if (s->kind == XC_VQ && (gv_vq_broken(s->p->vq) || gv_vqd_broken(s->p->d)))
		rc = -1;
	return rc;
}

int gvb_xc_stop(struct gvb_xc *s)
{
	int rc;

	if (!s)
		return 0;
	atomic_store(&s->quit, 1);
	pthread_join(s->th, NULL);
	pthread_setaffinity_np(pthread_self(), sizeof(s->saved), &s->saved);
	rc = atomic_load(&s->err) ? -1 : 0;
	free(s);
	return rc;
}

/*
 * ---- (3) reference: DPDK rte_ring SPSC between the same two cores ----
 *
 * Shape: a round trip on two rings, the same shape as the virtqueue run.
 * The driver thread enqueues bursts of handles on ring `fwd` (the avail
 * direction), the device thread dequeues up to `burst`, and enqueues them
 * on ring `back` (the used direction), the driver dequeues up to `burst`
 * from `back`. The driver keeps at most `num` handles in flight, the
 * bound the ring size puts on the virtqueue. A one-way stream would be
 * cheaper but unfair: the virtqueue always pays for the return trip
 * (used ring) that gives the buffers back.
 *
 * What moves per descriptor: by default a 16-byte handle each way
 * (struct gvb_handle: buffer address and length, what a virtio
 * descriptor carries; the device cannot dereference a driver-private
 * object to learn them), rte_ring's _elem API with esize 16. With
 * --gvb_rte_esize=8 a bare 8-byte pointer instead (what an application
 * passing mbuf pointers moves, leaving the address and length in the
 * mbuf's own cache line, which this loop never touches). The virtqueue
 * moves a 16-byte descriptor plus a 2-byte avail entry and an 8-byte used
 * entry (split), or writes the 16-byte descriptor twice (packed), and
 * validates what comes back: that is the overhead the comparison shows.
 *
 * Rings are made with rte_ring_init() on our own memory: no EAL needed.
 * Each ring holds 2*num slots (power of two > num, so the usable
 * capacity 2*num-1 never limits the `num` in flight).
 */
struct gvb_handle {
	uint64_t addr;
	uint32_t len;
	uint32_t pad;
};
_Static_assert(sizeof(struct gvb_handle) == 16, "16-byte handle, as a descriptor");

struct gvb_rte {
	struct rte_ring *fwd;
	struct rte_ring *back;
	uint32_t num;
	uint32_t esize; /* 8: pointer, 16: struct gvb_handle */
	struct gvb_handle objs[GVB_MAX_BURST]; /* esize 8 uses the first 8 * burst bytes */
	struct gvb_handle out[GVB_MAX_BURST];
	uint8_t *bufs;
};

static struct rte_ring *rte_ring_make(const char *name, uint32_t count, uint32_t esize)
{
	ssize_t sz = rte_ring_get_memsize_elem(esize, count);
	struct rte_ring *r;

	if (sz < 0)
		return NULL;
	r = zalloc_aligned(GVB_CACHE_LINE * 2, (size_t)sz);
	if (!r)
		return NULL;
	if (rte_ring_init(r, name, count, RING_F_SP_ENQ | RING_F_SC_DEQ) != 0) {
		free(r);
		return NULL;
	}
	return r;
}

void gvb_rte_free(struct gvb_rte *r)
{
	if (!r)
		return;
	free(r->fwd);
	free(r->back);
	free(r->bufs);
	free(r);
}

struct gvb_rte *gvb_rte_new(uint32_t num, uint32_t esize)
{
	struct gvb_rte *r = zalloc_aligned(GVB_CACHE_LINE, sizeof(*r));
	uint32_t i;

	if (!r || num == 0 || (num & (num - 1)) || num > (1u << 30) ||
	    (esize != 8 && esize != 16)) {
		free(r);
		return NULL;
	}
	r->num = num;
	r->esize = esize;
	r->fwd = rte_ring_make("gvb_fwd", 2 * num, esize);
	r->back = rte_ring_make("gvb_back", 2 * num, esize);
	r->bufs = zalloc_aligned(4096, (size_t)GVB_MAX_BURST * GVB_BUF_LEN);
	if (!r->fwd || !r->back || !r->bufs) {
		gvb_rte_free(r);
		return NULL;
	}
	for (i = 0; i < GVB_MAX_BURST; i++) {
		uint8_t *b = r->bufs + (size_t)i * GVB_BUF_LEN;

		if (esize == 8) {
			((void **)r->objs)[i] = b;
		} else {
			r->objs[i].addr = (uint64_t)(uintptr_t)b;
			r->objs[i].len = GVB_BUF_LEN;
		}
	}
	return r;
}

/*
 * The loops below take the element size as a literal (always inlined
 * into one copy per size), so rte_ring's copy code is specialised as in
 * an application with a fixed element type.
 */
#define GVB_ALWAYS_INLINE static inline __attribute__((always_inline))

/* (3) device: move up to a burst from `fwd` to `back`. */
GVB_ALWAYS_INLINE void xc_dev_rte_t(struct gvb_xc *s, unsigned int g, uint64_t *idle,
				    uint64_t *moved, const unsigned int esize)
{
	struct gvb_rte *r = s->r;
	struct gvb_handle objs[GVB_MAX_BURST];

	while (atomic_load_explicit(&s->stop_gen, memory_order_relaxed) != g) {
		unsigned int n = rte_ring_dequeue_burst_elem(r->fwd, objs, esize, s->burst, NULL);

		if (n) {
			/* `back` has room for everything in flight. */
			if (rte_ring_enqueue_burst_elem(r->back, objs, esize, n, NULL) != n) {
				atomic_store(&s->err, 1);
				return;
			}
			*moved += n;
		} else {
			(*idle)++;
			rte_pause();
		}
	}
}

static void xc_dev_rte(struct gvb_xc *s, unsigned int g, uint64_t *idle, uint64_t *moved)
{
	if (s->r->esize == 8)
		xc_dev_rte_t(s, g, idle, moved, 8);
	else
		xc_dev_rte_t(s, g, idle, moved, 16);
}

/* (3) driver: the same posting rule as the virtqueue driver. */
GVB_ALWAYS_INLINE uint64_t xc_drv_rte_t(struct gvb_xc *s, uint64_t total,
					struct gvb_xc_result *out, const unsigned int esize)
{
	struct gvb_rte *r = s->r;
	uint64_t posted = 0, reclaimed = 0, idle = 0, sum = 0;
	struct xc_stall st = { 0.0, 0 };

	while (reclaimed < total) {
		unsigned int k = 0, got, i;
		uint64_t n = total - posted < s->burst ? total - posted : s->burst;

		if (n && posted - reclaimed + n <= r->num) {
			k = rte_ring_enqueue_burst_elem(r->fwd, r->objs, esize, (unsigned int)n, NULL);
			posted += k;
		}
		got = rte_ring_dequeue_burst_elem(r->back, r->out, esize, s->burst, NULL);
		for (i = 0; i < got; i++) {
			if (esize == 8)
				sum += (uintptr_t)((void **)r->out)[i];
			else
				sum += r->out[i].addr + r->out[i].len;
		}
		reclaimed += got;
		if (!k && !got && xc_stalled(s, ++idle, reclaimed, &st))
			break;
	}
	out->drv_idle_loops = idle;
	out->checksum = sum;
	return reclaimed;
}

static uint64_t xc_drv_rte(struct gvb_xc *s, uint64_t total, struct gvb_xc_result *out)
{
	if (s->r->esize == 8)
		return xc_drv_rte_t(s, total, out, 8);
	return xc_drv_rte_t(s, total, out, 16);
}

struct gvb_xc *gvb_rte_start(struct gvb_rte *r, uint32_t burst, int drv_cpu, int dev_cpu)
{
	if (!r || burst == 0 || burst > GVB_MAX_BURST || burst > r->num)
		return NULL;
	return xc_start(XC_RTE, NULL, r, burst, drv_cpu, dev_cpu);
}
