/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_vhost_user_codec.c - the vhost-user message codec (gv_vhost_user_msg.c):
 * every encoder's bytes, every reply check, and a seeded random fuzz of
 * gv_vhu_parse_reply over exact-size heap buffers (so ASan sees any read past
 * the end).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gv_fake_vhu.h"

/* ================================================================ codec */

static void test_codec_encode(void **state)
{
	uint8_t b[GV_VHU_MSG_MAX];
	struct gv_vhu_vring_addr a = { 3, GV_VHU_VRING_F_LOG, 0x1000, 0x2000, 0x3000, 0x4000 };
	struct gv_vhu_region r[9] = { { 0x10000, 0x2000, 0x10000, 0x40 } };
	uint8_t cfg[6] = { 1, 2, 3, 4, 5, 6 };
	int i;

	(void)state;
	assert_int_equal(gv_vhu_enc_none(b, sizeof(b), GV_VHU_SET_OWNER, 0), 12);
	assert_int_equal(get32(b), 3);
	assert_int_equal(get32(b + 4), 1);
	assert_int_equal(get32(b + 8), 0);
	assert_int_equal(gv_vhu_enc_u64(b, sizeof(b), GV_VHU_SET_FEATURES,
					GV_VHU_FLAG_NEED_REPLY, 0x1122334455667788ull), 20);
	assert_int_equal(get32(b + 4), 9);
	assert_int_equal(get32(b + 8), 8);
	assert_true(get64(b + 12) == 0x1122334455667788ull);
	assert_int_equal(gv_vhu_enc_state(b, sizeof(b), GV_VHU_SET_VRING_NUM, 0, 1, 256), 20);
	assert_int_equal(get32(b + 12), 1);
	assert_int_equal(get32(b + 16), 256);
	assert_int_equal(gv_vhu_enc_addr(b, sizeof(b), 0, &a), 52);
	assert_int_equal(get32(b), GV_VHU_SET_VRING_ADDR);
	assert_int_equal(get32(b + 8), 40);
	assert_int_equal(get32(b + 12), 3);
	assert_int_equal(get32(b + 16), 1);
	assert_true(get64(b + 20) == 0x1000 && get64(b + 28) == 0x2000 &&
		    get64(b + 36) == 0x3000 && get64(b + 44) == 0x4000);
	for (i = 1; i < 9; i++)
		r[i] = (struct gv_vhu_region){ 0x100000ull * i, 0x1000, 0x100000ull * i, 0 };
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 2), 12 + 8 + 64);
	assert_int_equal(get32(b + 8), 72);
	assert_int_equal(get32(b + 12), 2);
	assert_int_equal(get32(b + 16), 0);
	assert_true(get64(b + 20) == 0x10000 && get64(b + 28) == 0x2000 &&
		    get64(b + 36) == 0x10000 && get64(b + 44) == 0x40);
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 8), 12 + 8 + 256);
	assert_int_equal(gv_vhu_enc_config(b, sizeof(b), GV_VHU_SET_CONFIG, 0, 2, 6, 1, cfg), 30);
	assert_int_equal(get32(b + 8), 18);
	assert_int_equal(get32(b + 12), 2);
	assert_int_equal(get32(b + 16), 6);
	assert_int_equal(get32(b + 20), 1);
	assert_memory_equal(b + 24, cfg, 6);
	assert_int_equal(gv_vhu_enc_config(b, sizeof(b), GV_VHU_GET_CONFIG, 0, 0, 256, 0, NULL),
			 (int)GV_VHU_MSG_MAX);

	/* errors */
	assert_int_equal(gv_vhu_enc_none(b, 11, GV_VHU_SET_OWNER, 0), -ENOSPC);
	assert_int_equal(gv_vhu_enc_u64(b, 19, GV_VHU_SET_FEATURES, 0, 1), -ENOSPC);
	assert_int_equal(gv_vhu_enc_none(b, sizeof(b), GV_VHU_SET_OWNER, GV_VHU_FLAG_REPLY), -EINVAL);
	assert_int_equal(gv_vhu_enc_none(NULL, 64, GV_VHU_SET_OWNER, 0), -EINVAL);
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 0), -EINVAL);
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 9), -EINVAL);
	assert_int_equal(gv_vhu_enc_mem(b, 12 + 8 + 32, 0, r, 2), -ENOSPC);
	r[1].memory_size = 0;
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 2), -EINVAL);
	r[1] = (struct gv_vhu_region){ UINT64_MAX - 10, 0x1000, 0x1000, 0 };
	assert_int_equal(gv_vhu_enc_mem(b, sizeof(b), 0, r, 2), -EINVAL);
	assert_int_equal(gv_vhu_enc_config(b, sizeof(b), GV_VHU_SET_CONFIG, 0, 0, 257, 0, NULL), -EINVAL);
	a.flags = 2;
	assert_int_equal(gv_vhu_enc_addr(b, sizeof(b), 0, &a), -EINVAL);
	assert_string_equal(gv_vhu_request_name(GV_VHU_SET_MEM_TABLE), "SET_MEM_TABLE");
	assert_string_equal(gv_vhu_request_name(7), "UNKNOWN");
	assert_string_equal(gv_vhu_request_name(0xffffffffu), "UNKNOWN");
}

