/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_burst_diff.c - differential test of the driver end's two
 * implementations: the general verbs of gv_vq.c (gv_vq_add, gv_vq_add_burst,
 * gv_vq_get_used, gv_vq_reclaim_in_order, gv_vq_kick_prepare) against the
 * inline burst verbs of common/ring/gv_vq_burst.h (gvb_*) the PMD's bursts
 * use, called with the layout and barrier policy as literals.
 *
 * Two identical queues ("twins") get the same calls. A software device
 * model takes what the driver posted from the first ring and writes the
 * same used entries into both, partly hostile: ids out of range or huge,
 * duplicates, lengths above what was posted, random packed flags, split
 * used index jumps, out-of-order returns under IN_ORDER, packed IN_ORDER
 * batches (one used descriptor for several chains). After every step the
 * twins must agree on every return value, cookie and length, num_free,
 * inflight, the broken flag, the hardening counters and the ring bytes
 * (split: desc.next only where NEXT is set); at the end on what
 * gv_vq_detach gives back.
 *
 * One test per layout x IN_ORDER over small and odd ring sizes, and one
 * per layout x IN_ORDER on a 32768-entry ring (fewer steps). Seeds are
 * fixed; a mismatch fails with the seed, ring size and step.
 */
#include "gv_test_util.h"

#include "gv_vq_burst.h"

#define MAX_BURST 512u /* segments / cookies per add_burst */
#define DIFF_NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* One chain as the device model took it. */
struct taken {
	uint16_t id;
	uint16_t ndesc;
	uint32_t in_len;
};

struct twin {
	struct gv_vq *vq;
	uint8_t *ring;
	void **ck; /* get_used / reclaim output, num + 3 */
	uint32_t *len;
};

/* One run: twin queues, the device model, the PRNG. */
struct diff {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint32_t num, features;
	uint64_t seed, rng;
	uint32_t step;
	uint32_t hostile_rate; /* one dev_return in this many is hostile; 0: none */
	bool batch; /* packed IN_ORDER: the device may batch; the driver reclaims */
	size_t ring_bytes;
	struct gv_ring_addrs off; /* ring areas as offsets from the ring's start */
	struct twin t[2]; /* [0]: general verbs, [1]: burst verbs */
	uintptr_t next_cookie;
	struct gv_seg segs[MAX_BURST];
	void *cookies[MAX_BURST];
	/* device model: reads ring 0, writes both rings */
	uint16_t last_avail, used_idx; /* split */
	uint16_t apos, upos; /* packed */
	uint8_t awrap, uwrap;
	struct taken *q; /* taken chains, a ring of cap entries from qh */
	uint32_t qh, qn, cap;
};

struct diff_case {
	enum gv_layout layout;
	bool in_order;
	bool large;
};

static struct diff g_d;

/* Totals of one test, printed at its end: what the runs exercised. */
static struct {
	uint64_t runs, steps, returned, broken;
} g_tot;

static uint32_t rnd(struct diff *d)
{
	return (uint32_t)(gvt_rand(&d->rng) >> 32);
}

static uint32_t rr(struct diff *d, uint32_t n)
{
	return gvt_below(&d->rng, n);
}

static void diff_fail(const struct diff *d, const char *what, uint64_t a, uint64_t b)
{
	fail_msg("%s: general %#llx, burst %#llx (seed %#llx, %s, num %u, features %#x, "
		 "barrier %d, step %u)",
		 what, (unsigned long long)a, (unsigned long long)b, (unsigned long long)d->seed,
		 d->layout == GV_LAYOUT_SPLIT ? "split" : "packed", d->num, d->features,
		 (int)d->barrier, d->step);
}

#define DIFF_EQ(d, what, a, b)                                                    \
	do {                                                                      \
		if ((uint64_t)(a) != (uint64_t)(b))                               \
			diff_fail(d, what, (uint64_t)(a), (uint64_t)(b));         \
	} while (0)

/* ------------------------------------------- burst verbs, literal L and B */

#define DIFF_LB(d, call)                                                                   \
	switch ((d)->layout == GV_LAYOUT_PACKED ? 2 + ((d)->barrier == GV_BARRIER_MANDATORY)  \
						: ((d)->barrier == GV_BARRIER_MANDATORY)) {  \
	case 0: { const enum gv_layout L = GV_LAYOUT_SPLIT; const enum gv_barrier B = GV_BARRIER_SMP; call; } \
	case 1: { const enum gv_layout L = GV_LAYOUT_SPLIT; const enum gv_barrier B = GV_BARRIER_MANDATORY; call; } \
	case 2: { const enum gv_layout L = GV_LAYOUT_PACKED; const enum gv_barrier B = GV_BARRIER_SMP; call; } \
	default: { const enum gv_layout L = GV_LAYOUT_PACKED; const enum gv_barrier B = GV_BARRIER_MANDATORY; call; } \
	}

