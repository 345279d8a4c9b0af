/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vq.c - the engine of fuzz_split_used / fuzz_packed_used: the core's
 * driver end (gv_vq.h) posting chains of known cookies while the fuzzer
 * plays the device (fuzz_vq_dev.c), which may write anything anywhere in
 * the shared ring. This half: the input program, the driver verbs, the
 * model of what is in flight, and the invariants.
 *
 * Input: 3 bytes of set-up, then a program of one-byte opcodes with
 * arguments (reads past the end give zeros).
 *   byte 0  bit0 EVENT_IDX, bit1 IN_ORDER, bit2 INDIRECT (the GV_VQ_F_*
 *           bits), bit3 mandatory barriers, bit4 split used-ring
 *           alignment 4096 (else 4)
 *   byte 1  ring size: split 1 << (b % 9), or 512..32768 from 0xf0;
 *           packed 1 + b, or near 32768 from 0xf8
 *   byte 2  max_indirect 1 + b % 32
 * Driver ops: add (chains of 1..23 segments, some indirect, some invalid),
 * add_burst, flush, kick_prepare, get_used, reclaim_in_order,
 * used_pending, enable_cb/disable_cb, detach + reset mid-way.
 * Device ops: a well-behaved device (take published chains, return them
 * with a valid length, in order when IN_ORDER, publish), in-order batches,
 * raw used entries / packed descriptors (any id, length, flags, slot),
 * used index jumps, event-suppression values, and scribbles of arbitrary
 * bytes anywhere in the ring and the indirect tables.
 *
 * Invariants (abort on violation):
 *  - every cookie returned was posted and is returned at most once; with
 *    IN_ORDER in posting order;
 *  - a returned length never exceeds the writable bytes of its chain;
 *  - num_free + descriptors in flight == ring size, inflight matches;
 *  - gv_vq_add / gv_vq_add_burst return exactly what gv_vq.h documents;
 *  - a head (split) / buffer id (packed) handed out is not in use;
 *  - used_pending never exceeds what is in flight; with a device that
 *    behaved, enable_cb says "nothing waiting" exactly when none is;
 *  - the queue never breaks while the device behaved;
 *  - once broken, every verb returns 0 / -EIO / false and changes nothing;
 *  - gv_vq_detach returns exactly the cookies never returned;
 *  - after gv_vq_reset a clean round trip works.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_vq_priv.h"

#ifdef FZ_BURST
/*
 * The *_burst targets: get_used, reclaim_in_order, add_burst, add and
 * kick_prepare are the inline verbs of gv_vq_burst.h with the layout and
 * barrier policy as literals, as the PMD's bursts make them.
 */
#include "../tests/gv_test_burst.h"
#endif

struct tok g_tok[MAX_TOK];
static uint32_t g_fifo[MAX_TOK];

static void *cookie_of(uint32_t t)
{
	return (void *)(uintptr_t)(0x1000u + 16u * (uintptr_t)t);
}

/* The token a cookie names; aborts on anything not posted. */
static uint32_t tok_of(struct h *h, void *cookie)
{
	uintptr_t c = (uintptr_t)cookie;
	uint32_t t;

	FZ_CHECK(c >= 0x1000 && (c - 0x1000) % 16 == 0, "cookie %p was never posted", cookie);
	t = (uint32_t)((c - 0x1000) / 16);
	FZ_CHECK(t < h->ntok, "cookie %p was never posted", cookie);
	return t;
}

/* ------------------------------------------------------------- model -- */

static void model_reset(struct h *h)
{
	h->m_inflight = h->m_desc = 0;
	for (uint32_t i = 0; i < h->num; i++)
		h->id_tok[i] = -1;
	h->fifo_head = h->fifo_tail = 0;
	h->drv_posted = 0;
	h->drv_pos = 0;
	h->d_last_avail = h->d_used_idx = 0;
	h->d_avail_pos = h->d_used_pos = 0;
	h->d_avail_wrap = h->d_used_wrap = 1;
	h->ntaken = 0;
	h->clean = true;
}

