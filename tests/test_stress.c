/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_stress.c - two-thread stress of the virtqueue core.
 *
 * Driver end on one thread pinned to one CPU, device end on another pinned
 * to a second CPU (unpinned when only one is available), identity address
 * translation. One case per layout x barrier; each runs four phases, each
 * on a fresh queue:
 *   ooo                num 256, EVENT_IDX, device returns out of order
 *   ooo+indirect       small ring (split 16, packed 20: not a power of two),
 *                      split align 4096, about half the chains indirect
 *   in-order-batch     num 256, IN_ORDER: gv_vqd_push_in_order_batch and
 *                      gv_vq_reclaim_in_order
 *   in-order+indirect  small ring, IN_ORDER: one used entry per chain, in
 *                      posting order, taken with gv_vq_get_used
 * The shape and bytes of chain `seq` derive from seq alone: 1..4 segments,
 * readable first (seq in the first 8 bytes, then a pattern), then 0..3
 * writable, laid out reversed with gaps in the chain's slot. The device
 * checks each chain (posting order, segments, flags, lengths, ndesc,
 * payload), writes a seq-derived response in two gv_vqd_write calls and
 * returns chains from a random window of up to 8. The driver checks each
 * cookie, used length, response, the canary after it, the readable bytes
 * and gaps, posting order when IN_ORDER, and that each seq comes back once.
 * At the end neither end is broken, all hardening stats are zero, nothing
 * is in flight or pending.
 *
 * GV_STRESS_N_DEFAULT buffers per case, times GV_STRESS_SCALE (float,
 * default 1), times 50 with GV_SOAK=1; buffers/s are printed. Waits spin
 * with a pause; a thread with no progress for STALL_SECONDS fails the case.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gv_vq.h"
#include "gv_vqd.h"

#define GV_STRESS_N_DEFAULT 2000000.0 /* buffers per case (all four phases) */
#define STALL_SECONDS 30
#define MAX_SEGS 4
#define SEG_MAX 64
#define SEG_STRIDE 80 /* segment i at (MAX_SEGS-1-i)*SEG_STRIDE: reversed, with gaps */
#define SLOT_BYTES (MAX_SEGS * SEG_STRIDE)
#define MAX_WINDOW 8
#define MAX_NUM 256
#define RECLAIM_BURST 64
#define CANARY_IN 0xA5
#define CANARY_GAP 0x5A

enum { SLOT_FREE = 0, SLOT_INFLIGHT = 0x1F1F };

struct slot {
	uint64_t seq;
	uint32_t state;
	uint8_t data[SLOT_BYTES];
} __attribute__((aligned(64)));

struct phase {
	const char *name;
	uint32_t num;
	uint32_t features;
	uint32_t align;
	bool batch; /* IN_ORDER: batched used entries + gv_vq_reclaim_in_order */
};

struct ctx {
	uint32_t num;
	bool in_order, indirect, batch;
	uint64_t n;
	struct gv_vq *vq;
	struct gv_vqd *d;
	struct slot *slots;
	uint8_t *seen; /* one bit per seq, driver side */
	int cpu_drv, cpu_dev;
	atomic_int stop;
	atomic_int failed;
	char msg[512];
	/* results, written by each thread before it exits */
	uint64_t drv_posted, drv_reclaimed;
	uint64_t dev_taken, dev_pushed, dev_publishes;
};

#if defined(__x86_64__) || defined(__i386__)
#define cpu_relax() __builtin_ia32_pause()
#else
#define cpu_relax() sched_yield()
#endif

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mix64(uint64_t x)
{
	x += 0x9E3779B97F4A7C15ull;
	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#define FAIL(...)                                                                       \
	do {                                                                            \
		fail_ctx(c, __VA_ARGS__);                                               \
		return false;                                                           \
	} while (0)

/* First failure wins the message; every failure stops both threads. */
static void fail_ctx(struct ctx *c, const char *fmt, ...)
{
	if (atomic_exchange(&c->failed, 1) == 0) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
		va_end(ap);
	}
	atomic_store(&c->stop, 1);
}