static uint32_t b_get_used(struct diff *d, uint32_t n)
{
	struct twin *t = &d->t[1];

	DIFF_LB(d, return gvb_get_used(t->vq, t->ck, t->len, n, L, B))
}

static uint32_t b_reclaim(struct diff *d, uint32_t n)
{
	struct twin *t = &d->t[1];

	DIFF_LB(d, return gvb_reclaim_in_order(t->vq, t->ck, n, L, B))
}

static uint32_t b_add_burst(struct diff *d, uint32_t n, bool wr)
{
	DIFF_LB(d, (void)B; return gvb_add_burst(d->t[1].vq, d->segs, d->cookies, n, wr, L))
}

static int b_add(struct diff *d, uint16_t n_out, uint16_t n_in, void *cookie, bool indirect)
{
	DIFF_LB(d, return gvb_add(d->t[1].vq, d->segs, n_out, n_in, cookie, indirect, L, B))
}

static bool b_kick_prepare(struct diff *d)
{
	DIFF_LB(d, return gvb_kick_prepare(d->t[1].vq, L, B))
}

/* ----------------------------------------------------------- ring access */

static uint16_t r16(const struct diff *d, size_t off)
{
	uint16_t v;

	memcpy(&v, d->t[0].ring + off, sizeof(v));
	return v;
}

static uint32_t r32(const struct diff *d, size_t off)
{
	uint32_t v;

	memcpy(&v, d->t[0].ring + off, sizeof(v));
	return v;
}

static void w16(struct diff *d, size_t off, uint16_t v)
{
	gvt_twin_put(d->t[0].ring, d->t[1].ring, off, &v, sizeof(v));
}

static void w32(struct diff *d, size_t off, uint32_t v)
{
	gvt_twin_put(d->t[0].ring, d->t[1].ring, off, &v, sizeof(v));
}

/* Descriptor i's fields (both layouts: 16 bytes, addr 0, len 8, 12, 14). */
#define DESC(d, i) ((d)->off.desc + 16 * (size_t)(i))

/* ------------------------------------------------------ the device model */

static struct taken *q_at(struct diff *d, uint32_t k)
{
	return &d->q[(d->qh + k) % d->cap];
}

static void q_pop_front(struct diff *d)
{
	d->qh = (d->qh + 1) % d->cap;
	d->qn--;
}

static void q_push(struct diff *d, struct taken c)
{
	if (d->qn == d->cap)
		q_pop_front(d); /* duplicates kept it growing: forget the oldest */
	*q_at(d, d->qn++) = c;
}

/* Remove entry k; the front entry takes its place (order matters only at 0). */
static void q_remove(struct diff *d, uint32_t k)
{
	if (k)
		*q_at(d, k) = *q_at(d, 0);
	q_pop_front(d);
}

/* Take every available chain from ring 0 (the driver made both the same). */
static void dev_take(struct diff *d)
{
	if (d->layout == GV_LAYOUT_SPLIT) {
		const uint16_t aidx = r16(d, d->off.driver + 2);

		/*
		 * A hostile return of a chain the driver staged but had not
		 * published yet frees it early; the driver may then publish
		 * more than a ring's worth: the model skips the oldest.
		 */
		if ((uint16_t)(aidx - d->last_avail) > d->num)
			d->last_avail = (uint16_t)(aidx - d->num);
		for (; d->last_avail != aidx; d->last_avail++) {
			const size_t slot = d->off.driver + 4 + 2 * (d->last_avail & (d->num - 1));
			struct taken c = { r16(d, slot), 0, 0 };
			uint16_t i = c.id;

			while (i < d->num) {
				const uint16_t fl = r16(d, DESC(d, i) + 12);

				c.ndesc++;
				if (fl & GV_DESC_F_WRITE)
					c.in_len += r32(d, DESC(d, i) + 8);
				if (!(fl & GV_DESC_F_NEXT) || c.ndesc > d->num)
					break;
				i = r16(d, DESC(d, i) + 14);
			}
			q_push(d, c);
		}
		return;
	}
	for (uint32_t guard = 0; guard < d->num; guard++) {
		uint16_t fl = r16(d, DESC(d, d->apos) + 14);
		struct taken c = { 0, 0, 0 };

		if (!!(fl & GV_DESC_F_AVAIL) != d->awrap || !!(fl & GV_DESC_F_USED) == d->awrap)
			break;
		for (;;) {
			fl = r16(d, DESC(d, d->apos) + 14);
			c.ndesc++;
			c.id = r16(d, DESC(d, d->apos) + 12);
			if (fl & GV_DESC_F_WRITE)
				c.in_len += r32(d, DESC(d, d->apos) + 8);
			if (++d->apos == d->num) {
				d->apos = 0;
				d->awrap ^= 1;
			}
			if (!(fl & GV_DESC_F_NEXT) || c.ndesc >= d->num)
				break;
		}
		q_push(d, c);
	}
}

