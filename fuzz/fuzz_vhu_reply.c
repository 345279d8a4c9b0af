/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vhu_reply.c - libFuzzer target: the vhost-user front-end's message
 * codec (gv_vhost_user_msg.c, linked alone) against a back-end that sends
 * anything. Each input is one reply to one expected payload kind
 * (GET_FEATURES-style u64, GET_VRING_BASE state, GET_CONFIG of a size),
 * copied into an exact-size heap block so ASan sees any over-read; plus
 * the request encoders with capacities and arguments from the input.
 *
 * Input: byte 0 kind (b % 3; bit 7 also runs the encoders), byte 1 the
 * request (a known code, or raw from >= 0xf0), u32 config offset, u16
 * config size (% 300: above 256 is a bad argument), then the reply bytes.
 *
 * Invariants (abort on violation):
 *  - gv_vhu_check_reply_hdr and gv_vhu_parse_reply agree with an
 *    independent statement of the rules (version, REPLY flag, echoed
 *    request, size field per kind, exact length, GET_CONFIG echo) on the
 *    verdict (0 / -EPROTO / -EIO / -EINVAL), and *why is set on failure;
 *  - on success the decoded fields are the bytes at their offsets and
 *    cfg_data points at cfg_size bytes inside the reply;
 *  - a well-formed reply built from the same values always parses back;
 *  - encoders never write past `cap` and return -ENOSPC / -EINVAL / the
 *    length, with a header that describes the payload.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "gv_vhost_user.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint32_t g_reqs[] = {
	GV_VHU_GET_FEATURES,	     GV_VHU_SET_FEATURES,	   GV_VHU_SET_OWNER,
	GV_VHU_RESET_OWNER,	     GV_VHU_SET_MEM_TABLE,	   GV_VHU_SET_VRING_NUM,
	GV_VHU_SET_VRING_ADDR,	     GV_VHU_SET_VRING_BASE,	   GV_VHU_GET_VRING_BASE,
	GV_VHU_SET_VRING_KICK,	     GV_VHU_SET_VRING_CALL,	   GV_VHU_GET_PROTOCOL_FEATURES,
	GV_VHU_SET_PROTOCOL_FEATURES, GV_VHU_GET_QUEUE_NUM,	   GV_VHU_SET_VRING_ENABLE,
	GV_VHU_GET_CONFIG,	     GV_VHU_SET_CONFIG,		   GV_VHU_SET_STATUS,
	GV_VHU_GET_STATUS,
};

static uint32_t rd32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static uint64_t rd64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The rules of gv_vhost_user.h, stated again: the header verdict. */
static int ref_hdr(const uint8_t *b, size_t len, const struct gv_vhu_expect *e, uint32_t *size)
{
	uint32_t fl;

	if (len < GV_VHU_HDR_SIZE)
		return -EPROTO;
	fl = rd32(b + 4);
	*size = rd32(b + 8);
	if ((fl & 3) != 1 || !(fl & GV_VHU_FLAG_REPLY) || rd32(b) != e->request)
		return -EPROTO;
	if (e->kind != GV_VHU_PL_CONFIG)
		return *size == 8 ? 0 : -EPROTO;
	if (e->cfg_size > GV_VHU_MAX_CONFIG)
		return -EINVAL;
	return *size == 0 || *size == GV_VHU_CONFIG_HDR + e->cfg_size ? 0 : -EPROTO;
}

static int ref_parse(const uint8_t *b, size_t len, const struct gv_vhu_expect *e)
{
	uint32_t size = 0;
	int rc = ref_hdr(b, len, e, &size);

	if (rc)
		return rc;
	if (len != GV_VHU_HDR_SIZE + (size_t)size)
		return -EPROTO;
	if (e->kind != GV_VHU_PL_CONFIG)
		return 0;
	if (size == 0)
		return -EIO;
	if (rd32(b + 12) != e->cfg_offset || rd32(b + 16) != e->cfg_size)
		return -EPROTO;
	return 0;
}

/* Check one reply of exactly `len` bytes (a heap block of that size). */
static void check_reply(const uint8_t *b, size_t len, const struct gv_vhu_expect *e)
{
	struct gv_vhu_reply out;
	const char *why = NULL;
	uint32_t psize = 0xdeadbeef, rsize = 0;
	int rc, want;

	rc = gv_vhu_check_reply_hdr(b, len, e, &psize, &why);
	want = ref_hdr(b, len, e, &rsize);
	FZ_CHECK(rc == want, "check_reply_hdr = %d, rules say %d", rc, want);
	FZ_CHECK(rc == 0 ? why == NULL : why != NULL, "why %p with rc %d", (const void *)why, rc);
	if (rc == 0)
		FZ_CHECK(psize == rsize && psize <= GV_VHU_PAYLOAD_MAX, "payload size %u", psize);

	why = NULL;
	rc = gv_vhu_parse_reply(b, len, e, &out, &why);
	want = ref_parse(b, len, e);
	FZ_CHECK(rc == want, "parse_reply = %d, rules say %d (kind %d, len %zu)", rc, want, e->kind,
		 len);
	FZ_CHECK(gv_vhu_parse_reply(b, len, e, &out, NULL) == rc, "why == NULL changes the verdict");
	if (rc != 0) {
		FZ_CHECK(why != NULL && *why, "no reason for %d", rc);
		return;
	}
	FZ_CHECK(out.request == rd32(b) && out.flags == rd32(b + 4) && out.size == rd32(b + 8),
		 "header fields");
	if (e->kind == GV_VHU_PL_U64) {
		FZ_CHECK(out.u64 == rd64(b + 12), "u64");
	} else if (e->kind == GV_VHU_PL_STATE) {
		FZ_CHECK(out.index == rd32(b + 12) && out.num == rd32(b + 16), "state");
	} else {
		unsigned int sum = 0;

		FZ_CHECK(out.cfg_data == b + GV_VHU_HDR_SIZE + GV_VHU_CONFIG_HDR, "cfg_data");
		FZ_CHECK(out.cfg_size == e->cfg_size && out.cfg_offset == e->cfg_offset &&
				 out.cfg_flags == rd32(b + 20),
			 "config fields");
		FZ_CHECK(out.cfg_data + out.cfg_size <= b + len, "cfg_data past the reply");
		for (uint32_t i = 0; i < out.cfg_size; i++) /* ASan: every byte is ours */
			sum += out.cfg_data[i];
		(void)sum;
	}
}

