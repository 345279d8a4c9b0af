/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vqd_take.c - libFuzzer target: the core's device end (gv_vqd.h)
 * taking chains from a driver ring the fuzzer writes: descriptor tables,
 * avail ring, packed descriptors, indirect tables, all in one arena of
 * guest memory whose bytes come from the input. Addresses translate
 * 1:1 into the arena (exact-size heap block, bounds-checked xlate), so
 * ASan sees any access the device makes outside what it translated.
 *
 * Input: an 11-byte header, then `fill` bytes of arena contents, then a
 * program (take, take many, scribble, avail_count, enable_kick,
 * need_interrupt, publish, in-order batch push, log a write of any range);
 * no program: take all.
 *   0  bit0 packed, bit1 EVENT_IDX, bit2 mandatory barriers, bits 4-5
 *      guest base address (0, 4 KiB, near 2^64, any), bit6 dirty log
 *   1  ring size (split 1 << (b % 11); packed 1 + b)
 *   2-7   offsets of the desc / driver / device areas in the arena
 *   8-9   arena size (64 .. 65535 bytes), 10  dirty-log bitmap size
 *
 * Invariants (abort on violation):
 *  - gv_vqd_take agrees with an independent reference walk of the same
 *    memory: same verdict (1 / 0 / -EIO) and, when taken, the same id,
 *    ring slots and segments (address, length, direction);
 *  - a taken chain has 1..GV_CHAIN_MAX_SEGS segments, readable ones first
 *    (so the device never writes a device-readable buffer), byte counts
 *    that add up, host pointers inside the arena, and 1..num ring slots;
 *  - after -EIO the queue stays broken (take -EIO, avail_count 0) and a
 *    bad chain is counted;
 *  - reading and writing every byte of a chain stays inside the arena,
 *    and the dirty log inside its bitmap (ASan).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gv_vqd.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * KNOWN BUG (docs/robustness.md, "Findings"; reproducer in
 * fuzz/findings/): gv_vqd_take accepts a readable segment after writable
 * ones when those wrote 0 bytes in all, and the chain then has a readable
 * segment at an index >= n_out: gv_vqd_write writes into it, gv_vqd_read
 * reads the writable one. Until fixed in common/ring, such an input ends
 * here, with either verdict; set to 0 once fixed (then only -EIO passes).
 */
#ifndef FZ_TOLERATE_ZERO_LEN_WRITABLE
#define FZ_TOLERATE_ZERO_LEN_WRITABLE 1
#endif

struct arena {
	uint8_t *p;
	size_t sz;
	uint64_t base;
};

static void *xlate(void *ctx, uint64_t addr, uint32_t len)
{
	struct arena *a = ctx;
	uint64_t off = addr - a->base;

	if (addr < a->base || off > a->sz || len > a->sz - off)
		return NULL;
	return a->p + off;
}

/* ------------------------------------------------- the reference walk -- */

struct ref {
	struct arena *a;
	enum gv_layout layout;
	uint32_t num, features;
	struct gv_ring_addrs addrs;
	bool kick_enabled;
	uint16_t last_avail, avail_cache; /* split: next entry, the index last read */
	uint16_t pos; /* packed */
	uint8_t wrap;
};

struct ref_chain {
	bool zero_len_writable; /* refused: readable after writable of 0 bytes */
	uint16_t id, ndesc, nseg;
	uint32_t in_len, out_len;
	struct {
		uint64_t addr;
		uint32_t len;
		bool write;
	} seg[GV_CHAIN_MAX_SEGS];
};

static void *rp(struct ref *r, uint64_t addr, uint32_t len)
{
	void *p = xlate(r->a, addr, len);

	FZ_CHECK(p, "reference: ring area not translatable");
	return p;
}

/* Readable segments first; byte counts fit 32 bits; addresses translate. */
static bool ref_seg(struct ref *r, struct ref_chain *c, uint64_t addr, uint32_t len, bool write)
{
	uint64_t sum = (uint64_t)(write ? c->in_len : c->out_len) + len;

	if (c->nseg == GV_CHAIN_MAX_SEGS || sum > UINT32_MAX || !xlate(r->a, addr, len))
		return false;
	if (!write && c->nseg && c->seg[c->nseg - 1].write) {
		c->zero_len_writable = c->in_len == 0;
		return false; /* readable after writable */
	}
	c->seg[c->nseg].addr = addr;
	c->seg[c->nseg].len = len;
	c->seg[c->nseg].write = write;
	c->nseg++;
	if (write)
		c->in_len = (uint32_t)sum;
	else
		c->out_len = (uint32_t)sum;
	return true;
}