static void packed_used_advance(struct diff *d, uint32_t slots)
{
	uint32_t pos = d->upos + slots;

	while (pos >= d->num) {
		pos -= d->num;
		d->uwrap ^= 1;
	}
	d->upos = (uint16_t)pos;
}

/* Packed IN_ORDER: one used descriptor for the first cnt chains. */
static void dev_return_batch(struct diff *d, uint32_t cnt)
{
	const struct taken last = *q_at(d, cnt - 1);
	const size_t o = DESC(d, d->upos);
	uint32_t slots = 0;

	for (uint32_t k = 0; k < cnt; k++) {
		slots += q_at(d, 0)->ndesc;
		q_pop_front(d);
	}
	w32(d, o + 8, rr(d, last.in_len + 1));
	w16(d, o + 12, last.id);
	w16(d, o + 14, d->uwrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0);
	packed_used_advance(d, slots);
}

/* Return some taken chains, sometimes hostile. */
static void dev_return(struct diff *d)
{
	const bool in_order = d->features & GV_VQ_F_IN_ORDER;
	const uint32_t cnt = rr(d, d->qn + 1);
	const bool hostile = d->hostile_rate && rr(d, d->hostile_rate) == 0;

	if (cnt == 0)
		return;
	if (d->batch && rr(d, 4) == 0) {
		dev_return_batch(d, cnt);
		return;
	}
	for (uint32_t k = 0; k < cnt && d->qn; k++) {
		const uint32_t pick = in_order && (rr(d, 30) || !hostile) ? 0 : rr(d, d->qn);
		const struct taken c = *q_at(d, pick);
		uint32_t id = c.id, len = rr(d, c.in_len + 1);

		if (hostile) {
			switch (rr(d, 6)) {
			case 0:
				id = rr(d, d->num + 3); /* maybe out of range */
				break;
			case 1:
				id = rr(d, 2) ? 0x10000u + c.id : 0xffffffffu; /* huge */
				break;
			case 2:
				len = c.in_len + 1 + rr(d, 100); /* too long */
				break;
			default:
				break; /* duplicate when kept below */
			}
		}
		if (!hostile || rr(d, 2))
			q_remove(d, pick);
		if (d->layout == GV_LAYOUT_SPLIT) {
			const size_t o = d->off.device + 4 + 8 * (d->used_idx & (d->num - 1));

			w32(d, o, id);
			w32(d, o + 4, len);
			d->used_idx++;
		} else {
			const size_t o = DESC(d, d->upos);
			uint16_t f = d->uwrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;

			if (hostile && rr(d, 5) == 0)
				f = (uint16_t)rnd(d);
			w32(d, o + 8, len);
			w16(d, o + 12, (uint16_t)id);
			w16(d, o + 14, f);
			packed_used_advance(d, c.ndesc);
		}
	}
	if (d->layout == GV_LAYOUT_SPLIT) {
		uint16_t idx = d->used_idx;

		if (hostile && rr(d, 3) == 0)
			idx = (uint16_t)(idx + rr(d, d->num * 2)); /* index jump */
		w16(d, d->off.device + 2, idx);
	}
}

/* ------------------------------------------------------------ comparison */