/* A well-formed reply to `e` built from input values must parse back. */
static void check_good_reply(const struct gv_vhu_expect *e, uint64_t v, uint32_t extra_flags)
{
	uint32_t size = e->kind == GV_VHU_PL_CONFIG ? GV_VHU_CONFIG_HDR + e->cfg_size : 8;
	size_t len = GV_VHU_HDR_SIZE + size;
	uint32_t fl = GV_VHU_VERSION | GV_VHU_FLAG_REPLY | (extra_flags & ~GV_VHU_VERSION_MASK);
	uint8_t *b = malloc(len);
	struct gv_vhu_reply out;

	if (!b)
		abort();
	memset(b, 0x5a, len);
	memcpy(b, &e->request, 4);
	memcpy(b + 4, &fl, 4);
	memcpy(b + 8, &size, 4);
	memcpy(b + 12, &v, 8);
	if (e->kind == GV_VHU_PL_CONFIG) {
		memcpy(b + 12, &e->cfg_offset, 4);
		memcpy(b + 16, &e->cfg_size, 4);
	}
	FZ_CHECK(gv_vhu_parse_reply(b, len, e, &out, NULL) == 0, "a well-formed reply refused");
	if (e->kind == GV_VHU_PL_U64)
		FZ_CHECK(out.u64 == v, "u64 round trip");
	free(b);
}

/* Encoders: never past cap; the header describes what was written. */
static void check_encoders(struct fz *f)
{
	size_t cap = fz_u16(f) % 400;
	uint8_t *b = malloc(cap ? cap : 1);
	uint32_t req = fz_u32(f), flags = fz_u8(f) & 0x0c, n;
	struct gv_vhu_region r[GV_VHU_MAX_REGIONS + 1];
	struct gv_vhu_vring_addr va;
	uint8_t cfg[GV_VHU_MAX_CONFIG + 44];
	int rc[6];

	if (!b)
		abort();
	FZ_CHECK(gv_vhu_request_name(req) != NULL, "request name");
	rc[0] = gv_vhu_enc_none(b, cap, req, flags);
	rc[1] = gv_vhu_enc_u64(b, cap, req, flags, fz_u64(f));
	rc[2] = gv_vhu_enc_state(b, cap, req, flags, fz_u32(f), fz_u32(f));
	fz_bytes(f, &va, sizeof(va));
	rc[3] = gv_vhu_enc_addr(b, cap, flags, &va);
	n = fz_u8(f) % (GV_VHU_MAX_REGIONS + 2);
	fz_bytes(f, r, sizeof(r));
	rc[4] = gv_vhu_enc_mem(b, cap, flags, r, n);
	n = fz_u16(f) % (GV_VHU_MAX_CONFIG + 44);
	fz_bytes(f, cfg, sizeof(cfg));
	rc[5] = gv_vhu_enc_config(b, cap, req, flags, fz_u32(f), n, fz_u32(f),
				  (n & 1) ? cfg : NULL);
	for (int i = 0; i < 6; i++) {
		FZ_CHECK(rc[i] == -ENOSPC || rc[i] == -EINVAL || (rc[i] >= (int)GV_VHU_HDR_SIZE &&
								  (size_t)rc[i] <= cap),
			 "encoder %d returned %d for cap %zu", i, rc[i], cap);
	}
	/* The last successful encoder's header (enc_config) is in b. */
	if (rc[5] > 0) {
		FZ_CHECK(rd32(b + 8) == (uint32_t)rc[5] - GV_VHU_HDR_SIZE && rd32(b + 16) == n,
			 "config header");
		FZ_CHECK((rd32(b + 4) & ~GV_VHU_FLAG_NEED_REPLY) == GV_VHU_VERSION, "flags");
	}
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	uint8_t b0 = fz_u8(&f), b1 = fz_u8(&f);
	struct gv_vhu_expect e;
	uint8_t *b;

	e.kind = (enum gv_vhu_payload)(b0 % 3);
	e.request = b1 < 0xf0 ? g_reqs[b1 % (sizeof(g_reqs) / sizeof(g_reqs[0]))] : fz_u32(&f);
	e.cfg_offset = fz_u32(&f);
	e.cfg_size = fz_u16(&f) % 300;
	if (b0 & 0x80)
		check_encoders(&f);

	/* The rest is the reply: an exact-size copy, and each shorter prefix end. */
	b = malloc(f.n ? f.n : 1);
	if (!b)
		abort();
	memcpy(b, f.p, f.n);
	check_reply(b, f.n, &e);
	free(b);
	if (f.n > 0) {
		b = malloc(f.n - 1 ? f.n - 1 : 1);
		if (!b)
			abort();
		memcpy(b, f.p, f.n - 1);
		check_reply(b, f.n - 1, &e);
		free(b);
	}
	if (e.cfg_size <= GV_VHU_MAX_CONFIG)
		check_good_reply(&e, f.n >= 8 ? rd64(f.p) : 0, f.n >= 12 ? rd32(f.p + 8) : 0);
	return 0;
}
