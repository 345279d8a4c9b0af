/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_vqd_burst_diff.c - differential test of the device end's two ways
 * to take and return buffers: the per-chain verbs (gv_vqd_take,
 * gv_vqd_push) against the burst verbs (gv_vqd_take_burst,
 * gv_vqd_push_burst) with their inline flat translation range.
 *
 * Two identical device ends on twin rings; the test plays a careless and
 * partly hostile driver writing the same raw entries into both rings:
 * buffer addresses at and around both edges of the flat range, garbage
 * addresses and lengths, NEXT chains (sometimes with bad next indices),
 * split avail entries out of range, packed descriptors with random ids
 * and flag bits. Each burst taken from the second twin is taken chain by
 * chain from the first; both must agree on every chain, on where a burst
 * stops (only at a longer chain or nothing available), on breaking, on
 * their counters and on the ring bytes after returning the buffers.
 *
 * Each buffer's host pointer is also checked against an independent model
 * of the translation: wholly inside the flat range -> flat_host + offset;
 * otherwise the xlate hook, which maps the buffer area to a tagged
 * pointer (never dereferenced: taking does not touch buffers) so that a
 * flat/hook mix-up shows, and counts its calls (compared between twins).
 *
 * One test per layout on small and odd ring sizes, one per layout on a
 * 32768-entry ring. Seeds are fixed; a mismatch fails with the seed, ring
 * size and step.
 */
#include "gv_test_util.h"

#define MAX_BURST 300u
#define BUFS_LEN (1u << 16) /* buffer area; the flat range leaves 4 KiB each side */
#define FLAT_OFF 4096u
#define FLAT_LEN (BUFS_LEN - 2 * FLAT_OFF)
#define HOOK_TAG (1ull << 46) /* xlate's results for the buffer area carry it */

struct dtwin {
	struct gv_vqd *vqd;
	uint8_t *ring;
	uint64_t xlate_calls;
	const struct ddiff *d;
};

/* One run: twin device ends, the driver model, the PRNG. */
struct ddiff {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num;
	uint64_t seed, rng;
	uint32_t step;
	uint32_t hostility; /* 0: a careful driver; else a bad value 1 in (base rate x this) */
	size_t ring_bytes;
	struct gv_ring_addrs off; /* ring areas as offsets from the ring's start */
	struct dtwin t[2]; /* [0]: per-chain verbs, [1]: burst verbs */
	uint8_t *bufs;
	uint64_t flat_addr;
	/* driver model */
	uint16_t aidx, consumed; /* split: avail idx written, chains taken */
	uint16_t apos; /* packed */
	uint8_t awrap;
	struct gv_vqd_buf b[MAX_BURST];
	uint32_t lens[MAX_BURST];
	struct gv_chain ca, cb;
};

static struct ddiff g_d;

/* Totals of one test, printed at its end: what the runs exercised. */
static struct {
	uint64_t runs, steps, burst_bufs, chains, broken, hook_calls;
} g_tot;

static uint32_t rnd(struct ddiff *d)
{
	return (uint32_t)(gvt_rand(&d->rng) >> 32);
}

static uint32_t rr(struct ddiff *d, uint32_t n)
{
	return gvt_below(&d->rng, n);
}

static void dd_fail(const struct ddiff *d, const char *what, uint64_t a, uint64_t b)
{
	fail_msg("%s: %#llx vs %#llx (seed %#llx, %s, num %u, barrier %d, step %u)", what,
		 (unsigned long long)a, (unsigned long long)b, (unsigned long long)d->seed,
		 d->layout == GV_LAYOUT_SPLIT ? "split" : "packed", d->num, (int)d->barrier,
		 d->step);
}

#define DD_EQ(d, what, a, b)                                                      \
	do {                                                                      \
		if ((uint64_t)(a) != (uint64_t)(b))                               \
			dd_fail(d, what, (uint64_t)(a), (uint64_t)(b));           \
	} while (0)

/* ------------------------------------------------------------ translation */

/* The hook's mapping: the buffer area tagged, both twins' rings as they are. */
static void *hook_map(const struct ddiff *d, uint64_t addr, uint32_t len)
{
	const uint64_t lo = gvt_iova(d->bufs);

	if (addr >= lo && addr - lo <= BUFS_LEN && len <= BUFS_LEN - (addr - lo))
		return (void *)(uintptr_t)(addr ^ HOOK_TAG);
	for (int k = 0; k < 2; k++) {
		const uint64_t rlo = gvt_iova(d->t[k].ring);

		if (d->t[k].ring && addr >= rlo && addr - rlo <= d->ring_bytes &&
		    len <= d->ring_bytes - (addr - rlo))
			return (void *)(uintptr_t)addr;
	}
	return NULL;
}