/* A reply: header + payload of `size` bytes (0xab filler) into b. */
static size_t mk_reply(uint8_t *b, uint32_t req, uint32_t flags, uint32_t size)
{
	put32(b, req);
	put32(b + 4, flags);
	put32(b + 8, size);
	memset(b + 12, 0xab, size <= GV_VHU_PAYLOAD_MAX ? size : 0);
	return 12 + (size <= GV_VHU_PAYLOAD_MAX ? size : 0);
}

/* Parse from an exact-size heap copy so ASan catches over-reads. */
static int parse_exact(const uint8_t *b, size_t len, const struct gv_vhu_expect *e,
		       struct gv_vhu_reply *r, const char **why)
{
	uint8_t *h = malloc(len ? len : 1);
	int rc;

	assert_non_null(h);
	memcpy(h, b, len);
	rc = gv_vhu_parse_reply(h, len, e, r, why);
	if (rc == 0 && r->cfg_data != NULL) /* point back into b */
		r->cfg_data = b + (r->cfg_data - h);
	free(h);
	return rc;
}

static void test_codec_parse(void **state)
{
	uint8_t b[GV_VHU_MSG_MAX + 16];
	struct gv_vhu_expect u = { GV_VHU_GET_FEATURES, GV_VHU_PL_U64, 0, 0 };
	struct gv_vhu_expect st = { GV_VHU_GET_VRING_BASE, GV_VHU_PL_STATE, 0, 0 };
	struct gv_vhu_expect cf = { GV_VHU_GET_CONFIG, GV_VHU_PL_CONFIG, 4, 6 };
	struct gv_vhu_reply r;
	const char *why;
	uint32_t ps;
	size_t n, i;

	(void)state;
	/* good ones */
	n = mk_reply(b, GV_VHU_GET_FEATURES, RFLAGS, 8);
	put64(b + 12, 0x42);
	assert_int_equal(parse_exact(b, n, &u, &r, &why), 0);
	assert_true(r.u64 == 0x42);
	n = mk_reply(b, GV_VHU_GET_VRING_BASE, RFLAGS | GV_VHU_FLAG_NEED_REPLY, 8);
	put32(b + 12, 5);
	put32(b + 16, 77);
	assert_int_equal(parse_exact(b, n, &st, &r, &why), 0);
	assert_int_equal(r.index, 5);
	assert_int_equal(r.num, 77);
	n = mk_reply(b, GV_VHU_GET_CONFIG, RFLAGS, 18);
	put32(b + 12, 4);
	put32(b + 16, 6);
	put32(b + 20, 0);
	memcpy(b + 24, "abcdef", 6);
	assert_int_equal(parse_exact(b, n, &cf, &r, &why), 0);
	assert_memory_equal(r.cfg_data, "abcdef", 6);

	/* header checks */
	for (i = 0; i < 12; i++) {
		assert_int_equal(gv_vhu_check_reply_hdr(b, i, &u, &ps, &why), -EPROTO);
		assert_string_equal(why, "truncated header");
	}
	for (i = 0; i < 4; i++) {
		n = mk_reply(b, GV_VHU_GET_FEATURES, (uint32_t)i | GV_VHU_FLAG_REPLY, 8);
		assert_int_equal(parse_exact(b, n, &u, &r, &why), i == 1 ? 0 : -EPROTO);
	}
	n = mk_reply(b, GV_VHU_GET_FEATURES, GV_VHU_VERSION, 8);
	assert_int_equal(parse_exact(b, n, &u, &r, &why), -EPROTO);
	assert_string_equal(why, "REPLY flag missing");
	n = mk_reply(b, GV_VHU_GET_PROTOCOL_FEATURES, RFLAGS, 8);
	assert_int_equal(parse_exact(b, n, &u, &r, &why), -EPROTO);
	assert_string_equal(why, "reply to another request");
	{
		static const uint32_t sizes[] = { 0, 1, 4, 7, 9, 16, 40, 264, 268, 4096, 0x7fffffff, 0xffffffff };

		for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
			n = mk_reply(b, GV_VHU_GET_FEATURES, RFLAGS, sizes[i]);
			assert_int_equal(gv_vhu_check_reply_hdr(b, 12, &u, &ps, &why), -EPROTO);
			assert_int_equal(parse_exact(b, n, &u, &r, &why), -EPROTO);
			n = mk_reply(b, GV_VHU_GET_VRING_BASE, RFLAGS, sizes[i]);
			assert_int_equal(parse_exact(b, n, &st, &r, &why), -EPROTO);
			n = mk_reply(b, GV_VHU_GET_CONFIG, RFLAGS, sizes[i]);
			assert_int_equal(parse_exact(b, n, &cf, &r, &why), sizes[i] == 0 ? -EIO : -EPROTO);
		}
	}
	/* truncated / trailing payload */
	n = mk_reply(b, GV_VHU_GET_FEATURES, RFLAGS, 8);
	for (i = 12; i < n; i++)
		assert_int_equal(parse_exact(b, i, &u, &r, &why), -EPROTO);
	assert_int_equal(parse_exact(b, n + 1, &u, &r, &why), -EPROTO);
	assert_string_equal(why, "trailing bytes after the payload");
	/* config echo must match */
	n = mk_reply(b, GV_VHU_GET_CONFIG, RFLAGS, 18);
	put32(b + 12, 4);
	put32(b + 16, 5);
	assert_int_equal(parse_exact(b, n, &cf, &r, &why), -EPROTO);
	put32(b + 12, 0);
	put32(b + 16, 6);
	assert_int_equal(parse_exact(b, n, &cf, &r, &why), -EPROTO);
	/* bad expectations */
	cf.cfg_size = 300;
	assert_int_equal(gv_vhu_check_reply_hdr(b, 12, &cf, &ps, &why), -EINVAL);
	assert_int_equal(gv_vhu_check_reply_hdr(b, 12, NULL, &ps, &why), -EINVAL);
	assert_int_equal(gv_vhu_parse_reply(b, n, &u, NULL, NULL), -EINVAL);
}