/* A chain was posted: learn its id from the ring, as a device would. */
static void model_posted(struct h *h, uint32_t t, uint16_t need, uint32_t in_len)
{
	uint16_t id;

	if (h->layout == GV_LAYOUT_SPLIT) {
		struct gv_split_avail *av = (void *)(uintptr_t)h->a.driver;

		id = av->ring[h->drv_posted & (h->num - 1)];
		h->drv_posted++;
	} else {
		struct gv_packed_desc *d = (void *)(uintptr_t)h->a.desc;

		id = d[h->drv_pos].id;
		h->drv_pos = (uint16_t)((h->drv_pos + need) % h->num);
	}
	FZ_CHECK(id < h->num, "posted id %u >= num %u", id, h->num);
	FZ_CHECK(h->id_tok[id] < 0, "id %u handed out while token %d still holds it", id,
		 h->id_tok[id]);
	h->id_tok[id] = (int32_t)t;
	g_tok[t] = (struct tok){ T_INFLIGHT, id, need, in_len };
	h->m_inflight++;
	h->m_desc += need;
	h->fifo[h->fifo_tail++] = t;
}

/* A cookie came back from get_used / reclaim (lens may be NULL). */
static void model_returned(struct h *h, void *cookie, const uint32_t *len)
{
	uint32_t t = tok_of(h, cookie);
	struct tok *k = &g_tok[t];

	FZ_CHECK(k->state == T_INFLIGHT, "cookie %p returned while not in flight (state %u)", cookie,
		 k->state);
	if (len)
		FZ_CHECK(*len <= k->in_len, "length %u > %u writable bytes posted", *len, k->in_len);
	if (in_order(h)) {
		FZ_CHECK(h->fifo_head < h->fifo_tail && h->fifo[h->fifo_head] == t,
			 "IN_ORDER: token %u returned out of posting order", t);
		h->fifo_head++;
	}
	k->state = T_RETURNED;
	h->id_tok[k->id] = -1;
	h->m_inflight--;
	h->m_desc -= k->ndesc;
}

static void check_counts(struct h *h)
{
	FZ_CHECK(gv_vq_inflight(h->vq) == h->m_inflight, "inflight %u, model %u",
		 gv_vq_inflight(h->vq), h->m_inflight);
	FZ_CHECK(gv_vq_num_free(h->vq) + h->m_desc == h->num, "num_free %u + in flight %u != %u",
		 gv_vq_num_free(h->vq), h->m_desc, h->num);
}

/* ---------------------------------------------------------- driver ops -- */

static int expect_add(struct h *h, const struct gv_seg *s, uint32_t n_out, uint32_t n_in,
		      bool ind)
{
	uint32_t total = n_out + n_in;
	uint64_t in_len = 0;

	if (gv_vq_broken(h->vq))
		return -EIO;
	if (total == 0 || (!ind && total > h->num))
		return -EINVAL;
	if (ind && (!(h->feat & GV_VQ_F_INDIRECT) || total > h->max_ind))
		return -EINVAL;
	for (uint32_t k = 0; k < total; k++) {
		if (s[k].len == 0)
			return -EINVAL;
		if (k >= n_out)
			in_len += s[k].len;
	}
	if (in_len > UINT32_MAX)
		return -EINVAL;
	if (gv_vq_num_free(h->vq) < (ind ? 1 : total))
		return -ENOSPC;
	return 0;
}

static uint32_t seg_len(struct fz *f, uint8_t mode)
{
	switch (mode) {
	case 0:
		return 1 + fz_u8(f) * 16u;
	case 1:
		return fz_u32(f); /* may be 0 (invalid) or huge (overflow) */
	default:
		return 1 + fz_u8(f);
	}
}