struct shape {
	uint64_t h;
	uint16_t n_out, n_in;
	bool indirect;
	uint32_t len[MAX_SEGS];
	uint32_t out_len, in_len, resp_len;
};

static void shape_of(uint64_t seq, bool allow_indirect, struct shape *s)
{
	uint64_t h = mix64(seq);
	unsigned nseg = 1 + (unsigned)(h & 3);

	s->h = h;
	s->n_out = nseg == 1 ? 1 : (uint16_t)(1 + (h >> 2) % (nseg - 1));
	s->n_in = (uint16_t)(nseg - s->n_out);
	s->out_len = s->in_len = 0;
	for (unsigned i = 0; i < nseg; i++) {
		uint32_t l = (uint32_t)((h >> (8 + 6 * i)) & 63);
		l = i == 0 ? 8 + (l & 31) : 1 + l; /* first >= 8, all <= SEG_MAX */
		s->len[i] = l;
		*(i < s->n_out ? &s->out_len : &s->in_len) += l;
	}
	s->resp_len = s->in_len ? (uint32_t)((h >> 40) % (s->in_len + 1)) : 0;
	s->indirect = allow_indirect && ((h >> 60) & 1);
}

static uint8_t *seg_ptr(struct slot *sl, unsigned i)
{
	return sl->data + (MAX_SEGS - 1 - i) * SEG_STRIDE;
}

static void gen_out(uint64_t seq, uint64_t h, uint8_t *p, uint32_t len)
{
	uint8_t a = (uint8_t)(h >> 24), m = (uint8_t)((h >> 32) | 1);
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(a + i * m);
	for (uint32_t i = 0; i < 8 && i < len; i++)
		p[i] = (uint8_t)(seq >> (8 * i));
}

static void gen_resp(uint64_t h, uint8_t *p, uint32_t len)
{
	uint8_t a = (uint8_t)(h >> 48), m = (uint8_t)((h >> 56) | 1);
	for (uint32_t i = 0; i < len; i++)
		p[i] = (uint8_t)(a - i * m) ^ 0x3C;
}

static void pin_self(int cpu)
{
	if (cpu < 0)
		return;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	int rc = pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	if (rc)
		fprintf(stderr, "test_stress: pinning to CPU %d failed (%d), running unpinned\n",
			cpu, rc);
}

/* Idle watchdog: `since` is when this thread went idle (0: not yet looked). */
static bool idle_spin(struct ctx *c, uint64_t *spins, uint64_t *since, const char *who,
		      uint64_t a, uint64_t b)
{
	if (c->cpu_dev < 0)
		sched_yield(); /* one CPU: the other end needs it to make progress */
	else
		cpu_relax();
	if ((++*spins & 0xFFFF) != 0)
		return true;
	uint64_t t = now_ns();
	if (!*since)
		*since = t;
	else if (t - *since > STALL_SECONDS * 1000000000ull)
		FAIL("%s made no progress for %ds (%llu / %llu of %llu: posted/reclaimed "
		     "or taken/pushed)", who, STALL_SECONDS, (unsigned long long)a,
		     (unsigned long long)b, (unsigned long long)c->n);
	return true;
}