static uint16_t ld16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static uint32_t ld32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t ld64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static void st16(void *p, uint16_t v)
{
	memcpy(p, &v, 2);
}

/* An indirect table: 1..128 descriptors, translatable, 16-byte aligned. */
static const uint8_t *ref_table(struct ref *r, uint64_t addr, uint32_t len, uint32_t *n)
{
	const uint8_t *t;

	if (len == 0 || len % 16 || len / 16 > GV_CHAIN_MAX_SEGS)
		return NULL;
	*n = len / 16;
	t = xlate(r->a, addr, len);
	return t && (uintptr_t)t % 16 == 0 ? t : NULL;
}

static int ref_split(struct ref *r, struct ref_chain *c)
{
	const uint8_t *desc = rp(r, r->addrs.desc, 16 * r->num);
	uint8_t *avail = rp(r, r->addrs.driver, 6 + 2 * r->num);
	uint8_t *used = rp(r, r->addrs.device, 6 + 8 * r->num);
	uint32_t i;

	/* The device reads the index again only once it took all it had seen. */
	if (r->last_avail == r->avail_cache) {
		uint16_t idx = ld16(avail + 2);

		if (idx == r->last_avail) {
			if (!(r->features & GV_VQ_F_EVENT_IDX) || !r->kick_enabled)
				return 0;
			st16(used + 4 + 8 * r->num, r->last_avail); /* as the device will */
			idx = ld16(avail + 2);
			if (idx == r->last_avail)
				return 0;
		}
		if ((uint16_t)(idx - r->last_avail) > r->num)
			return -EIO;
		r->avail_cache = idx;
	}
	i = ld16(avail + 4 + 2 * (r->last_avail & (r->num - 1)));
	if (i >= r->num)
		return -EIO;
	c->id = (uint16_t)i;
	for (;;) {
		const uint8_t *d = desc + 16 * i;
		uint16_t fl = ld16(d + 12);

		if (c->ndesc++ == r->num)
			return -EIO; /* a loop */
		if (fl & GV_DESC_F_INDIRECT) {
			const uint8_t *tbl;
			uint32_t n, j = 0;

			if ((fl & GV_DESC_F_NEXT) || c->nseg)
				return -EIO;
			tbl = ref_table(r, ld64(d), ld32(d + 8), &n);
			if (!tbl)
				return -EIO;
			for (uint32_t count = 0;; count++) {
				const uint8_t *t = tbl + 16 * j;
				uint16_t tf = ld16(t + 12);

				if (count == n || (tf & GV_DESC_F_INDIRECT) ||
				    !ref_seg(r, c, ld64(t), ld32(t + 8), tf & GV_DESC_F_WRITE))
					return -EIO;
				if (!(tf & GV_DESC_F_NEXT))
					break;
				j = ld16(t + 14);
				if (j >= n)
					return -EIO;
			}
			break;
		}
		if (!ref_seg(r, c, ld64(d), ld32(d + 8), fl & GV_DESC_F_WRITE))
			return -EIO;
		if (!(fl & GV_DESC_F_NEXT))
			break;
		i = ld16(d + 14);
		if (i >= r->num)
			return -EIO;
	}
	return 1;
}

static bool ref_is_avail(uint16_t fl, uint8_t wrap)
{
	return !!(fl & GV_DESC_F_AVAIL) == wrap && !!(fl & GV_DESC_F_USED) != wrap;
}