static void *hook(void *ctx, uint64_t addr, uint32_t len)
{
	struct dtwin *t = ctx;

	t->xlate_calls++;
	return hook_map(t->d, addr, len);
}

/* The model: where a buffer must land (NULL: untranslatable). */
static void *expect_ptr(const struct ddiff *d, uint64_t addr, uint32_t len)
{
	if (addr >= d->flat_addr && addr - d->flat_addr < FLAT_LEN &&
	    len <= FLAT_LEN - (addr - d->flat_addr))
		return d->bufs + FLAT_OFF + (addr - d->flat_addr);
	return hook_map(d, addr, len);
}

/* Should the driver write a bad value now (base rate: 1 in `rate`)? */
static bool bad(struct ddiff *d, uint32_t rate)
{
	return d->hostility && rr(d, rate * d->hostility) == 0;
}

/* ----------------------------------------------------------- ring access */

static void w16(struct ddiff *d, size_t off, uint16_t v)
{
	gvt_twin_put(d->t[0].ring, d->t[1].ring, off, &v, sizeof(v));
}

static void w32(struct ddiff *d, size_t off, uint32_t v)
{
	gvt_twin_put(d->t[0].ring, d->t[1].ring, off, &v, sizeof(v));
}

static void w64(struct ddiff *d, size_t off, uint64_t v)
{
	gvt_twin_put(d->t[0].ring, d->t[1].ring, off, &v, sizeof(v));
}

#define DESC(d, i) ((d)->off.desc + 16 * (size_t)(i))

/* ------------------------------------------------------ the driver model */

static uint64_t pick_addr(struct ddiff *d, uint32_t len)
{
	const uint64_t fa = d->flat_addr;

	if (bad(d, 500))
		return (uint64_t)rnd(d) << 24; /* garbage */
	switch (rr(d, 4)) {
	case 0:
		return fa + FLAT_LEN - len + rr(d, 3) - 1; /* at the end edge, +-1 */
	case 1:
		return fa - rr(d, 16); /* at or before the start */
	default:
		return fa + rr(d, FLAT_LEN);
	}
}

/* Post k raw entries into both rings (no check that they were returned). */
static void driver_post(struct ddiff *d)
{
	uint32_t k = rr(d, d->num + 1);

	if (d->layout == GV_LAYOUT_SPLIT && k > d->num - (uint16_t)(d->aidx - d->consumed))
		k = d->num - (uint16_t)(d->aidx - d->consumed);
	for (uint32_t j = 0; j < k; j++) {
		const uint32_t len = rr(d, 4) ? 1 + rr(d, 3000) : bad(d, 50) ? rnd(d) : rr(d, 20);
		const uint64_t addr = pick_addr(d, len);
		/*
		 * Some readable descriptors NEXT-linked, except a post's last
		 * (split: to the next index, whose descriptor is written
		 * plain, so a careful driver makes no loop); random flags
		 * and next indices when bad; never INDIRECT.
		 */
		const bool hostile_f = bad(d, 30);
		uint16_t f = hostile_f		       ? (uint16_t)(rr(d, 8) & ~GV_DESC_F_INDIRECT)
			     : rr(d, 2)		       ? GV_DESC_F_WRITE
			     : rr(d, 10) || j + 1 == k ? 0
						       : GV_DESC_F_NEXT;

		if (d->layout == GV_LAYOUT_SPLIT) {
			const uint16_t head = (uint16_t)(bad(d, 500) ? rnd(d) : rr(d, d->num));
			const uint16_t i = head < d->num ? head : 0;
			uint16_t next = (uint16_t)((i + 1) % d->num);

			if (hostile_f)
				next = (uint16_t)rr(d, d->num + 1);
			else if (d->num == 1)
				f &= (uint16_t)~GV_DESC_F_NEXT;
			w64(d, DESC(d, i), addr);
			w32(d, DESC(d, i) + 8, len);
			w16(d, DESC(d, i) + 12, f);
			w16(d, DESC(d, i) + 14, next);
			if ((f & GV_DESC_F_NEXT) && !hostile_f) {
				w64(d, DESC(d, next), pick_addr(d, 64));
				w32(d, DESC(d, next) + 8, 64);
				w16(d, DESC(d, next) + 12, rr(d, 2) ? GV_DESC_F_WRITE : 0);
			}
			w16(d, d->off.driver + 4 + 2 * (d->aidx & (d->num - 1)), head);
			d->aidx++;
		} else {
			uint16_t af = d->awrap ? GV_DESC_F_AVAIL : GV_DESC_F_USED;

			if (bad(d, 400))
				af = (uint16_t)(rnd(d) & (GV_DESC_F_AVAIL | GV_DESC_F_USED));
			w64(d, DESC(d, d->apos), addr);
			w32(d, DESC(d, d->apos) + 8, len);
			w16(d, DESC(d, d->apos) + 12, (uint16_t)rnd(d));
			w16(d, DESC(d, d->apos) + 14, (uint16_t)(f | af));
			if (++d->apos == d->num) {
				d->apos = 0;
				d->awrap ^= 1;
			}
		}
	}
	if (d->layout == GV_LAYOUT_SPLIT)
		w16(d, d->off.driver + 2, d->aidx);
}