/* Check one returned chain; `len` is UINT32_MAX when unknown (in-order). */
static bool check_returned(struct ctx *c, void *cookie, uint32_t len, uint64_t want_seq,
			   uint32_t *slot_idx)
{
	uintptr_t off = (uintptr_t)cookie - (uintptr_t)c->slots;
	if ((uintptr_t)cookie < (uintptr_t)c->slots || off % sizeof(struct slot) ||
	    off / sizeof(struct slot) >= c->num)
		FAIL("driver got cookie %p that is no posted slot", cookie);
	struct slot *sl = cookie;
	if (sl->state != SLOT_INFLIGHT)
		FAIL("cookie %p (seq %llu) returned but not in flight (state %#x)", cookie,
		     (unsigned long long)sl->seq, sl->state);
	uint64_t seq = sl->seq;
	if (seq >= c->n || (c->seen[seq >> 3] & (1u << (seq & 7))))
		FAIL("seq %llu returned twice or out of range", (unsigned long long)seq);
	c->seen[seq >> 3] |= (uint8_t)(1u << (seq & 7));
	if (want_seq != UINT64_MAX && seq != want_seq)
		FAIL("in-order queue returned seq %llu, expected %llu",
		     (unsigned long long)seq, (unsigned long long)want_seq);
	struct shape s;
	shape_of(seq, c->indirect, &s);
	if (len != UINT32_MAX && len != s.resp_len)
		FAIL("seq %llu: used len %u, device wrote %u", (unsigned long long)seq, len,
		     s.resp_len);
	uint8_t exp_out[MAX_SEGS * SEG_MAX], exp_in[MAX_SEGS * SEG_MAX];
	gen_out(seq, s.h, exp_out, s.out_len);
	gen_resp(s.h, exp_in, s.resp_len);
	memset(exp_in + s.resp_len, CANARY_IN, s.in_len - s.resp_len);
	uint32_t o = 0, w = 0;
	for (unsigned i = 0; i < MAX_SEGS; i++) {
		uint8_t *p = seg_ptr(sl, i);
		uint32_t l = i < (unsigned)(s.n_out + s.n_in) ? s.len[i] : 0;
		bool bad;
		if (i < s.n_out)
			bad = memcmp(p, exp_out + o, l) != 0, o += l;
		else
			bad = memcmp(p, exp_in + w, l) != 0, w += l;
		for (uint32_t g = l; g < SEG_STRIDE && !bad; g++)
			bad = p[g] != CANARY_GAP;
		if (bad)
			FAIL("seq %llu: segment %u (%s, len %u) or the gap after it holds "
			     "wrong bytes (resp_len %u)", (unsigned long long)seq, i,
			     i < s.n_out ? "readable" : "writable", l, s.resp_len);
	}
	sl->state = SLOT_FREE;
	*slot_idx = (uint32_t)(off / sizeof(struct slot));
	return true;
}

static void *driver_main(void *arg)
{
	struct ctx *c = arg;
	uint64_t rng = 0x1234567ull ^ c->n;
	uint32_t freel[MAX_NUM], nfree = c->num;
	void *cookies[RECLAIM_BURST];
	uint32_t lens[RECLAIM_BURST];
	uint64_t posted = 0, reclaimed = 0, flushes = 0;
	uint64_t spins = 0, since = 0;

	pin_self(c->cpu_drv);
	for (uint32_t i = 0; i < c->num; i++)
		freel[i] = c->num - 1 - i;

	while (reclaimed < c->n && !atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		bool moved = false;
		uint32_t burst = 1 + (uint32_t)(rnd(&rng) % 32), staged = 0;

		while (staged < burst && posted < c->n && nfree) {
			struct slot *sl = &c->slots[freel[nfree - 1]];
			struct shape s;
			struct gv_seg segs[MAX_SEGS];
			uint8_t tmp[MAX_SEGS * SEG_MAX];
			uint32_t o = 0;

			shape_of(posted, c->indirect, &s);
			gen_out(posted, s.h, tmp, s.out_len);
			memset(sl->data, CANARY_GAP, SLOT_BYTES); /* gaps of earlier shapes */
			for (unsigned i = 0; i < (unsigned)(s.n_out + s.n_in); i++) {
				uint8_t *p = seg_ptr(sl, i);
				if (i < s.n_out)
					memcpy(p, tmp + o, s.len[i]), o += s.len[i];
				else
					memset(p, CANARY_IN, s.len[i]);
				segs[i].addr = (uint64_t)(uintptr_t)p;
				segs[i].len = s.len[i];
			}
			int rc = gv_vq_add(c->vq, segs, s.n_out, s.n_in, sl, s.indirect);
			if (rc == -ENOSPC)
				break;
			if (rc) {
				fail_ctx(c, "gv_vq_add(seq %llu, %u+%u segs, indirect %d) = %d",
					 (unsigned long long)posted, s.n_out, s.n_in, s.indirect, rc);
				goto out;
			}
			sl->seq = posted;
			sl->state = SLOT_INFLIGHT;
			nfree--;
			posted++;
			staged++;
		}
		if (staged) {
			if (flushes++ % 16 == 0)
				(void)gv_vq_kick_prepare(c->vq);
			else
				gv_vq_flush(c->vq);
			moved = true;
		}

		uint32_t got = c->batch ? gv_vq_reclaim_in_order(c->vq, cookies, RECLAIM_BURST)
					: gv_vq_get_used(c->vq, cookies, lens, RECLAIM_BURST);
		if (got > RECLAIM_BURST) {
			fail_ctx(c, "reclaim returned %u > %u", got, RECLAIM_BURST);
			goto out;
		}
		for (uint32_t i = 0; i < got; i++) {
			uint32_t idx;
			if (!check_returned(c, cookies[i], c->batch ? UINT32_MAX : lens[i],
					    c->in_order ? reclaimed : UINT64_MAX, &idx))
				goto out;
			freel[nfree++] = idx;
			reclaimed++;
		}
		if (got)
			moved = true;
		if (!got && gv_vq_broken(c->vq)) {
			fail_ctx(c, "driver queue broke after %llu reclaimed",
				 (unsigned long long)reclaimed);
			goto out;
		}
		if (moved)
			spins = since = 0;
		else if (!idle_spin(c, &spins, &since, "driver", posted, reclaimed))
			goto out;
	}
out:
	c->drv_posted = posted;
	c->drv_reclaimed = reclaimed;
	return NULL;
}