static void op_add(struct h *h, struct fz *f)
{
	uint8_t b = fz_u8(f), lm = fz_u8(f);
	uint32_t n_out = b & 3, n_in = (b >> 2) & 3;
	bool ind = (b >> 4) & 1;
	struct gv_seg s[24];
	uint32_t t = h->ntok, in_len = 0;
	int rc, want;

	if ((b >> 5) == 7) /* long chains */
		n_in = 4 + lm % 17;
	for (uint32_t k = 0; k < n_out + n_in; k++) {
		s[k].addr = 0x100000u + 0x1000u * k;
		s[k].len = seg_len(f, (uint8_t)((lm >> (2 * (k % 4))) & 3));
		if (k >= n_out)
			in_len += s[k].len;
	}
	if (t == MAX_TOK)
		return;
	want = expect_add(h, s, n_out, n_in, ind);
	rc = gv_vq_add(h->vq, s, (uint16_t)n_out, (uint16_t)n_in, cookie_of(t), ind);
	FZ_CHECK(rc == want, "gv_vq_add(%u out, %u in, indirect %d) = %d, expected %d", n_out,
		 n_in, ind, rc, want);
	if (rc == 0) {
		h->ntok++;
		model_posted(h, t, (uint16_t)(ind ? 1 : n_out + n_in), in_len);
	}
}

static void op_add_burst(struct h *h, struct fz *f)
{
	uint8_t b = fz_u8(f);
	uint32_t n = 1 + b % 32, want, got, len = 1 + fz_u8(f);
	bool writable = b & 0x80;
	struct gv_seg s[32];
	void *ck[32];

	if (h->ntok + n > MAX_TOK)
		return;
	for (uint32_t k = 0; k < n; k++) {
		s[k].addr = 0x200000u + 0x800u * k;
		s[k].len = len + k;
		ck[k] = cookie_of(h->ntok + k);
	}
	want = gv_vq_broken(h->vq) ? 0 : n < gv_vq_num_free(h->vq) ? n : gv_vq_num_free(h->vq);
	got = gv_vq_add_burst(h->vq, s, ck, n, writable);
	FZ_CHECK(got == want, "gv_vq_add_burst(%u) = %u, expected %u", n, got, want);
	for (uint32_t k = 0; k < got; k++) {
		uint32_t t = h->ntok++;

		model_posted(h, t, 1, writable ? s[k].len : 0);
	}
}

static void op_get(struct h *h, struct fz *f, bool reclaim)
{
	uint8_t b = fz_u8(f);
	uint32_t n = 1 + b % MAX_BATCH, lens[MAX_BATCH], got;
	bool want_lens = !(b & 0x80);
	void *ck[MAX_BATCH];

	if (reclaim)
		got = gv_vq_reclaim_in_order(h->vq, ck, n);
	else
		got = gv_vq_get_used(h->vq, ck, want_lens ? lens : NULL, n);
	FZ_CHECK(got <= n, "%u chains returned for %u asked", got, n);
	for (uint32_t k = 0; k < got; k++)
		model_returned(h, ck[k], !reclaim && want_lens ? &lens[k] : NULL);
}

/* ------------------------------------------------ broken, detach, reset -- */

static void check_broken(struct h *h)
{
	struct gv_vq_stats st;
	struct gv_seg s = { 0x1000, 64 };
	void *ck[4], *c1 = cookie_of(0);
	uint32_t lens[4], nf = gv_vq_num_free(h->vq), inf = gv_vq_inflight(h->vq);

	FZ_CHECK(!h->clean, "the queue broke while the device behaved");
	gv_vq_stats(h->vq, &st);
	FZ_CHECK(st.bad_id + st.id_not_inflight + st.bad_len + st.bad_flags + st.bad_used_idx +
			 st.bad_order > 0,
		 "broken without a counted reason");
	FZ_CHECK(gv_vq_add(h->vq, &s, 0, 1, c1, false) == -EIO, "add on a broken queue");
	FZ_CHECK(gv_vq_add_burst(h->vq, &s, &c1, 1, true) == 0, "add_burst on a broken queue");
	FZ_CHECK(gv_vq_get_used(h->vq, ck, lens, 4) == 0, "get_used on a broken queue");
	FZ_CHECK(gv_vq_reclaim_in_order(h->vq, ck, 4) == 0, "reclaim on a broken queue");
	FZ_CHECK(gv_vq_used_pending(h->vq) == 0, "used_pending on a broken queue");
	FZ_CHECK(!gv_vq_kick_prepare(h->vq), "kick_prepare on a broken queue");
	FZ_CHECK(!gv_vq_enable_cb(h->vq), "enable_cb on a broken queue");
	gv_vq_disable_cb(h->vq);
	gv_vq_flush(h->vq);
	FZ_CHECK(gv_vq_broken(h->vq), "a broken queue healed itself");
	FZ_CHECK(gv_vq_num_free(h->vq) == nf && gv_vq_inflight(h->vq) == inf,
		 "a broken queue's counts moved");
}

