/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_log.c - the device end's dirty-page log (gv_vqd_set_log,
 * gv_vqd_log_write, logging inside gv_vqd_write/push/publish), for both
 * layouts and both barrier modes.
 *
 * Guest memory is one 8 MiB region (2048 pages of 4 KiB); device addresses
 * are offsets into it (gpa) and the device's xlate hook maps gpa -> base +
 * gpa, so page numbers mean something. The ring sits in the region too, at
 * page 1024 (bitmap word 16), placed so that the used entries the tests
 * write straddle a page boundary (split: used->ring[2] crosses it; packed:
 * descriptors 0-1 and 2- are on different pages).
 *
 * For each test the expected bitmap is computed independently from the
 * addresses: the pages of every byte range the device wrote, plus the pages
 * of the used-ring entries it wrote (split: used elements and used->idx;
 * packed: the descriptors written back at the device's used position, which
 * advances by each returned chain's ndesc). Every such page must be logged,
 * and no page outside that set may be, except pages of the ring itself.
 *
 *   pages      (a) data spanning pages, crossing a page boundary, far-apart
 *                  segments, partial and offset writes, readable-only chains
 *   log_write  (b) gv_vqd_log_write: 0 length, page edges, bitmap word edges
 *   atomics    (c) 32 buffers in 8 pages: log_atomics bounded by the words
 *                  touched per publish, and below log_marks
 *   off        (d) logging never on / switched off: nothing written or counted
 *   bounds     (e) bitmap of exactly `bits` bits: nothing at or past `bits`
 *                  is written (run under ASan+UBSan by the sanitizer build)
 *   event      (f) event suppression fields the device writes are logged
 *   burst      (g) gv_vqd_take_burst / gv_vqd_push_burst log the used
 *                  entries they write (across the ring's page boundary)
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gv_vq.h"
#include "gv_vqd.h"

#define PG (1ull << GV_LOG_PAGE_SHIFT)
#define REGION (8ull << 20)
#define PAGES (REGION / PG) /* 2048 */
#define WORDS (PAGES / 64) /* 32 */
#define RING_PAGE 1024ull
#define NUM 256u
#define MAXCH 40

struct env {
	enum gv_layout layout;
	enum gv_barrier barrier;
	uint8_t *mem;
	uint64_t ring_gpa, used_gpa;
	size_t ring_bytes;
	struct gv_vq *vq;
	struct gv_vqd *d;
	struct gv_chain *ch; /* MAXCH chains taken by the device */
	uint32_t pushed, unpublished; /* used entries written, not yet published */
	uint32_t used_pos; /* packed: next used descriptor slot */
	uint8_t must[PAGES]; /* pages that must be logged */
	uint8_t ring_pg[PAGES]; /* pages of the ring (may be logged) */
	uint64_t bm[WORDS];
};

static struct env *g_env;

static void *xlate(void *ctx, uint64_t addr, uint32_t len)
{
	struct env *e = ctx;
	if (addr >= REGION || len > REGION - addr)
		return NULL;
	return e->mem + addr;
}

static void expect_pages(uint8_t *set, uint64_t addr, uint64_t len)
{
	for (uint64_t p = addr / PG; len && p <= (addr + len - 1) / PG && p < PAGES; p++)
		set[p] = 1;
}

static void env_open(enum gv_layout layout, enum gv_barrier barrier, uint32_t features)
{
	struct env *e = calloc(1, sizeof(*e));
	assert_non_null(e);
	g_env = e;
	e->layout = layout;
	e->barrier = barrier;
	e->mem = aligned_alloc(PG, REGION);
	assert_non_null(e->mem);
	memset(e->mem, 0, REGION);
	e->ch = calloc(MAXCH, sizeof(*e->ch));
	assert_non_null(e->ch);

	e->ring_bytes = gv_ring_size(layout, NUM, 4);
	if (layout == GV_LAYOUT_SPLIT) {
		/* Modern layout (align 4): used ring right after the avail ring. */
		uint64_t u = gv_align_up(gv_split_desc_bytes(NUM) + gv_split_avail_bytes(NUM), 4);
		uint64_t t = u + 4 + 8 * 2; /* used->ring[2] */
		e->ring_gpa = RING_PAGE * PG + (((PG - t % PG) % PG) & ~15ull);
		e->used_gpa = e->ring_gpa + u;
		assert_int_equal(e->ring_bytes, u + gv_split_used_bytes(NUM));
	} else {
		e->ring_gpa = (RING_PAGE + 1) * PG - 32; /* desc 0-1 | desc 2.. */
		e->used_gpa = e->ring_gpa;
	}
	expect_pages(e->ring_pg, e->ring_gpa, e->ring_bytes);

	e->vq = aligned_alloc(64, gv_align_up(gv_vq_state_size(layout, NUM), 64));
	e->d = aligned_alloc(64, gv_align_up(gv_vqd_state_size(), 64));
	assert_non_null(e->vq);
	assert_non_null(e->d);
	struct gv_vq_config vc = {
		.layout = layout, .barrier = barrier, .num = NUM, .features = features,
		.ring = e->mem + e->ring_gpa, .ring_iova = e->ring_gpa, .align = 4,
	};
	assert_int_equal(gv_vq_init(e->vq, &vc), 0);
	struct gv_vqd_config dc = {
		.layout = layout, .barrier = barrier, .num = NUM, .features = features,
		.xlate = xlate, .xlate_ctx = e,
	};
	gv_vq_addrs(e->vq, &dc.addrs);
	/* The test's own idea of the layout agrees with the driver's. */
	assert_int_equal(dc.addrs.desc, e->ring_gpa);
	if (layout == GV_LAYOUT_SPLIT) {
		assert_int_equal(dc.addrs.driver, e->ring_gpa + gv_split_desc_bytes(NUM));
		assert_int_equal(dc.addrs.device, e->used_gpa);
		/* The design of the test: used->ring[0..4] spans two pages. */
		assert_int_not_equal((e->used_gpa + 4) / PG, (e->used_gpa + 4 + 8 * 5 - 1) / PG);
	}
	assert_int_equal(gv_vqd_init(e->d, &dc), 0);
}

static int env_close(void **state)
{
	(void)state;
	if (g_env) {
		free(g_env->vq);
		free(g_env->d);
		free(g_env->ch);
		free(g_env->mem);
		free(g_env);
		g_env = NULL;
	}
	return 0;
}

static void fill(struct env *e, uint64_t gpa, uint64_t len, uint8_t v)
{
	memset(e->mem + gpa, v, len);
}

/* Post one chain (addresses are gpas) and make it available. */
static void post(struct env *e, const struct gv_seg *segs, uint16_t n_out, uint16_t n_in,
		 void *cookie)
{
	assert_int_equal(gv_vq_add(e->vq, segs, n_out, n_in, cookie, false), 0);
	gv_vq_flush(e->vq);
}

static struct gv_chain *take(struct env *e, unsigned i)
{
	assert_true(i < MAXCH);
	assert_int_equal(gv_vqd_take(e->d, &e->ch[i]), 1);
	return &e->ch[i];
}

/* Return a chain; note the used-ring bytes this writes. */
static void push(struct env *e, const struct gv_chain *c, uint32_t len)
{
	gv_vqd_push(e->d, c->id, c->ndesc, len);
	if (e->layout == GV_LAYOUT_SPLIT) {
		expect_pages(e->must, e->used_gpa + 4 + 8 * (e->pushed % NUM), 8);
	} else {
		expect_pages(e->must, e->ring_gpa + 16ull * e->used_pos, 16);
		e->used_pos = (e->used_pos + c->ndesc) % NUM;
	}
	e->pushed++;
	e->unpublished++;
}

static void publish(struct env *e)
{
	gv_vqd_publish(e->d);
	if (e->layout == GV_LAYOUT_SPLIT && e->unpublished)
		expect_pages(e->must, e->used_gpa + 2, 2); /* used->idx */
	e->unpublished = 0;
}

/* Device writes `len` bytes of value `v` at writable offset `off`; note them. */
static void dev_write(struct env *e, const struct gv_chain *c, uint32_t off, uint32_t len,
		      uint8_t v)
{
	static uint8_t buf[4 * 4096 + 64];
	assert_true(len <= sizeof(buf));
	memset(buf, v, len);
	assert_int_equal(gv_vqd_write(e->d, c, off, buf, len), len);
	/* Walk the writable segments to find the bytes [off, off+len) landed in. */
	uint32_t pos = 0;
	for (unsigned i = c->n_out; i < c->nseg; i++) {
		uint32_t sl = c->seg[i].len;
		if (len && pos < off + len && off < pos + sl) {
			uint32_t a = off > pos ? off - pos : 0;
			uint32_t b = off + len < pos + sl ? off + len - pos : sl;
			expect_pages(e->must, c->seg[i].addr + a, b - a);
			for (uint32_t k = a; k < b; k++)
				assert_int_equal(e->mem[c->seg[i].addr + k], v);
		}
		pos += sl;
	}
}

/* The driver takes back exactly `n` chains with these cookies and lengths. */
static void reclaim(struct env *e, unsigned n, void *const *cookies, const uint32_t *lens)
{
	void *got[MAXCH];
	uint32_t gl[MAXCH];
	uint64_t seen = 0;
	assert_int_equal(gv_vq_get_used(e->vq, got, gl, MAXCH), n);
	for (unsigned i = 0; i < n; i++) {
		unsigned j;
		for (j = 0; j < n && cookies[j] != got[i]; j++)
			;
		assert_true(j < n); /* a cookie we posted ... */
		assert_false(seen & (1ull << j)); /* ... and only once */
		seen |= 1ull << j;
		assert_int_equal(gl[i], lens[j]);
	}
	assert_false(gv_vq_broken(e->vq));
	assert_false(gv_vqd_broken(e->d));
}

/*
 * Every page in `must` is logged; any other logged page is a ring page.
 * Checks all bits of `words` bitmap words (bits >= `bits` must be clear).
 */
static void check_bitmap(const struct env *e, const uint64_t *bm, uint64_t words, uint64_t bits)
{
	for (uint64_t p = 0; p < words * 64; p++) {
		int got = (int)((bm[p / 64] >> (p % 64)) & 1);
		if (p >= bits) {
			if (got)
				fail_msg("page %llu logged, beyond the bitmap's %llu bits",
					 (unsigned long long)p, (unsigned long long)bits);
			continue;
		}
		if (e->must[p] && !got)
			fail_msg("page %llu was written but is not logged", (unsigned long long)p);
		if (!e->must[p] && !e->ring_pg[p] && got)
			fail_msg("page %llu logged but never written", (unsigned long long)p);
	}
}

/* ------------------------------------------------------------------ */

/* (a) Every page the device writes is logged, and only those. */
static void t_pages(enum gv_layout layout, enum gv_barrier barrier)
{
	env_open(layout, barrier, 0);
	struct env *e = g_env;
	int tag[6];
	/* A: readable 100 B (page 300) + writable 300 B across the 511|512 edge. */
	struct gv_seg a[] = { { 300 * PG + 50, 100 }, { 512 * PG - 100, 300 } };
	/* B: three far-apart writable segments, one spanning pages 80-82. */
	struct gv_seg b[] = { { 256 * PG + 16, 64 }, { 1792 * PG + 4000, 200 },
			      { 80 * PG, 2 * PG + 10 } };
	/* C: two writable segments, only the first 50 bytes get written. */
	struct gv_seg c_[] = { { 1536 * PG, 100 }, { 1664 * PG, 100 } };
	/* D: readable only. */
	struct gv_seg d_[] = { { 400 * PG, 64 } };
	/* E: written only at writable offset 150..169, i.e. in page 1301. */
	struct gv_seg e_[] = { { 1200 * PG + 10, 100 }, { 1300 * PG + 4090, 100 } };
	/* F: one segment over four pages. */
	struct gv_seg f[] = { { 600 * PG + 2000, 3 * PG } };

	fill(e, 300 * PG + 50, 100, 0x11);
	fill(e, 400 * PG, 64, 0x44);
	post(e, a, 1, 1, &tag[0]);
	post(e, b, 0, 3, &tag[1]);
	post(e, c_, 0, 2, &tag[2]);
	post(e, d_, 1, 0, &tag[3]);
	post(e, e_, 0, 2, &tag[4]);
	post(e, f, 0, 1, &tag[5]);
	gv_vqd_set_log(e->d, e->bm, PAGES);

	struct gv_chain *ca = take(e, 0), *cb = take(e, 1), *cc = take(e, 2);
	struct gv_chain *cd = take(e, 3), *ce = take(e, 4), *cf = take(e, 5);
	uint8_t rd[100];
	assert_int_equal(gv_vqd_read(e->d, ca, 0, rd, 100), 100);
	assert_int_equal(rd[0], 0x11);
	assert_int_equal(rd[99], 0x11);
	assert_int_equal(gv_vqd_read(e->d, cd, 0, rd, 64), 64);
	assert_int_equal(rd[63], 0x44);
	assert_int_equal(cb->in_len, 64 + 200 + 2 * PG + 10);

	dev_write(e, ca, 0, 300, 0xA1);
	dev_write(e, cb, 0, 30, 0xB1);
	dev_write(e, cb, 30, cb->in_len - 30, 0xB2);
	dev_write(e, cc, 0, 50, 0xC1);
	dev_write(e, ce, 150, 20, 0xE1);
	dev_write(e, cf, 0, 3 * PG, 0xF1);
	/* Pages of readable segments and unwritten writable bytes stay clean. */
	assert_false(e->must[300] || e->must[400] || e->must[1664] || e->must[1200] ||
		     e->must[1300]);
	assert_true(e->must[511] && e->must[512] && e->must[1301] && e->must[603]);

	/* Out of order, one publish. */
	push(e, cc, 50);
	push(e, ca, 300);
	push(e, cf, 3 * PG);
	push(e, ce, 170);
	push(e, cd, 0);
	push(e, cb, cb->in_len);
	publish(e);
	check_bitmap(e, e->bm, WORDS, PAGES);

	struct gv_vqd_stats st;
	gv_vqd_stats(e->d, &st);
	/* Pages per data write: 2 + 1 + 6 + 1 + 1 + 4 = 15, plus ring marks. */
	assert_true(st.log_marks >= 15);
	assert_true(st.log_atomics >= 1);
	assert_int_equal(st.bad_chains, 0);

	void *ck[] = { &tag[0], &tag[1], &tag[2], &tag[3], &tag[4], &tag[5] };
	uint32_t ln[] = { 300, (uint32_t)cb->in_len, 50, 0, 170, 3 * PG };
	reclaim(e, 6, ck, ln);

	/*
	 * Round 2 on a clean bitmap. Split: used->ring[6..8] lie on the page
	 * after used->idx, so a missing mark of the index itself shows.
	 */
	memset(e->bm, 0, sizeof(e->bm));
	memset(e->must, 0, sizeof(e->must));
	for (unsigned i = 0; i < 3; i++) {
		struct gv_seg g = { 900 * PG + 64 * i, 64 };
		post(e, &g, 0, 1, &tag[i]);
	}
	for (unsigned i = 0; i < 3; i++)
		dev_write(e, take(e, i), 0, 64, 0x90);
	for (unsigned i = 3; i-- > 0;)
		push(e, &e->ch[i], 64);
	publish(e);
	if (layout == GV_LAYOUT_SPLIT)
		assert_int_not_equal((e->used_gpa + 2) / PG, (e->used_gpa + 4 + 8 * 6) / PG);
	check_bitmap(e, e->bm, WORDS, PAGES);
	uint32_t ln2[] = { 64, 64, 64 };
	reclaim(e, 3, ck, ln2);
}

/* (b) gv_vqd_log_write marks exactly the pages of the range. */
static void t_log_write(enum gv_layout layout, enum gv_barrier barrier)
{
	static const struct {
		uint64_t addr, len, first, last; /* pages first..last; first > last: none */
	} cases[] = {
		{ 5 * PG + 7, 0, 1, 0 },		/* 0 length */
		{ 63 * PG + 4000, 200, 63, 64 },	/* bitmap word 0 | word 1 */
		{ 10 * PG, PG, 10, 10 },		/* ends on a page edge */
		{ 20 * PG + PG - 1, 1, 20, 20 },	/* last byte of a page */
		{ 30 * PG, PG + 1, 30, 31 },		/* one byte into the next */
		{ 60 * PG + 1, 130 * PG, 60, 190 },	/* three words */
		{ 127 * PG + 100, 2 * PG, 127, 129 },	/* word 1 | word 2 */
		{ 2047 * PG, PG, 2047, 2047 },		/* last page of the map */
	};
	env_open(layout, barrier, 0);
	struct env *e = g_env;
	gv_vqd_set_log(e->d, e->bm, PAGES);

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct gv_vqd_stats s0, s1, s2;
		memset(e->bm, 0, sizeof(e->bm));
		memset(e->must, 0, sizeof(e->must));
		gv_vqd_stats(e->d, &s0);
		gv_vqd_log_write(e->d, cases[i].addr, cases[i].len);
		gv_vqd_stats(e->d, &s1);
		gv_vqd_publish(e->d); /* flushes the log; nothing staged */
		gv_vqd_stats(e->d, &s2);
		for (uint64_t p = cases[i].first; p <= cases[i].last; p++)
			e->must[p] = 1;
		print_message("  log_write(%#llx, %llu): marks +%llu atomics +%llu\n",
			      (unsigned long long)cases[i].addr, (unsigned long long)cases[i].len,
			      (unsigned long long)(s2.log_marks - s0.log_marks),
			      (unsigned long long)(s2.log_atomics - s0.log_atomics));
		check_bitmap(e, e->bm, WORDS, PAGES);
		if (cases[i].len == 0) {
			/* Nothing requested, nothing counted, nothing written. */
			assert_int_equal(s1.log_marks, s0.log_marks);
			assert_int_equal(s1.log_atomics, s0.log_atomics);
			for (uint64_t w = 0; w < WORDS; w++)
				if (w != RING_PAGE / 64)
					assert_int_equal(e->bm[w], 0);
		} else {
			uint64_t words = cases[i].last / 64 - cases[i].first / 64 + 1;
			/* One mark per page; one OR per word, at most one more for the ring. */
			assert_int_equal(s1.log_marks - s0.log_marks,
					 cases[i].last - cases[i].first + 1);
			assert_true(s2.log_atomics - s0.log_atomics >= words);
			assert_true(s2.log_atomics - s0.log_atomics <= words + 1);
		}
	}
	/* Several ranges before one publish: the union. */
	memset(e->bm, 0, sizeof(e->bm));
	memset(e->must, 0, sizeof(e->must));
	gv_vqd_log_write(e->d, 3 * PG, 10);
	gv_vqd_log_write(e->d, 700 * PG + 4095, 2);
	gv_vqd_log_write(e->d, 3 * PG + 100, 10);
	gv_vqd_publish(e->d);
	e->must[3] = e->must[700] = e->must[701] = 1;
	check_bitmap(e, e->bm, WORDS, PAGES);
	assert_false(gv_vqd_broken(e->d));
}

/* (c) Many writes into a few bitmap words cost few atomics. */
static void t_atomics(enum gv_layout layout, enum gv_barrier barrier)
{
	enum { NB = 32, BUF = 1024 };
	env_open(layout, barrier, 0);
	struct env *e = g_env;
	int tag[NB];
	void *ck[NB];
	uint32_t ln[NB];
	/* The ring's pages are all in one bitmap word, the data's in another. */
	uint64_t ring_word = e->ring_gpa / PG / 64;
	assert_int_equal((e->ring_gpa + e->ring_bytes - 1) / PG / 64, ring_word);
	assert_int_not_equal(ring_word, 0);

	gv_vqd_set_log(e->d, e->bm, PAGES);
	for (unsigned round = 0; round < 2; round++) {
		/* Round 0: one publish for all 32; round 1: a publish every 8. */
		unsigned per_pub = round == 0 ? NB : 8, pubs = NB / per_pub;
		struct gv_vqd_stats s0, s1;
		for (unsigned i = 0; i < NB; i++) {
			struct gv_seg s = { 8 * PG + (uint64_t)i * BUF, BUF }; /* pages 8..15 */
			post(e, &s, 0, 1, &tag[i]);
			ck[i] = &tag[i];
			ln[i] = BUF;
		}
		gv_vqd_stats(e->d, &s0);
		for (unsigned i = 0; i < NB; i++)
			take(e, i);
		for (unsigned g = 0; g < NB; g += per_pub) {
			for (unsigned k = 0; k < per_pub; k++)
				dev_write(e, &e->ch[g + k], 0, BUF, (uint8_t)(g + k + round));
			for (unsigned k = 0; k < per_pub; k++) /* reversed */
				push(e, &e->ch[g + per_pub - 1 - k], BUF);
			publish(e);
		}
		gv_vqd_stats(e->d, &s1);
		uint64_t marks = s1.log_marks - s0.log_marks;
		uint64_t atomics = s1.log_atomics - s0.log_atomics;
		print_message("  %u publish(es): log_marks %llu log_atomics %llu\n", pubs,
			      (unsigned long long)marks, (unsigned long long)atomics);
		/*
		 * Per publish: one OR for the data word, one for the ring word
		 * (used entries), one for used->idx / a flag written after the
		 * flush. Marks: at least one per buffer.
		 */
		assert_true(marks >= NB);
		assert_true(atomics >= 1);
		assert_true(atomics <= (uint64_t)pubs * 3);
		assert_true(atomics < marks);
		for (unsigned p = 8; p < 16; p++)
			assert_true(e->must[p]);
		check_bitmap(e, e->bm, WORDS, PAGES);
		reclaim(e, NB, ck, ln);
	}
}

/* (d) Logging off writes nothing and counts nothing. */
static void t_off(enum gv_layout layout, enum gv_barrier barrier)
{
	for (int variant = 0; variant < 2; variant++) {
		env_open(layout, barrier, 0);
		struct env *e = g_env;
		int tag;
		uint64_t *old = calloc(WORDS, sizeof(uint64_t));
		assert_non_null(old);
		if (variant == 1) { /* on, then off: the old bitmap must stay clean */
			gv_vqd_set_log(e->d, old, PAGES);
			gv_vqd_set_log(e->d, NULL, 0);
		}
		struct gv_seg s[] = { { 512 * PG - 100, 300 }, { 40 * PG, 2 * PG } };
		post(e, s, 0, 2, &tag);
		struct gv_chain *c = take(e, 0);
		dev_write(e, c, 0, 300 + 2 * PG, 0x5D);
		gv_vqd_log_write(e->d, 100 * PG, 10 * PG);
		push(e, c, 300 + 2 * PG);
		publish(e);
		struct gv_vqd_stats st;
		gv_vqd_stats(e->d, &st);
		assert_int_equal(st.log_marks, 0);
		assert_int_equal(st.log_atomics, 0);
		for (unsigned w = 0; w < WORDS; w++)
			assert_int_equal(old[w], 0);
		void *ck[] = { &tag };
		uint32_t ln[] = { 300 + 2 * PG };
		reclaim(e, 1, ck, ln);
		free(old);
		env_close(NULL);
	}
}

/* (e) A bitmap of exactly `bits` bits: nothing at or beyond is touched. */
static void t_bounds(enum gv_layout layout, enum gv_barrier barrier)
{
	static const uint64_t bitses[] = { 128, 100 };
	for (size_t v = 0; v < 2; v++) {
		uint64_t bits = bitses[v], words = (bits + 63) / 64;
		env_open(layout, barrier, 0);
		struct env *e = g_env;
		int tag;
		/* Exactly the words `bits` needs, so ASan sees any overrun. */
		uint64_t *bm = calloc(words, sizeof(uint64_t));
		assert_non_null(bm);
		gv_vqd_set_log(e->d, bm, bits);
		/* The ring (page 1024+) is beyond the map too. */
		struct gv_seg s[] = { { 99 * PG + 4000, 200 },	 /* 99 | 100 */
				      { 127 * PG + 4000, 200 },	 /* 127 | 128 */
				      { 200 * PG, 64 },		 /* beyond */
				      { 2047 * PG + 4000, 96 } }; /* last byte of the region */
		post(e, s, 0, 4, &tag);
		struct gv_chain *c = take(e, 0);
		dev_write(e, c, 0, c->in_len, 0x77);
		gv_vqd_log_write(e->d, bits * PG, PG);
		gv_vqd_log_write(e->d, 1ull << 60, 2 * PG);
		gv_vqd_log_write(e->d, UINT64_MAX - (PG - 1), PG);
		gv_vqd_log_write(e->d, (bits - 4) * PG, 1ull << 32); /* runs far past */
		push(e, c, c->in_len);
		publish(e);
		for (uint64_t p = bits - 4; p < bits; p++)
			e->must[p] = 1;
		/* The ring's pages are beyond `bits`: the check below is exact. */
		check_bitmap(e, bm, words, bits);
		void *ck[] = { &tag };
		uint32_t ln[] = { c->in_len };
		reclaim(e, 1, ck, ln);
		free(bm);
		env_close(NULL);
	}
}

/*
 * (f) Event suppression writes are device writes too: with EVENT_IDX,
 * gv_vqd_enable_kick (and going idle in gv_vqd_take) writes split
 * avail_event (used->ring[num]) / the packed device event structure. Those
 * sit on a page no used entry of this test touches, so it must be logged.
 */
static void t_event(enum gv_layout layout, enum gv_barrier barrier)
{
	env_open(layout, barrier, GV_VQ_F_EVENT_IDX);
	struct env *e = g_env;
	int tag;
	uint64_t ev = layout == GV_LAYOUT_SPLIT ? e->used_gpa + 4 + 8ull * NUM
						: e->ring_gpa + 16ull * NUM + 4;
	struct gv_ring_addrs ra;
	gv_vq_addrs(e->vq, &ra);
	if (layout == GV_LAYOUT_PACKED)
		assert_int_equal(ra.device, ev);
	gv_vqd_set_log(e->d, e->bm, PAGES);
	struct gv_chain *c = &e->ch[0];
	assert_int_equal(gv_vqd_take(e->d, c), 0); /* idle */
	gv_vqd_enable_kick(e->d, false);
	gv_vqd_enable_kick(e->d, true);
	expect_pages(e->must, ev, layout == GV_LAYOUT_SPLIT ? 2 : 4);
	/* The test's design: no used entry below shares the event page. */
	assert_int_not_equal(ev / PG, (layout == GV_LAYOUT_SPLIT ? e->used_gpa : e->ring_gpa) / PG);
	struct gv_seg s = { 50 * PG, 64 };
	post(e, &s, 0, 1, &tag);
	dev_write(e, take(e, 0), 0, 64, 0x3E);
	push(e, c, 64);
	publish(e);
	check_bitmap(e, e->bm, WORDS, PAGES);
	void *ck[] = { &tag };
	uint32_t ln[] = { 64 };
	reclaim(e, 1, ck, ln);
}

#define COMBOS(fn)                                                                      \
	static void fn##_split_smp(void **s) { (void)s; fn(GV_LAYOUT_SPLIT, GV_BARRIER_SMP); } \
	static void fn##_split_mand(void **s)                                           \
	{                                                                               \
		(void)s;                                                                \
		fn(GV_LAYOUT_SPLIT, GV_BARRIER_MANDATORY);                              \
	}                                                                               \
	static void fn##_packed_smp(void **s) { (void)s; fn(GV_LAYOUT_PACKED, GV_BARRIER_SMP); } \
	static void fn##_packed_mand(void **s)                                          \
	{                                                                               \
		(void)s;                                                                \
		fn(GV_LAYOUT_PACKED, GV_BARRIER_MANDATORY);                             \
	}
#define TESTS(fn)                                                                       \
	cmocka_unit_test_teardown(fn##_split_smp, env_close),                           \
	cmocka_unit_test_teardown(fn##_split_mand, env_close),                          \
	cmocka_unit_test_teardown(fn##_packed_smp, env_close),                          \
	cmocka_unit_test_teardown(fn##_packed_mand, env_close)

/* (g) The burst verbs log the used entries they write, as gv_vqd_push. */
static void t_burst(enum gv_layout layout, enum gv_barrier barrier)
{
	enum { NB = 6, BUF = 512 };
	env_open(layout, barrier, 0);
	struct env *e = g_env;
	int tag[NB];
	void *ck[NB];
	uint32_t ln[NB];
	struct gv_vqd_buf b[NB];

	gv_vqd_set_log(e->d, e->bm, PAGES);
	for (unsigned i = 0; i < NB; i++) {
		struct gv_seg s = { 20 * PG + (uint64_t)i * BUF, BUF }; /* page 20 */
		post(e, &s, 0, 1, &tag[i]);
		ck[i] = &tag[i];
		ln[i] = BUF - i;
	}
	assert_int_equal(gv_vqd_take_burst(e->d, b, NB), NB);
	for (unsigned i = 0; i < NB; i++) {
		assert_int_equal(b[i].addr, 20 * PG + (uint64_t)i * BUF);
		assert_ptr_equal(b[i].ptr, e->mem + b[i].addr);
		assert_true(b[i].write);
		memset(b[i].ptr, (int)i, ln[i]);
		gv_vqd_log_write(e->d, b[i].addr, ln[i]);
		expect_pages(e->must, b[i].addr, ln[i]);
	}
	gv_vqd_push_burst(e->d, b, ln, NB);
	for (unsigned i = 0; i < NB; i++) { /* what push() notes per entry */
		if (e->layout == GV_LAYOUT_SPLIT) {
			expect_pages(e->must, e->used_gpa + 4 + 8 * (e->pushed % NUM), 8);
		} else {
			expect_pages(e->must, e->ring_gpa + 16ull * e->used_pos, 16);
			e->used_pos = (e->used_pos + 1) % NUM;
		}
		e->pushed++;
		e->unpublished++;
	}
	publish(e);
	check_bitmap(e, e->bm, WORDS, PAGES);
	reclaim(e, NB, ck, ln);
}

COMBOS(t_pages)
COMBOS(t_log_write)
COMBOS(t_atomics)
COMBOS(t_off)
COMBOS(t_bounds)
COMBOS(t_event)
COMBOS(t_burst)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TESTS(t_pages), TESTS(t_log_write), TESTS(t_atomics), TESTS(t_off),
		TESTS(t_bounds), TESTS(t_event), TESTS(t_burst),
	};
	return cmocka_run_group_tests_name("log", tests, NULL, NULL);
}