struct held {
	uint16_t id, ndesc;
	uint32_t len;
};

static bool device_handle(struct ctx *c, const struct gv_chain *ch, uint64_t want_seq,
			  uint64_t *rng, struct held *out)
{
	uint8_t got[MAX_SEGS * SEG_MAX], exp[MAX_SEGS * SEG_MAX];

	if (ch->n_out < 1 || ch->out_len < 8 || ch->out_len > sizeof(got))
		FAIL("device: chain id %u has n_out %u out_len %u (seq %llu expected)",
		     ch->id, ch->n_out, ch->out_len, (unsigned long long)want_seq);
	uint32_t r = gv_vqd_read(c->d, ch, 0, got, ch->out_len);
	uint64_t seq = 0;
	for (int i = 7; i >= 0; i--)
		seq = seq << 8 | got[i];
	if (r != ch->out_len || seq != want_seq)
		FAIL("device: read %u of %u bytes, seq %llu, expected seq %llu", r,
		     ch->out_len, (unsigned long long)seq, (unsigned long long)want_seq);
	struct shape s;
	shape_of(seq, c->indirect, &s);
	unsigned nseg = s.n_out + s.n_in;
	bool ok = ch->nseg == nseg && ch->n_out == s.n_out && ch->out_len == s.out_len &&
		  ch->in_len == s.in_len && ch->id < c->num &&
		  ch->ndesc == (s.indirect ? 1 : nseg);
	for (unsigned i = 0; ok && i < nseg; i++)
		ok = ch->seg[i].len == s.len[i] && ch->seg[i].write == (i >= s.n_out);
	if (!ok)
		FAIL("device: seq %llu chain (id %u ndesc %u nseg %u n_out %u out %u in %u) "
		     "does not match what was posted (nseg %u n_out %u out %u in %u ind %d)",
		     (unsigned long long)seq, ch->id, ch->ndesc, ch->nseg, ch->n_out,
		     ch->out_len, ch->in_len, nseg, s.n_out, s.out_len, s.in_len, s.indirect);
	gen_out(seq, s.h, exp, s.out_len);
	if (memcmp(got, exp, s.out_len))
		FAIL("device: seq %llu readable payload differs", (unsigned long long)seq);
	gen_resp(s.h, exp, s.resp_len);
	uint32_t split = (uint32_t)(rnd(rng) % (s.resp_len + 1));
	uint32_t w1 = gv_vqd_write(c->d, ch, 0, exp, split);
	uint32_t w2 = gv_vqd_write(c->d, ch, split, exp + split, s.resp_len - split);
	if (w1 != split || w2 != s.resp_len - split)
		FAIL("device: seq %llu gv_vqd_write copied %u+%u, asked %u+%u",
		     (unsigned long long)seq, w1, w2, split, s.resp_len - split);
	out->id = ch->id;
	out->ndesc = ch->ndesc;
	out->len = s.resp_len;
	return true;
}