/* ------------------------------------------------------------ comparison */

static void cmp_state(struct ddiff *d)
{
	struct gv_vqd_stats sa, sb;

	DD_EQ(d, "broken (per-chain vs burst)", gv_vqd_broken(d->t[0].vqd),
	      gv_vqd_broken(d->t[1].vqd));
	DD_EQ(d, "xlate calls (per-chain vs burst)", d->t[0].xlate_calls, d->t[1].xlate_calls);
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	gv_vqd_stats(d->t[0].vqd, &sa);
	gv_vqd_stats(d->t[1].vqd, &sb);
	DD_EQ(d, "stats.bad_chains (per-chain vs burst)", sa.bad_chains, sb.bad_chains);
	if (memcmp(d->t[0].ring, d->t[1].ring, d->ring_bytes))
		for (size_t i = 0; i < d->ring_bytes; i++)
			DD_EQ(d, "ring byte (offset << 8 | value, per-chain vs burst)",
			      (uint64_t)i << 8 | d->t[0].ring[i], (uint64_t)i << 8 | d->t[1].ring[i]);
}

/* A chain both twins took with gv_vqd_take: the same, and translated right. */
static void cmp_chain(struct ddiff *d, const struct gv_chain *a, const struct gv_chain *b)
{
	DD_EQ(d, "chain id", a->id, b->id);
	DD_EQ(d, "chain ndesc", a->ndesc, b->ndesc);
	DD_EQ(d, "chain nseg", a->nseg, b->nseg);
	DD_EQ(d, "chain n_out", a->n_out, b->n_out);
	DD_EQ(d, "chain out_len", a->out_len, b->out_len);
	DD_EQ(d, "chain in_len", a->in_len, b->in_len);
	for (uint32_t s = 0; s < a->nseg; s++) {
		DD_EQ(d, "seg addr", a->seg[s].addr, b->seg[s].addr);
		DD_EQ(d, "seg len", a->seg[s].len, b->seg[s].len);
		DD_EQ(d, "seg write", a->seg[s].write, b->seg[s].write);
		DD_EQ(d, "seg ptr", (uintptr_t)a->seg[s].ptr, (uintptr_t)b->seg[s].ptr);
		DD_EQ(d, "seg ptr vs model", (uintptr_t)a->seg[s].ptr,
		      (uintptr_t)expect_ptr(d, a->seg[s].addr, a->seg[s].len));
	}
}

/* ------------------------------------------------------------- one step */

/*
 * Take a burst from twin 1 and the same chains one by one from twin 0,
 * then whatever stopped the burst from both, return everything, maybe
 * publish. Returns false when the twins broke (the run ends).
 */