static void detach_all(struct h *h)
{
	uint32_t n = 0;
	void *c;

	while ((c = gv_vq_detach(h->vq)) != NULL) {
		uint32_t t = tok_of(h, c);

		FZ_CHECK(g_tok[t].state == T_INFLIGHT, "detach returned cookie %p in state %u", c,
			 g_tok[t].state);
		g_tok[t].state = T_DETACHED;
		FZ_CHECK(++n <= h->num, "detach returned more than num chains");
	}
	FZ_CHECK(n == h->m_inflight, "detach returned %u chains, %u were in flight", n,
		 h->m_inflight);
	FZ_CHECK(gv_vq_detach(h->vq) == NULL, "detach after NULL");
	FZ_CHECK(gv_vq_inflight(h->vq) == 0 && gv_vq_num_free(h->vq) == h->num,
		 "after detach: inflight %u num_free %u", gv_vq_inflight(h->vq),
		 gv_vq_num_free(h->vq));
}

/* After a reset: one chain there and back with a well-behaved device. */
static void round_trip(struct h *h)
{
	bool ind = (h->feat & GV_VQ_F_INDIRECT) && h->max_ind >= 2;
	struct gv_seg s[2] = { { 0x1000, 10 }, { 0x2000, 100 } };
	uint32_t n_out = h->num >= 2 || ind ? 1 : 0, t = h->ntok, len = 0;
	uint8_t fr[2] = { 0x80, 200 };
	struct fz f = { fr, 2 };
	void *ck[4];
	int rc;

	if (t == MAX_TOK)
		return;
	rc = gv_vq_add(h->vq, s + 1 - n_out, (uint16_t)n_out, 1, cookie_of(t), ind);
	FZ_CHECK(rc == 0, "round trip: add after reset = %d", rc);
	h->ntok++;
	model_posted(h, t, (uint16_t)(ind ? 1 : n_out + 1), 100);
	gv_vq_kick_prepare(h->vq);
	dev_take(h, 1);
	FZ_CHECK(h->ntaken == 1, "round trip: the device sees no chain");
	dev_return(h, &f);
	FZ_CHECK(gv_vq_used_pending(h->vq) == 1, "round trip: used_pending %u",
		 gv_vq_used_pending(h->vq));
	FZ_CHECK(gv_vq_get_used(h->vq, ck, &len, 4) == 1, "round trip: no chain came back");
	FZ_CHECK(ck[0] == cookie_of(t) && len == 100u * 200 / 255, "round trip: cookie %p len %u",
		 ck[0], len);
	model_returned(h, ck[0], &len);
	FZ_CHECK(!gv_vq_broken(h->vq), "round trip broke the queue");
	check_counts(h);
}