/* Return `k` held chains: random picks, or the oldest k when IN_ORDER. */
static uint32_t device_release(struct ctx *c, struct held *h, uint32_t *nheld, uint32_t k,
			       uint64_t *rng)
{
	if (c->in_order) { /* the oldest k: one entry each, or one batch entry */
		uint32_t ndesc = 0;
		for (uint32_t i = 0; i < k; i++) {
			ndesc += h[i].ndesc;
			if (!c->batch)
				gv_vqd_push(c->d, h[i].id, h[i].ndesc, h[i].len);
		}
		if (c->batch)
			gv_vqd_push_in_order_batch(c->d, h[k - 1].id, h[k - 1].len, (uint16_t)k,
						   ndesc);
		memmove(h, h + k, (*nheld - k) * sizeof(*h));
		*nheld -= k;
		return k;
	}
	for (uint32_t i = 0; i < k; i++) {
		uint32_t j = (uint32_t)(rnd(rng) % *nheld);
		gv_vqd_push(c->d, h[j].id, h[j].ndesc, h[j].len);
		h[j] = h[--*nheld];
	}
	return k;
}

static void *device_main(void *arg)
{
	struct ctx *c = arg;
	struct gv_chain chain, *ch = &chain;
	struct held held[MAX_WINDOW];
	uint32_t nheld = 0, unpublished = 0;
	uint64_t rng = 0xC0FFEEull ^ (c->n << 1), taken = 0, pushed = 0, publishes = 0;
	uint32_t window = 1 + (uint32_t)(rnd(&rng) % MAX_WINDOW);
	uint64_t spins = 0, since = 0;

	pin_self(c->cpu_dev);
	while (pushed < c->n && !atomic_load_explicit(&c->stop, memory_order_relaxed)) {
		int rc = 0;
		uint32_t rel = 0;

		if (taken < c->n && nheld < MAX_WINDOW) {
			rc = gv_vqd_take(c->d, ch);
			if (rc < 0 || rc > 1) {
				fail_ctx(c, "gv_vqd_take = %d after %llu chains (broken %d)", rc,
					 (unsigned long long)taken, gv_vqd_broken(c->d));
				break;
			}
			if (rc == 1) {
				if (!device_handle(c, ch, taken, &rng, &held[nheld]))
					break;
				nheld++;
				taken++;
			}
		}
		if (rc == 1 && nheld >= window) {
			rel = device_release(c, held, &nheld, 1 + (uint32_t)(rnd(&rng) % nheld), &rng);
			window = 1 + (uint32_t)(rnd(&rng) % MAX_WINDOW);
		} else if (rc == 0 && nheld) {
			rel = device_release(c, held, &nheld, nheld, &rng);
		}
		pushed += rel;
		unpublished += rel;
		if (unpublished && (rc == 0 || unpublished >= 16 || (rnd(&rng) & 3) == 0)) {
			gv_vqd_publish(c->d);
			if ((publishes++ & 15) == 0)
				(void)gv_vqd_need_interrupt(c->d);
			unpublished = 0;
		}
		if (rc == 1 || rel)
			spins = since = 0;
		else if (!idle_spin(c, &spins, &since, "device", taken, pushed))
			break;
	}
	if (unpublished)
		gv_vqd_publish(c->d);
	c->dev_taken = taken;
	c->dev_pushed = pushed;
	c->dev_publishes = publishes;
	return NULL;
}

static void *xlate_identity(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	(void)len;
	return (void *)(uintptr_t)addr;
}