static int ref_packed(struct ref *r, struct ref_chain *c, uint16_t *pos_out, uint8_t *wrap_out)
{
	const uint8_t *desc = rp(r, r->addrs.desc, 16 * r->num);
	uint16_t pos = r->pos;
	uint8_t wrap = r->wrap;

	if (!ref_is_avail(ld16(desc + 16 * pos + 14), wrap)) {
		uint8_t *ev;

		if (!(r->features & GV_VQ_F_EVENT_IDX) || !r->kick_enabled)
			return 0;
		ev = rp(r, r->addrs.device, 4); /* as the device will */
		st16(ev, (uint16_t)(pos | (wrap << 15)));
		st16(ev + 2, GV_EVENT_F_DESC);
		if (!ref_is_avail(ld16(desc + 16 * pos + 14), wrap))
			return 0;
	}
	for (;;) {
		const uint8_t *d = desc + 16 * pos;
		uint16_t fl = ld16(d + 14);

		c->id = ld16(d + 12);
		if (c->ndesc++ == r->num)
			return -EIO;
		if (++pos == r->num) {
			pos = 0;
			wrap ^= 1;
		}
		if (fl & GV_DESC_F_INDIRECT) {
			const uint8_t *tbl;
			uint32_t n;

			if ((fl & GV_DESC_F_NEXT) || c->nseg)
				return -EIO;
			tbl = ref_table(r, ld64(d), ld32(d + 8), &n);
			if (!tbl)
				return -EIO;
			for (uint32_t k = 0; k < n; k++) {
				uint16_t tf = ld16(tbl + 16 * k + 14);

				if ((tf & GV_DESC_F_INDIRECT) ||
				    !ref_seg(r, c, ld64(tbl + 16 * k), ld32(tbl + 16 * k + 8),
					     tf & GV_DESC_F_WRITE))
					return -EIO;
			}
			break;
		}
		if (!ref_seg(r, c, ld64(d), ld32(d + 8), fl & GV_DESC_F_WRITE))
			return -EIO;
		if (!(fl & GV_DESC_F_NEXT))
			break;
	}
	*pos_out = pos;
	*wrap_out = wrap;
	return 1;
}

/* ------------------------------------------------------------- target -- */

struct pend {
	uint16_t id, ndesc;
	uint32_t len;
};

struct st {
	struct gv_vqd *d;
	struct ref r;
	struct arena a;
	struct pend pend[64]; /* taken, not yet pushed */
	uint32_t npend;
	bool stop; /* the rest of the input would test a known bug only */
};

static uint8_t g_scratch[1 << 16];
static int g_verbose; /* FZ_VERBOSE=1: one line per take (seed checks) */

/* What any taken chain must look like. */
static void check_shape(struct st *s, const struct gv_chain *c)
{
	uint64_t in = 0, out = 0;

	FZ_CHECK(c->nseg >= 1 && c->nseg <= GV_CHAIN_MAX_SEGS, "nseg %u", c->nseg);
	FZ_CHECK(c->ndesc >= 1 && c->ndesc <= s->r.num, "ndesc %u of %u", c->ndesc, s->r.num);
	FZ_CHECK(c->n_out <= c->nseg, "n_out %u > nseg %u", c->n_out, c->nseg);
	if (s->r.layout == GV_LAYOUT_SPLIT)
		FZ_CHECK(c->id < s->r.num, "split head %u >= num", c->id);
	for (uint16_t i = 0; i < c->nseg; i++) {
		const struct gv_chain_seg *g = &c->seg[i];

		FZ_CHECK(g->write == (i >= c->n_out),
			 "segment %u of %u is %s but n_out is %u: the device would %s it", i,
			 c->nseg, g->write ? "writable" : "readable", c->n_out,
			 g->write ? "read" : "write");
		FZ_CHECK(g->ptr == xlate(&s->a, g->addr, g->len), "segment %u pointer", i);
		if (g->write)
			in += g->len;
		else
			out += g->len;
	}
	FZ_CHECK(in == c->in_len && out == c->out_len, "byte counts %u/%u, segments say %llu/%llu",
		 c->out_len, c->in_len, (unsigned long long)out, (unsigned long long)in);
}

/* The chain is what the reference walk of the same memory found. */
static void check_same(const struct gv_chain *c, const struct ref_chain *rc)
{
	FZ_CHECK(c->id == rc->id && c->ndesc == rc->ndesc && c->nseg == rc->nseg,
		 "chain id/ndesc/nseg %u/%u/%u, reference %u/%u/%u", c->id, c->ndesc, c->nseg,
		 rc->id, rc->ndesc, rc->nseg);
	for (uint16_t i = 0; i < c->nseg; i++)
		FZ_CHECK(c->seg[i].addr == rc->seg[i].addr && c->seg[i].len == rc->seg[i].len &&
				 c->seg[i].write == rc->seg[i].write,
			 "segment %u differs from the reference walk", i);
}