/* FZ_VERBOSE=1 in the environment: one line per round (seed checks). */
static void report_round(struct h *h)
{
	static int verbose = -1;
	struct gv_vq_stats st;
	uint32_t ret = 0, inf = 0;

	if (verbose < 0)
		verbose = getenv("FZ_VERBOSE") != NULL;
	if (!verbose)
		return;
	for (uint32_t t = 0; t < h->ntok; t++) {
		ret += g_tok[t].state == T_RETURNED;
		inf += g_tok[t].state == T_INFLIGHT;
	}
	gv_vq_stats(h->vq, &st);
	fprintf(stderr,
		"round: num %u feat %#x tokens %u returned %u inflight %u clean %d broken %d "
		"(id %llu notinfl %llu len %llu flags %llu idx %llu order %llu)\n",
		h->num, h->feat, h->ntok, ret, inf, h->clean, gv_vq_broken(h->vq),
		(unsigned long long)st.bad_id, (unsigned long long)st.id_not_inflight,
		(unsigned long long)st.bad_len, (unsigned long long)st.bad_flags,
		(unsigned long long)st.bad_used_idx, (unsigned long long)st.bad_order);
}

static void reset_round(struct h *h)
{
	report_round(h);
	detach_all(h);
	gv_vq_reset(h->vq);
	FZ_CHECK(!gv_vq_broken(h->vq) && gv_vq_num_free(h->vq) == h->num &&
			 gv_vq_inflight(h->vq) == 0,
		 "reset did not clear the queue");
	model_reset(h);
	round_trip(h);
}

/* ---------------------------------------------------------------- run -- */

enum op {
	OP_ADD, OP_ADD_BURST, OP_FLUSH, OP_KICK, OP_GET, OP_RECLAIM, OP_PENDING, OP_ENABLE,
	OP_DISABLE, OP_D_TAKE, OP_D_RET, OP_D_PUB, OP_D_BATCH, OP_D_RAW, OP_D_JUMP,
	OP_D_SCRIBBLE, OP_D_EVENT, OP_RESET, OP_N
};

/* 32 opcodes: the common verbs appear more than once. */
static const uint8_t g_ops[32] = {
	OP_ADD,	    OP_ADD,	OP_ADD,	   OP_ADD_BURST, OP_FLUSH,     OP_KICK,	  OP_KICK,
	OP_GET,	    OP_GET,	OP_GET,	   OP_RECLAIM,	 OP_PENDING,   OP_ENABLE, OP_DISABLE,
	OP_D_TAKE,  OP_D_TAKE,	OP_D_TAKE, OP_D_RET,	 OP_D_RET,     OP_D_RET,  OP_D_RET,
	OP_D_PUB,   OP_D_BATCH, OP_D_RAW,  OP_D_RAW,	 OP_D_JUMP,    OP_D_SCRIBBLE,
	OP_D_EVENT, OP_D_EVENT, OP_RESET,  OP_GET,	 OP_D_RET,
};

static void step(struct h *h, struct fz *f)
{
	uint8_t op = g_ops[fz_u8(f) % 32];

	switch (op) {
	case OP_ADD:
		op_add(h, f);
		break;
	case OP_ADD_BURST:
		op_add_burst(h, f);
		break;
	case OP_FLUSH:
		gv_vq_flush(h->vq);
		break;
	case OP_KICK:
		(void)gv_vq_kick_prepare(h->vq);
		break;
	case OP_GET:
		op_get(h, f, false);
		break;
	case OP_RECLAIM:
		op_get(h, f, true);
		break;
	case OP_PENDING: {
		uint32_t p = gv_vq_used_pending(h->vq);

		FZ_CHECK(p <= h->m_inflight, "used_pending %u > %u in flight", p, h->m_inflight);
		break;
	}
	case OP_ENABLE: {
		bool quiet = gv_vq_enable_cb(h->vq);
		uint32_t p = gv_vq_used_pending(h->vq);

		/* No lost wake-up: "sleep" exactly when nothing is waiting. */
		FZ_CHECK(!h->clean || quiet == (p == 0), "enable_cb says %d with %u used pending",
			 quiet, p);
		break;
	}
	case OP_DISABLE:
		gv_vq_disable_cb(h->vq);
		break;
	case OP_D_TAKE:
		dev_take(h, 1 + fz_u8(f) % 8);
		break;
	case OP_D_RET:
		dev_return(h, f);
		break;
	case OP_D_PUB:
		if (h->layout == GV_LAYOUT_SPLIT)
			dev_s_used(h)->idx = h->d_used_idx;
		break;
	case OP_D_BATCH:
		dev_batch(h, f);
		break;
	case OP_D_RAW:
		dev_raw(h, f);
		break;
	case OP_D_JUMP:
		dev_jump(h, f);
		break;
	case OP_D_SCRIBBLE:
		dev_scribble(h, f);
		break;
	case OP_D_EVENT:
		dev_event(h, f);
		break;
	default:
		reset_round(h);
		break;
	}
}