static bool step_take(struct ddiff *d)
{
	struct gv_vqd *a = d->t[0].vqd, *b = d->t[1].vqd;
	uint32_t n = rr(d, d->num + 2);
	int r, got;

	if (n > MAX_BURST)
		n = MAX_BURST;
	r = gv_vqd_take_burst(b, d->b, n);
	got = r < 0 ? 0 : r;
	if (r < 0)
		DD_EQ(d, "take_burst error", r, -EIO);
	DD_EQ(d, "take_burst count within n", got <= (int)n, 1);
	g_tot.burst_bufs += (uint64_t)got;
	for (int j = 0; j < got; j++) {
		const struct gv_vqd_buf *bj = &d->b[j];

		DD_EQ(d, "per-chain take of a burst's chain", gv_vqd_take(a, &d->ca), 1);
		d->consumed++;
		DD_EQ(d, "burst chain: nseg", d->ca.nseg, 1);
		DD_EQ(d, "burst chain: ndesc", d->ca.ndesc, 1);
		DD_EQ(d, "burst chain: id", d->ca.id, bj->id);
		DD_EQ(d, "burst chain: addr", d->ca.seg[0].addr, bj->addr);
		DD_EQ(d, "burst chain: len", d->ca.seg[0].len, bj->len);
		DD_EQ(d, "burst chain: write", d->ca.seg[0].write, !!bj->write);
		DD_EQ(d, "burst chain: ptr", (uintptr_t)d->ca.seg[0].ptr, (uintptr_t)bj->ptr);
		DD_EQ(d, "burst chain: ptr vs model", (uintptr_t)bj->ptr,
		      (uintptr_t)expect_ptr(d, bj->addr, bj->len));
	}
	if (gv_vqd_broken(b)) {
		/* The burst met a bad entry: the per-chain verb must break on it. */
		DD_EQ(d, "per-chain take of the burst's bad entry", gv_vqd_take(a, &d->ca), -EIO);
		cmp_state(d);
		return false;
	}
	if ((uint32_t)got < n) {
		/* Nothing more, or a longer chain: both take the same. */
		const int ta = gv_vqd_take(a, &d->ca), tb = gv_vqd_take(b, &d->cb);

		DD_EQ(d, "take after a short burst", ta, tb);
		if (ta < 0) {
			cmp_state(d);
			return false;
		}
		if (ta == 1) {
			const uint32_t len = rr(d, d->ca.in_len + 1);

			cmp_chain(d, &d->ca, &d->cb);
			g_tot.chains++;
			if (d->ca.ndesc == 1 && d->ca.nseg == 1)
				dd_fail(d, "burst stopped before a one-descriptor chain", (uint64_t)got, n);
			d->consumed++;
			gv_vqd_push(a, d->ca.id, d->ca.ndesc, len);
			gv_vqd_push(b, d->cb.id, d->cb.ndesc, len);
		}
	}
	for (int j = 0; j < got; j++) {
		d->lens[j] = rr(d, d->b[j].len + 1);
		gv_vqd_push(a, d->b[j].id, 1, d->lens[j]);
	}
	gv_vqd_push_burst(b, d->b, d->lens, (uint32_t)got);
	if (rr(d, 2)) {
		gv_vqd_publish(a);
		gv_vqd_publish(b);
	}
	return true;
}

/* -------------------------------------------------------------- one run */

static void dtwin_init(struct ddiff *d, struct dtwin *t)
{
	struct gv_vqd_config c = {
		.layout = d->layout, .barrier = d->barrier, .num = d->num,
		.xlate = hook, .xlate_ctx = t,
		.flat_addr = d->flat_addr, .flat_len = FLAT_LEN, .flat_host = d->bufs + FLAT_OFF,
	};

	t->d = d;
	t->ring = gvt_alloc(4096, d->ring_bytes);
	t->vqd = gvt_alloc(64, gv_vqd_state_size());
	c.addrs.desc = gvt_iova(t->ring) + d->off.desc;
	c.addrs.driver = gvt_iova(t->ring) + d->off.driver;
	c.addrs.device = gvt_iova(t->ring) + d->off.device;
	assert_int_equal(gv_vqd_init(t->vqd, &c), 0);
	t->xlate_calls = 0; /* the ring's own translations at init */
}

static void dd_free(struct ddiff *d)
{
	for (int k = 0; k < 2; k++) {
		free(d->t[k].ring);
		free(d->t[k].vqd);
	}
	free(d->bufs);
	memset(d, 0, sizeof(*d));
}

/* Where gv_vq would put the ring areas (a throwaway driver end says). */
static void ring_offsets(struct ddiff *d)
{
	struct gv_vq_config cfg = { .layout = d->layout, .barrier = d->barrier, .num = d->num };
	struct gv_vq *vq = gvt_alloc(64, gv_vq_state_size(d->layout, d->num));
	uint8_t *ring = gvt_alloc(4096, d->ring_bytes);
	struct gv_ring_addrs ad;

	cfg.ring = ring;
	cfg.ring_iova = gvt_iova(ring);
	assert_int_equal(gv_vq_init(vq, &cfg), 0);
	gv_vq_addrs(vq, &ad);
	d->off.desc = ad.desc - gvt_iova(ring);
	d->off.driver = ad.driver - gvt_iova(ring);
	d->off.device = ad.device - gvt_iova(ring);
	free(vq);
	free(ring);
}