static void push_one(struct st *s, uint16_t id, uint16_t ndesc, uint32_t len)
{
	if (s->npend < 64) {
		s->pend[s->npend++] = (struct pend){ id, ndesc, len };
		return;
	}
	gv_vqd_push(s->d, id, ndesc, len);
}

static void batch_push(struct st *s)
{
	uint32_t slots = 0;

	if (!s->npend)
		return;
	for (uint32_t k = 0; k < s->npend; k++)
		slots += s->pend[k].ndesc;
	gv_vqd_push_in_order_batch(s->d, s->pend[s->npend - 1].id, s->pend[s->npend - 1].len,
				   (uint16_t)s->npend, slots);
	s->npend = 0;
}

/* One take, checked against the reference; 1, 0 or -EIO. */
static int take(struct st *s, uint8_t how)
{
	static struct gv_chain c;
	static struct ref_chain rc;
	uint16_t pos = 0;
	uint8_t wrap = 0;
	int want, got;

	memset(&rc, 0, sizeof(rc));
	if (gv_vqd_broken(s->d))
		want = -EIO;
	else if (s->r.layout == GV_LAYOUT_SPLIT)
		want = ref_split(&s->r, &rc);
	else
		want = ref_packed(&s->r, &rc, &pos, &wrap);
	got = gv_vqd_take(s->d, &c);
	if (g_verbose)
		fprintf(stderr, "take: %d (reference %d) nseg %u out %u in %u ndesc %u id %u\n", got,
			want, got == 1 ? c.nseg : 0, got == 1 ? c.out_len : 0, got == 1 ? c.in_len : 0,
			got == 1 ? c.ndesc : 0, got == 1 ? c.id : 0);
#if FZ_TOLERATE_ZERO_LEN_WRITABLE
	if (want == -EIO && rc.zero_len_writable && (got == 1 || got == -EIO)) {
		s->stop = true; /* the known bug: the two walks part here */
		return got;
	}
#endif
	if (got == 1)
		check_shape(s, &c);
	FZ_CHECK(got == want, "gv_vqd_take = %d, reference walk says %d", got, want);
	if (got < 0) {
		struct gv_vqd_stats st;

		gv_vqd_stats(s->d, &st);
		FZ_CHECK(gv_vqd_broken(s->d) && st.bad_chains > 0, "-EIO without a broken queue");
		FZ_CHECK(gv_vqd_avail_count(s->d, 8) == 0, "avail_count on a broken queue");
		return got;
	}
	if (got == 0)
		return 0;
	check_same(&c, &rc);
	if (s->r.layout == GV_LAYOUT_SPLIT) {
		s->r.last_avail++;
	} else {
		s->r.pos = pos;
		s->r.wrap = wrap;
	}
	/* Touch every byte the chain grants (bounded): ASan checks each. */
	{
		uint32_t rn = c.out_len < sizeof(g_scratch) ? c.out_len : sizeof(g_scratch);
		uint32_t wn = c.in_len < sizeof(g_scratch) ? c.in_len : sizeof(g_scratch);

		FZ_CHECK(gv_vqd_read(s->d, &c, 0, g_scratch, rn) == rn, "short read");
		FZ_CHECK(gv_vqd_write(s->d, &c, how & 0x10 ? 1 : 0, g_scratch, wn) ==
				 (how & 0x10 && wn == c.in_len && wn ? wn - 1 : wn),
			 "short write");
	}
	if (how & 1)
		gv_vqd_push(s->d, c.id, c.ndesc, c.in_len);
	else
		push_one(s, c.id, c.ndesc, c.in_len);
	if (how & 2)
		gv_vqd_publish(s->d);
	return 1;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	g_verbose = getenv("FZ_VERBOSE") != NULL;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t b0 = fz_u8(&f), b1 = fz_u8(&f);
	uint16_t off_desc = fz_u16(&f), off_drv = fz_u16(&f), off_dev = fz_u16(&f);
	uint32_t asz = fz_u16(&f), logb = fz_u8(&f), fill;
	struct gv_vqd_config cfg = { 0 };
	uint64_t *bitmap = NULL;
	struct st s = { 0 };
	static const uint64_t bases[3] = { 0, 0x1000, UINT64_MAX - 0xffff };

	s.a.sz = asz < 64 ? 64 : asz;
	s.a.base = (b0 >> 4 & 3) < 3 ? bases[b0 >> 4 & 3] : fz_u64(&f);
	s.a.p = malloc(s.a.sz);
	s.d = malloc(gv_vqd_state_size());
	if (!s.a.p || !s.d)
		abort();
	fill = (uint32_t)(f.n < s.a.sz ? f.n : s.a.sz);
	fill = fz_u16(&f) % (fill + 1);
	fz_bytes(&f, s.a.p, fill);
	memset(s.a.p + fill, 0, s.a.sz - fill);

	cfg.layout = (b0 & 1) ? GV_LAYOUT_PACKED : GV_LAYOUT_SPLIT;
	cfg.barrier = (b0 & 4) ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP;
	cfg.num = cfg.layout == GV_LAYOUT_SPLIT ? 1u << (b1 % 11) : 1u + b1;
	cfg.features = (b0 & 2) ? GV_VQ_F_EVENT_IDX : 0;
	cfg.addrs.desc = s.a.base + off_desc;
	cfg.addrs.driver = s.a.base + off_drv;
	cfg.addrs.device = s.a.base + off_dev;
	cfg.xlate = xlate;
	cfg.xlate_ctx = &s.a;
	if (gv_vqd_init(s.d, &cfg) != 0)
		goto out; /* rings not inside the arena */
	s.r = (struct ref){ .a = &s.a, .layout = cfg.layout, .num = cfg.num, .features = cfg.features,
			    .addrs = cfg.addrs, .kick_enabled = true, .wrap = 1 };
	if ((b0 & 0x40) && logb) {
		uint64_t bits = logb * 8u + 1; /* odd sizes: the last word is partial */

		bitmap = calloc((bits + 63) / 64, 8);
		if (!bitmap)
			abort();
		gv_vqd_set_log(s.d, bitmap, bits);
	}

	if (fz_empty(&f)) {
		/* No program: take everything there is, return it, publish. */
		for (uint32_t k = 0; k < 2 * cfg.num + 2 && take(&s, 1) == 1 && !s.stop; k++)
			;
		gv_vqd_publish(s.d);
		(void)gv_vqd_need_interrupt(s.d);
	}
	while (!fz_empty(&f) && !s.stop) {
		uint8_t op = fz_u8(&f), arg = fz_u8(&f);

		switch (op % 9) {
		case 0:
			take(&s, arg);
			break;
		case 1:
			for (uint32_t k = 0; k < 1u + arg % 32 && take(&s, op >> 3) == 1 && !s.stop; k++)
				;
			break;
		case 2: { /* the driver rewrites guest memory */
			size_t off = fz_u16(&f) % s.a.sz, len = 1 + arg % 16;

			fz_bytes(&f, s.a.p + off, len < s.a.sz - off ? len : s.a.sz - off);
			break;
		}
		case 3: {
			uint32_t n = gv_vqd_avail_count(s.d, arg);

			FZ_CHECK(n <= arg && n <= cfg.num, "avail_count %u (max %u, num %u)", n, arg,
				 cfg.num);
			break;
		}
		case 4:
			gv_vqd_enable_kick(s.d, arg & 1);
			s.r.kick_enabled = arg & 1;
			break;
		case 5:
			(void)gv_vqd_need_interrupt(s.d);
			break;
		case 6:
			gv_vqd_publish(s.d);
			break;
		case 7:
			batch_push(&s);
			break;
		default: /* a write the device made itself, anywhere */
			gv_vqd_log_write(s.d, s.a.base + fz_u64(&f) % (4 * s.a.sz),
					 arg & 1 ? fz_u64(&f) : fz_u16(&f));
			break;
		}
	}
	batch_push(&s);
	gv_vqd_publish(s.d);
	gv_vqd_set_log(s.d, NULL, 0); /* flushes into the bitmap */
out:
	free(bitmap);
	free(s.d);
	free(s.a.p);
	return 0;
}