/* Ring bytes [from, to) of the twins. */
static void diff_cmp_bytes(const struct diff *d, size_t from, size_t to)
{
	if (from >= to || !memcmp(d->t[0].ring + from, d->t[1].ring + from, to - from))
		return;
	for (size_t i = from; i < to; i++)
		if (d->t[0].ring[i] != d->t[1].ring[i])
			fail_msg("ring byte %zu: general %#x, burst %#x (seed %#llx, %s, num %u, "
				 "features %#x, barrier %d, step %u)",
				 i, d->t[0].ring[i], d->t[1].ring[i], (unsigned long long)d->seed,
				 d->layout == GV_LAYOUT_SPLIT ? "split" : "packed", d->num,
				 d->features, (int)d->barrier, d->step);
}

static void cmp_state(struct diff *d)
{
	struct gv_vq *a = d->t[0].vq, *b = d->t[1].vq;
	struct gv_vq_stats sa, sb;

	DIFF_EQ(d, "num_free", gv_vq_num_free(a), gv_vq_num_free(b));
	DIFF_EQ(d, "inflight", gv_vq_inflight(a), gv_vq_inflight(b));
	DIFF_EQ(d, "broken", gv_vq_broken(a), gv_vq_broken(b));
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	gv_vq_stats(a, &sa);
	gv_vq_stats(b, &sb);
	DIFF_EQ(d, "stats.bad_id", sa.bad_id, sb.bad_id);
	DIFF_EQ(d, "stats.id_not_inflight", sa.id_not_inflight, sb.id_not_inflight);
	DIFF_EQ(d, "stats.bad_len", sa.bad_len, sb.bad_len);
	DIFF_EQ(d, "stats.bad_flags", sa.bad_flags, sb.bad_flags);
	DIFF_EQ(d, "stats.bad_used_idx", sa.bad_used_idx, sb.bad_used_idx);
	DIFF_EQ(d, "stats.bad_order", sa.bad_order, sb.bad_order);

	if (d->layout == GV_LAYOUT_SPLIT &&
	    memcmp(d->t[0].ring + DESC(d, 0), d->t[1].ring + DESC(d, 0), DESC(d, d->num) - DESC(d, 0))) {
		/* desc.next of a descriptor without NEXT is free-list state. */
		for (uint32_t i = 0; i < d->num; i++) {
			const struct gv_split_desc *da = (const void *)(d->t[0].ring + DESC(d, i));
			const struct gv_split_desc *db = (const void *)(d->t[1].ring + DESC(d, i));

			DIFF_EQ(d, "split desc.addr", da->addr, db->addr);
			DIFF_EQ(d, "split desc.len", da->len, db->len);
			DIFF_EQ(d, "split desc.flags", da->flags, db->flags);
			if (da->flags & GV_DESC_F_NEXT)
				DIFF_EQ(d, "split desc.next", da->next, db->next);
		}
	}
	diff_cmp_bytes(d, 0, d->layout == GV_LAYOUT_SPLIT ? d->off.desc : 0);
	diff_cmp_bytes(d, d->layout == GV_LAYOUT_SPLIT ? DESC(d, d->num) : 0, d->ring_bytes);
}

/* ------------------------------------------------------------ the steps */

static void step_add_burst(struct diff *d)
{
	uint32_t n = rr(d, d->num + 2);
	const bool wr = rr(d, 2);

	if (n > MAX_BURST)
		n = MAX_BURST;
	for (uint32_t k = 0; k < n; k++) {
		d->segs[k].addr = (uint64_t)rnd(d) * 64;
		d->segs[k].len = 1 + rr(d, 2000);
		d->cookies[k] = (void *)d->next_cookie++;
	}
	DIFF_EQ(d, "add_burst", gv_vq_add_burst(d->t[0].vq, d->segs, d->cookies, n, wr),
		b_add_burst(d, n, wr));
}

static void step_add(struct diff *d)
{
	uint16_t n_out = (uint16_t)rr(d, 3), n_in = (uint16_t)rr(d, 3);
	const bool indirect = rr(d, 40) == 0; /* not negotiated: -EINVAL */
	void *cookie = (void *)d->next_cookie++;

	if (n_out + n_in == 0)
		n_in = 1;
	for (int k = 0; k < n_out + n_in; k++) {
		d->segs[k].addr = (uint64_t)rnd(d) * 64;
		d->segs[k].len = rr(d, 60) ? 1 + rr(d, 2000) : 0; /* sometimes empty */
	}
	DIFF_EQ(d, "add", gv_vq_add(d->t[0].vq, d->segs, n_out, n_in, cookie, indirect),
		b_add(d, n_out, n_in, cookie, indirect));
}