static uint64_t xs(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_codec_fuzz(void **state)
{
	static const uint32_t reqs[] = { GV_VHU_GET_FEATURES, GV_VHU_GET_VRING_BASE, GV_VHU_GET_CONFIG };
	uint8_t b[GV_VHU_MSG_MAX + 32];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned long ok = 0;
	int it;

	(void)state;
	for (it = 0; it < 200000; it++) {
		uint64_t x = xs(&seed);
		struct gv_vhu_expect e = { reqs[x % 3], (enum gv_vhu_payload)(x % 3),
					   (uint32_t)(x >> 8) % 8, (uint32_t)(x >> 16) % 300 };
		size_t len, i;
		struct gv_vhu_reply r;
		const char *why = NULL;
		int rc;

		if (x & (1ull << 40)) { /* mutate a plausible reply */
			uint32_t sz = e.kind == GV_VHU_PL_CONFIG ? 12 + e.cfg_size % 257 : 8;

			len = mk_reply(b, e.request, RFLAGS, sz);
			put32(b + 12, e.cfg_offset);
			put32(b + 16, e.cfg_size);
			for (i = 0; i < 1 + (x >> 48) % 4; i++)
				b[xs(&seed) % len] ^= (uint8_t)(1u << (xs(&seed) % 8));
			if ((x >> 52) & 1)
				len = xs(&seed) % (len + 8);
		} else {
			len = xs(&seed) % sizeof(b);
			for (i = 0; i < len; i++)
				b[i] = (uint8_t)xs(&seed);
		}
		rc = parse_exact(b, len, &e, &r, &why);
		assert_true(rc == 0 || rc == -EPROTO || rc == -EIO || rc == -EINVAL);
		assert_true(rc == 0 || why != NULL);
		if (rc == 0) {
			ok++;
			assert_int_equal(len, 12 + r.size);
			assert_int_equal(r.request, e.request);
			if (e.kind == GV_VHU_PL_CONFIG)
				assert_int_equal(r.size, 12 + e.cfg_size);
		}
	}
	print_message("fuzz: %lu of 200000 parsed as valid\n", ok);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_codec_encode),
		cmocka_unit_test(test_codec_parse),
		cmocka_unit_test(test_codec_fuzz),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