static void dd_run(struct ddiff *d, enum gv_layout layout, uint32_t num, enum gv_barrier barrier,
		   uint32_t hostility, uint64_t seed, uint32_t steps)
{
	memset(d, 0, sizeof(*d));
	d->layout = layout;
	d->barrier = barrier;
	d->num = num;
	d->seed = seed;
	d->hostility = hostility;
	d->rng = seed * 0x9E3779B97F4A7C15ull | 1;
	d->ring_bytes = gv_ring_size(layout, num, 0);
	d->bufs = gvt_alloc(4096, BUFS_LEN);
	d->flat_addr = gvt_iova(d->bufs) + FLAT_OFF;
	d->awrap = 1;
	ring_offsets(d);
	dtwin_init(d, &d->t[0]);
	dtwin_init(d, &d->t[1]);

	for (d->step = 0; d->step < steps; d->step++) {
		if (rr(d, 2)) {
			driver_post(d);
			continue;
		}
		if (!step_take(d))
			break;
		cmp_state(d);
	}
	g_tot.runs++;
	g_tot.steps += d->step;
	g_tot.broken += gv_vqd_broken(d->t[0].vqd);
	g_tot.hook_calls += d->t[0].xlate_calls;
	dd_free(d);
}

/* ------------------------------------------------------------- the tests */

static const uint32_t split_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 256 };
static const uint32_t packed_sizes[] = { 1, 2, 3, 5, 8, 17, 64, 100, 255, 256, 300 };

#define DD_NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define SMALL_STEPS 8000u
#define SMALL_SEEDS 6u
#define LARGE_NUM 32768u
#define LARGE_STEPS 3000u
#define LARGE_SEEDS 3u

struct dd_case {
	enum gv_layout layout;
	bool large;
};

static void t_vqd_diff(void **state)
{
	const struct dd_case *c = *state;
	const bool split = c->layout == GV_LAYOUT_SPLIT;
	const uint32_t *sizes = split ? split_sizes : packed_sizes;
	const uint32_t nsizes = c->large ? 1 : split ? DD_NELEM(split_sizes) : DD_NELEM(packed_sizes);
	const uint64_t base = 0xdd5e0000ull | (uint64_t)!split << 12 | (uint64_t)c->large << 8;
	/* A careful driver, a rarely and an often careless one. */
	static const uint32_t hostility[3] = { 0, 20, 1 };
	uint32_t run = 0;

	memset(&g_tot, 0, sizeof(g_tot));
	for (uint32_t s = 0; s < nsizes; s++)
		for (uint32_t k = 0; k < (c->large ? LARGE_SEEDS : SMALL_SEEDS); k++, run++)
			dd_run(&g_d, c->layout, c->large ? LARGE_NUM : sizes[s],
			       run & 1 ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP, hostility[k % 3],
			       base + run, c->large ? LARGE_STEPS : SMALL_STEPS);
	print_message("%llu runs, %llu steps, %llu buffers by burst, %llu longer chains, "
		      "%llu xlate hook calls, %llu runs ended broken\n",
		      (unsigned long long)g_tot.runs, (unsigned long long)g_tot.steps,
		      (unsigned long long)g_tot.burst_bufs, (unsigned long long)g_tot.chains,
		      (unsigned long long)g_tot.hook_calls, (unsigned long long)g_tot.broken);
}

static int teardown(void **state)
{
	(void)state;
	dd_free(&g_d); /* after a failed assertion: what the run held */
	return 0;
}

static const struct dd_case c_split = { GV_LAYOUT_SPLIT, false };
static const struct dd_case c_packed = { GV_LAYOUT_PACKED, false };
static const struct dd_case c_split_l = { GV_LAYOUT_SPLIT, true };
static const struct dd_case c_packed_l = { GV_LAYOUT_PACKED, true };

#define DD_TEST(tag, c) { "t_vqd_diff[" tag "]", t_vqd_diff, NULL, teardown, (void *)&(c) }

int main(void)
{
	const struct CMUnitTest tests[] = {
		DD_TEST("split", c_split),
		DD_TEST("packed", c_packed),
		DD_TEST("split,32768", c_split_l),
		DD_TEST("packed,32768", c_packed_l),
	};

	return GVT_RUN(tests);
}