static void step_get_used(struct diff *d)
{
	const uint32_t n = rr(d, d->num + 3);
	const uint32_t a = gv_vq_get_used(d->t[0].vq, d->t[0].ck, d->t[0].len, n);

	DIFF_EQ(d, "get_used", a, b_get_used(d, n));
	g_tot.returned += a;
	for (uint32_t k = 0; k < a; k++) {
		DIFF_EQ(d, "get_used cookie", (uintptr_t)d->t[0].ck[k], (uintptr_t)d->t[1].ck[k]);
		DIFF_EQ(d, "get_used len", d->t[0].len[k], d->t[1].len[k]);
	}
}

static void step_reclaim(struct diff *d)
{
	const uint32_t n = rr(d, d->num + 3);
	const uint32_t a = gv_vq_reclaim_in_order(d->t[0].vq, d->t[0].ck, n);

	DIFF_EQ(d, "reclaim_in_order", a, b_reclaim(d, n));
	for (uint32_t k = 0; k < a; k++)
		DIFF_EQ(d, "reclaim cookie", (uintptr_t)d->t[0].ck[k], (uintptr_t)d->t[1].ck[k]);
}

static void step_flush_take(struct diff *d)
{
	gv_vq_flush(d->t[0].vq);
	gv_vq_flush(d->t[1].vq);
	if (d->features & GV_VQ_F_EVENT_IDX)
		DIFF_EQ(d, "kick_prepare", gv_vq_kick_prepare(d->t[0].vq), b_kick_prepare(d));
	dev_take(d);
}

/* ------------------------------------------------------------- one run */

static void twin_init(struct diff *d, struct twin *t)
{
	struct gv_vq_config cfg = {
		.layout = d->layout, .barrier = d->barrier, .num = d->num, .features = d->features,
	};

	t->ring = gvt_alloc(4096, d->ring_bytes);
	t->vq = gvt_alloc(64, gv_vq_state_size(d->layout, d->num));
	t->ck = gvt_alloc(64, (d->num + 3) * sizeof(*t->ck));
	t->len = gvt_alloc(64, (d->num + 3) * sizeof(*t->len));
	cfg.ring = t->ring;
	cfg.ring_iova = gvt_iova(t->ring);
	assert_int_equal(gv_vq_init(t->vq, &cfg), 0);
}

static void diff_free(struct diff *d)
{
	for (int k = 0; k < 2; k++) {
		free(d->t[k].ring);
		free(d->t[k].vq);
		free(d->t[k].ck);
		free(d->t[k].len);
	}
	free(d->q);
	memset(d, 0, sizeof(*d));
}

static void diff_run(struct diff *d, enum gv_layout layout, uint32_t num, uint32_t features,
		     enum gv_barrier barrier, uint32_t hostile_rate, bool batch, uint64_t seed,
		     uint32_t steps)
{
	struct gv_ring_addrs ad;

	memset(d, 0, sizeof(*d));
	d->layout = layout;
	d->barrier = barrier;
	d->num = num;
	d->features = features;
	d->seed = seed;
	d->hostile_rate = hostile_rate;
	d->batch = batch && layout == GV_LAYOUT_PACKED && (features & GV_VQ_F_IN_ORDER);
	d->rng = seed * 0x9E3779B97F4A7C15ull | 1;
	d->ring_bytes = gv_ring_size(layout, num, 0);
	d->cap = 2 * num + 64;
	d->q = gvt_alloc(64, d->cap * sizeof(*d->q));
	twin_init(d, &d->t[0]);
	twin_init(d, &d->t[1]);
	gv_vq_addrs(d->t[0].vq, &ad);
	d->off.desc = ad.desc - gvt_iova(d->t[0].ring);
	d->off.driver = ad.driver - gvt_iova(d->t[0].ring);
	d->off.device = ad.device - gvt_iova(d->t[0].ring);
	d->awrap = d->uwrap = 1;
	d->next_cookie = 1;

	for (d->step = 0; d->step < steps; d->step++) {
		const uint32_t op = rr(d, 10);

		if (op < 3)
			step_add_burst(d);
		else if (op < 4)
			step_add(d);
		else if (op < 5)
			step_flush_take(d);
		else if (op < 7)
			dev_return(d);
		else if (op < 9 && (!d->batch || d->hostile_rate))
			step_get_used(d); /* batched entries: bad_order (documented) */
		else
			step_reclaim(d);
		cmp_state(d);
		g_tot.steps++;
		if (gv_vq_broken(d->t[0].vq) && rr(d, 20) == 0)
			break; /* a few steps on a broken queue, then the next run */
	}
	g_tot.runs++;
	g_tot.broken += gv_vq_broken(d->t[0].vq);
	for (;;) {
		void *a = gv_vq_detach(d->t[0].vq), *b = gv_vq_detach(d->t[1].vq);

		DIFF_EQ(d, "detach", (uintptr_t)a, (uintptr_t)b);
		if (!a)
			break;
	}
	diff_free(d);
}