static double stress_scale(void)
{
	double scale = 1.0;
	const char *e = getenv("GV_STRESS_SCALE");
	if (e && *e) {
		char *end;
		double v = strtod(e, &end);
		if (end != e && v > 0)
			scale = v;
	}
	e = getenv("GV_SOAK");
	if (e && strcmp(e, "1") == 0)
		scale *= 50;
	return scale;
}

static void pick_cpus(int *drv, int *dev)
{
	cpu_set_t set;
	*drv = *dev = -1;
	if (sched_getaffinity(0, sizeof(set), &set) || CPU_COUNT(&set) < 2)
		return;
	for (int i = 0; i < CPU_SETSIZE && *dev < 0; i++)
		if (CPU_ISSET(i, &set))
			*(*drv < 0 ? drv : dev) = i;
}

static void *xalloc(size_t align, size_t size)
{
	void *p = aligned_alloc(align, gv_align_up(size ? size : 1, align));
	assert_non_null(p);
	memset(p, 0, gv_align_up(size ? size : 1, align));
	return p;
}

#define LNAME(l) ((l) == GV_LAYOUT_SPLIT ? "split" : "packed")
#define BNAME(b) ((b) == GV_BARRIER_SMP ? "smp" : "mandatory")

static double run_phase(enum gv_layout layout, enum gv_barrier barrier, const struct phase *ph,
			uint64_t n)
{
	struct ctx *c = xalloc(64, sizeof(*c));
	c->num = ph->num;
	assert_true(ph->num <= MAX_NUM);
	c->n = n;
	c->in_order = ph->features & GV_VQ_F_IN_ORDER;
	c->indirect = ph->features & GV_VQ_F_INDIRECT;
	c->batch = c->in_order && ph->batch;
	pick_cpus(&c->cpu_drv, &c->cpu_dev);

	size_t ring_bytes = gv_ring_size(layout, ph->num, ph->align);
	assert_true(ring_bytes > 0);
	void *ring = xalloc(4096, ring_bytes);
	void *ind = c->indirect ? xalloc(4096, (size_t)ph->num * MAX_SEGS * 16) : NULL;
	c->vq = xalloc(64, gv_vq_state_size(layout, ph->num));
	c->d = xalloc(64, gv_vqd_state_size());
	c->slots = xalloc(64, sizeof(struct slot) * ph->num);
	c->seen = xalloc(64, n / 8 + 1);

	struct gv_vq_config vc = {
		.layout = layout, .barrier = barrier, .num = ph->num, .features = ph->features,
		.ring = ring, .ring_iova = (uint64_t)(uintptr_t)ring, .align = ph->align,
		.indirect = ind, .indirect_iova = (uint64_t)(uintptr_t)ind,
		.max_indirect = ind ? MAX_SEGS : 0,
	};
	assert_int_equal(gv_vq_init(c->vq, &vc), 0);
	struct gv_vqd_config dc = {
		.layout = layout, .barrier = barrier, .num = ph->num,
		.features = ph->features & (GV_VQ_F_EVENT_IDX | GV_VQ_F_INDIRECT),
		.xlate = xlate_identity, .xlate_ctx = NULL,
	};
	gv_vq_addrs(c->vq, &dc.addrs);
	assert_int_equal(gv_vqd_init(c->d, &dc), 0);

	pthread_t td, tv;
	uint64_t t0 = now_ns();
	assert_int_equal(pthread_create(&tv, NULL, device_main, c), 0);
	assert_int_equal(pthread_create(&td, NULL, driver_main, c), 0);
	pthread_join(td, NULL);
	pthread_join(tv, NULL);
	double secs = (double)(now_ns() - t0) / 1e9;

	if (atomic_load(&c->failed))
		fail_msg("%s/%s phase %s (num %u): %s", LNAME(layout), BNAME(barrier), ph->name,
			 ph->num, c->msg);

	/* Every seq came back exactly once, and both ends agree on the count. */
	assert_int_equal(c->drv_posted, n);
	assert_int_equal(c->drv_reclaimed, n);
	assert_int_equal(c->dev_taken, n);
	assert_int_equal(c->dev_pushed, n);
	uint64_t seen = 0;
	for (uint64_t i = 0; i < n / 8 + 1; i++)
		seen += (uint64_t)__builtin_popcount(c->seen[i]);
	assert_int_equal(seen, n);

	/* Nothing broken, nothing counted, nothing left on either end. */
	struct gv_vq_stats st, st0;
	memset(&st0, 0, sizeof(st0));
	gv_vq_stats(c->vq, &st);
	assert_false(gv_vq_broken(c->vq));
	assert_memory_equal(&st, &st0, sizeof(st)); /* every hardening counter */
	assert_int_equal(gv_vq_inflight(c->vq), 0);
	assert_int_equal(gv_vq_num_free(c->vq), ph->num);
	assert_int_equal(gv_vq_used_pending(c->vq), 0);
	assert_null(gv_vq_detach(c->vq));

	struct gv_vqd_stats ds, ds0;
	memset(&ds0, 0, sizeof(ds0));
	gv_vqd_stats(c->d, &ds);
	assert_false(gv_vqd_broken(c->d));
	assert_memory_equal(&ds, &ds0, sizeof(ds)); /* bad_chains, no logging */
	assert_int_equal(gv_vqd_avail_count(c->d, ph->num), 0);
	struct gv_chain *ch = xalloc(64, sizeof(*ch));
	assert_int_equal(gv_vqd_take(c->d, ch), 0);

	print_message("[stress] %-6s %-9s %-17s num %3u: %9llu bufs %6.2f s %6.2f Mbuf/s "
		      "(%llu publishes)\n", LNAME(layout), BNAME(barrier), ph->name, ph->num,
		      (unsigned long long)n, secs, (double)n / secs / 1e6,
		      (unsigned long long)c->dev_publishes);

	void *mem[] = { ch, c->seen, c->slots, c->d, c->vq, ind, ring, c };
	for (size_t i = 0; i < sizeof(mem) / sizeof(mem[0]); i++)
		free(mem[i]);
	return secs;
}