static uint32_t ring_num(enum gv_layout layout, uint8_t b)
{
	if (layout == GV_LAYOUT_SPLIT) /* mostly small rings: they wrap sooner */
		return b < 0xf0 ? 1u << (b % 9) : 1u << (9 + b % 7);
	if (b >= 0xf8)
		return 32768u - (b & 7);
	return 1u + b;
}

void fuzz_vq_run(enum gv_layout layout, const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t b0 = fz_u8(&f), b1 = fz_u8(&f), b2 = fz_u8(&f);
	struct gv_vq_config cfg = { 0 };
	struct h h = { 0 };
	void *mem;

	h.layout = layout;
	h.num = ring_num(layout, b1);
	h.feat = b0 & (GV_VQ_F_IN_ORDER | GV_VQ_F_EVENT_IDX | GV_VQ_F_INDIRECT);
	h.max_ind = (uint16_t)(1 + b2 % (h.num > 1024 ? 4 : 32));
	cfg.layout = layout;
	cfg.barrier = (b0 & 8) ? GV_BARRIER_MANDATORY : GV_BARRIER_SMP;
	cfg.num = h.num;
	cfg.features = h.feat;
	cfg.align = (b0 & 16) ? 4096 : 4;
	/* Exact sizes: ASan sees any access past the ring or the tables. */
	h.ring_sz = gv_ring_size(layout, h.num, cfg.align);
	FZ_CHECK(h.ring_sz > 0, "gv_ring_size(%u) = 0", h.num);
	if (posix_memalign(&mem, 16, h.ring_sz))
		abort();
	h.ring = mem;
	memset(h.ring, 0xa5, h.ring_sz); /* gv_vq_init must zero it */
	cfg.ring = h.ring;
	cfg.ring_iova = (uint64_t)(uintptr_t)h.ring;
	if (h.feat & GV_VQ_F_INDIRECT) {
		h.ind_sz = (size_t)h.num * h.max_ind * 16;
		if (posix_memalign(&mem, 16, h.ind_sz))
			abort();
		h.ind = mem;
		cfg.indirect = h.ind;
		cfg.indirect_iova = (uint64_t)(uintptr_t)h.ind;
		cfg.max_indirect = h.max_ind;
	}
	h.vq = malloc(gv_vq_state_size(layout, h.num));
	h.id_tok = malloc(h.num * sizeof(*h.id_tok));
	h.fifo = g_fifo;
	h.max_taken = h.num + 64;
	h.taken = malloc(h.max_taken * sizeof(*h.taken));
	if (!h.vq || !h.id_tok || !h.taken)
		abort();
	FZ_CHECK(gv_vq_init(h.vq, &cfg) == 0, "gv_vq_init(num %u)", h.num);
	for (size_t i = 0; i < h.ring_sz; i++)
		FZ_CHECK(h.ring[i] == 0, "gv_vq_init left ring byte %zu", i);
	gv_vq_addrs(h.vq, &h.a);
	model_reset(&h);

	while (!fz_empty(&f)) {
		step(&h, &f);
		check_counts(&h);
		if (gv_vq_broken(h.vq)) {
			check_broken(&h);
			reset_round(&h);
		}
	}
	reset_round(&h);

	free(h.taken);
	free(h.id_tok);
	free(h.vq);
	free(h.ind);
	free(h.ring);
}