/* ------------------------------------------------------------- the tests */

static const uint32_t split_sizes[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };
static const uint32_t packed_sizes[] = { 1, 2, 3, 4, 5, 7, 8, 16, 31, 64, 100, 255, 256, 300 };

#define SMALL_STEPS 2500u
#define SMALL_SEEDS 6u
#define LARGE_NUM 32768u
#define LARGE_STEPS 2000u
#define LARGE_SEEDS 4u

static void t_diff(void **state)
{
	const struct diff_case *c = *state;
	const bool split = c->layout == GV_LAYOUT_SPLIT;
	const uint32_t *sizes = split ? split_sizes : packed_sizes;
	const uint32_t nsizes = split ? DIFF_NELEM(split_sizes) : DIFF_NELEM(packed_sizes);
	const uint64_t base = 0x5eed0000ull | (uint64_t)!split << 12 | (uint64_t)c->in_order << 8 |
			      (uint64_t)c->large << 4;
	uint32_t run = 0;

	memset(&g_tot, 0, sizeof(g_tot));
	for (uint32_t s = 0; s < (c->large ? 1 : nsizes); s++) {
		const uint32_t num = c->large ? LARGE_NUM : sizes[s];

		for (uint32_t k = 0; k < (c->large ? LARGE_SEEDS : SMALL_SEEDS); k++, run++) {
			/* Every other run: EVENT_IDX (kick decisions compared), the other policy. */
			const uint32_t features = (c->in_order ? GV_VQ_F_IN_ORDER : 0) |
						  (run & 1 ? GV_VQ_F_EVENT_IDX : 0);
			const enum gv_barrier barrier = run & 2 ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP;
			/*
			 * A clean device, a rarely and an often hostile one;
			 * packed IN_ORDER: with and without batched returns.
			 */
			static const uint32_t hostile_rate[3] = { 0, 400, 40 };

			diff_run(&g_d, c->layout, num, features, barrier, hostile_rate[k % 3], k & 1,
				 base + run,
				 c->large ? LARGE_STEPS : SMALL_STEPS);
		}
	}
	print_message("%llu runs, %llu steps, %llu chains returned by get_used, %llu runs "
		      "ended broken\n",
		      (unsigned long long)g_tot.runs, (unsigned long long)g_tot.steps,
		      (unsigned long long)g_tot.returned, (unsigned long long)g_tot.broken);
}

static int teardown(void **state)
{
	(void)state;
	diff_free(&g_d); /* after a failed assertion: what the run held */
	return 0;
}

static const struct diff_case c_split = { GV_LAYOUT_SPLIT, false, false };
static const struct diff_case c_split_io = { GV_LAYOUT_SPLIT, true, false };
static const struct diff_case c_packed = { GV_LAYOUT_PACKED, false, false };
static const struct diff_case c_packed_io = { GV_LAYOUT_PACKED, true, false };
static const struct diff_case c_split_l = { GV_LAYOUT_SPLIT, false, true };
static const struct diff_case c_split_io_l = { GV_LAYOUT_SPLIT, true, true };
static const struct diff_case c_packed_l = { GV_LAYOUT_PACKED, false, true };
static const struct diff_case c_packed_io_l = { GV_LAYOUT_PACKED, true, true };

#define DIFF_TEST(tag, c) { "t_diff[" tag "]", t_diff, NULL, teardown, (void *)&(c) }

int main(void)
{
	const struct CMUnitTest tests[] = {
		DIFF_TEST("split", c_split),
		DIFF_TEST("split,in_order", c_split_io),
		DIFF_TEST("packed", c_packed),
		DIFF_TEST("packed,in_order", c_packed_io),
		DIFF_TEST("split,32768", c_split_l),
		DIFF_TEST("split,in_order,32768", c_split_io_l),
		DIFF_TEST("packed,32768", c_packed_l),
		DIFF_TEST("packed,in_order,32768", c_packed_io_l),
	};

	return GVT_RUN(tests);
}