static void run_case(enum gv_layout layout, enum gv_barrier barrier)
{
	uint32_t small = layout == GV_LAYOUT_SPLIT ? 16 : 20;
	const struct phase phases[] = {
		{ "ooo", 256, GV_VQ_F_EVENT_IDX, 0, false },
		{ "ooo+indirect", small, GV_VQ_F_INDIRECT, 4096, false },
		{ "in-order-batch", 256, GV_VQ_F_IN_ORDER | GV_VQ_F_EVENT_IDX, 0, true },
		{ "in-order+indirect", small, GV_VQ_F_IN_ORDER | GV_VQ_F_INDIRECT, 0, false },
	};
	const size_t nph = sizeof(phases) / sizeof(phases[0]);
	uint64_t total = (uint64_t)(GV_STRESS_N_DEFAULT * stress_scale());
	uint64_t per = total / nph < 1000 ? 1000 : total / nph;
	double secs = 0;

	for (size_t i = 0; i < nph; i++)
		secs += run_phase(layout, barrier, &phases[i], per);
	print_message("[stress] %-6s %-9s total %llu bufs in %.2f s: %.2f Mbuf/s\n",
		      LNAME(layout), BNAME(barrier), (unsigned long long)(per * nph), secs, (double)(per * nph) / secs / 1e6);
}

#define CASE(name, layout, barrier)                                                    \
	static void name(void **state)                                                 \
	{                                                                              \
		(void)state;                                                           \
		run_case(layout, barrier);                                             \
	}
CASE(stress_split_smp, GV_LAYOUT_SPLIT, GV_BARRIER_SMP)
CASE(stress_split_mandatory, GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY)
CASE(stress_packed_smp, GV_LAYOUT_PACKED, GV_BARRIER_SMP)
CASE(stress_packed_mandatory, GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY)

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(stress_split_smp),
		cmocka_unit_test(stress_split_mandatory),
		cmocka_unit_test(stress_packed_smp),
		cmocka_unit_test(stress_packed_mandatory),
	};
	setvbuf(stdout, NULL, _IOLBF, 0);
	return cmocka_run_group_tests_name("stress", tests, NULL, NULL);
}
