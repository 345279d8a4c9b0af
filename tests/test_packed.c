/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_packed.c - driver end + device end on the packed layout, both
 * barrier modes:
 *   sizes          gv_ring_size / gv_vq_init for 2..32768 including
 *                  non-powers of two (3, 100, 1000, ...), -EINVAL for 0,
 *                  >32768, misaligned ring; ring zeroed; area placement
 *   layout         raw descriptor flags (AVAIL/USED vs wrap counters,
 *                  NEXT/WRITE, buffer id) written by both ends, across a
 *                  wrap; nothing visible before flush
 *   wrap           every power-of-two size 2..32768 and odd sizes, >= 70000
 *                  buffers, wrap counters flipping many times
 *   generic cases  chains, errors, burst, indirect, random out-of-order model,
 *                  in-order, avail_count, detach/reset (gv_test_cases.h,
 *                  gv_test_model.h)
 */
#include "gv_test_cases.h"
#include "gv_test_model.h"

static void t_sizes(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint32_t good[] = { 2, 3, 4, 5, 7, 8, 16, 100, 255, 256, 1000, 1024, 4095, 8192,
				  30000, 32767, 32768 };
	const uint32_t bad[] = { 0, 32769, 40000, 65535, 65536, 1u << 20 };
	size_t maxring = gv_ring_size(GV_LAYOUT_PACKED, 32768, 0);
	size_t maxstate = gv_vq_state_size(GV_LAYOUT_PACKED, 32768);
	uint8_t *ring, *vqmem;
	struct gv_vq *vq;
	struct gv_vq_config cfg;
	struct gv_ring_addrs a;

	assert_true(maxring >= 16u * 32768 + 8);
	assert_true(maxstate > 0);
	ring = gvt_alloc(4096, maxring + 4096);
	vqmem = gvt_alloc(64, maxstate);
	vq = (struct gv_vq *)vqmem;

	memset(&cfg, 0, sizeof(cfg));
	cfg.layout = GV_LAYOUT_PACKED;
	cfg.barrier = p->barrier;
	cfg.ring = ring;
	cfg.ring_iova = gvt_iova(ring);

	for (size_t gi = 0; gi < sizeof(good) / sizeof(good[0]); gi++) {
		uint32_t num = good[gi];
		size_t rs = gv_ring_size(GV_LAYOUT_PACKED, num, 0);
		uint64_t base = cfg.ring_iova, end = base + rs;

		assert_true(rs >= 16u * num + 8);
		assert_true(rs <= maxring);
		assert_true(gv_vq_state_size(GV_LAYOUT_PACKED, num) <= maxstate);
		memset(ring, 0xff, rs);
		cfg.num = num;
		if (gv_vq_init(vq, &cfg) != 0)
			fail_msg("packed num %u refused", num);
		for (size_t i = 0; i < rs; i++)
			if (ring[i])
				fail_msg("num %u: ring byte %zu not zeroed", num, i);
		gv_vq_addrs(vq, &a);
		assert_int_equal(a.desc % 16, 0);
		assert_int_equal(a.driver % 4, 0);
		assert_int_equal(a.device % 4, 0);
		assert_true(a.desc >= base && a.desc + 16u * num <= end);
		assert_true(a.driver >= base && a.driver + 4 <= end);
		assert_true(a.device >= base && a.device + 4 <= end);
		assert_true(a.desc + 16u * num <= a.driver || a.driver + 4 <= a.desc);
		assert_true(a.desc + 16u * num <= a.device || a.device + 4 <= a.desc);
		assert_true(a.driver + 4 <= a.device || a.device + 4 <= a.driver);
		assert_int_equal(gv_vq_num(vq), num);
		assert_int_equal(gv_vq_layout(vq), GV_LAYOUT_PACKED);
		assert_int_equal(gv_vq_num_free(vq), num);
		assert_int_equal(gv_vq_inflight(vq), 0);
		assert_int_equal(gv_vq_used_pending(vq), 0);
		assert_false(gv_vq_broken(vq));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.num = bad[i];
		if (gv_vq_init(vq, &cfg) != -EINVAL)
			fail_msg("packed num %u accepted", bad[i]);
	}
	cfg.num = 100;
	cfg.ring = ring + 8;
	cfg.ring_iova += 8;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.ring = ring;
	cfg.ring_iova -= 8;
	cfg.layout = (enum gv_layout)7;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.layout = GV_LAYOUT_PACKED;
	assert_int_equal(gv_vq_init(vq, &cfg), 0);
	assert_int_equal(gv_vq_num(vq), 100);

	free(ring);
	free(vqmem);
}

static bool avail_in_lap(uint16_t flags, bool wrap)
{
	return !!(flags & GV_DESC_F_AVAIL) == wrap && !!(flags & GV_DESC_F_USED) != wrap;
}

/* Raw descriptor contents, both ends, across one wrap of a ring of 4. */
static void t_layout(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 1024);
	struct gv_seg segs[3] = { gvt_seg(buf, 11), gvt_seg(buf + 64, 22), gvt_seg(buf + 128, 33) };
	struct gv_packed_desc *d;
	const uint16_t fl_mask = GV_DESC_F_NEXT | GV_DESC_F_WRITE | GV_DESC_F_INDIRECT;
	uint16_t ida, idb, idc;
	void *ck[4];
	uint32_t lens[4];

	gvt_q_setup(&q, p, 4, 0, 0);
	d = gvt_packed_desc(&q);

	/* Chain A: 1 out + 2 in at slots 0..2 (wrap 1). */
	assert_int_equal(gv_vq_add(q.vq, segs, 1, 2, GVT_COOKIE(1), false), 0);
	assert_false(avail_in_lap(d[0].flags, true)); /* head not published yet */
	gv_vq_flush(q.vq);
	for (int i = 0; i < 3; i++) {
		assert_true(avail_in_lap(d[i].flags, true));
		assert_int_equal(d[i].addr, segs[i].addr);
		assert_int_equal(d[i].len, segs[i].len);
	}
	assert_int_equal(d[0].flags & fl_mask, GV_DESC_F_NEXT);
	assert_int_equal(d[1].flags & fl_mask, GV_DESC_F_NEXT | GV_DESC_F_WRITE);
	assert_int_equal(d[2].flags & fl_mask, GV_DESC_F_WRITE);
	assert_false(avail_in_lap(d[3].flags, true));
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	ida = c->id;
	assert_true(ida < 4);
	assert_int_equal(d[2].id, ida); /* buffer id in the last descriptor */
	assert_int_equal(c->ndesc, 3);
	gv_vqd_push(q.vqd, ida, 3, 5);
	assert_true(avail_in_lap(d[0].flags, true)); /* staged only */
	gv_vqd_publish(q.vqd);
	assert_int_equal(d[0].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_AVAIL | GV_DESC_F_USED);
	assert_int_equal(d[0].id, ida);
	assert_int_equal(d[0].len, 5);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 4), 1);
	assert_ptr_equal(ck[0], GVT_COOKIE(1));
	assert_int_equal(lens[0], 5);

	/* B at slot 3 (wrap 1), C at slot 0 (wrap 0). */
	assert_int_equal(gvt_post1(&q, buf + 256, 44, true, GVT_COOKIE(2)), 0);
	assert_int_equal(gvt_post1(&q, buf + 320, 55, false, GVT_COOKIE(3)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(d[3].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_AVAIL);
	assert_int_equal(d[3].flags & fl_mask, GV_DESC_F_WRITE);
	assert_int_equal(d[3].len, 44);
	assert_int_equal(d[0].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_USED);
	assert_int_equal(d[0].flags & fl_mask, 0);
	assert_int_equal(d[0].len, 55);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 4), 2);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	idb = c->id;
	assert_int_equal(c->seg[0].addr, gvt_iova(buf + 256));
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	idc = c->id;
	assert_int_equal(c->seg[0].addr, gvt_iova(buf + 320));
	assert_true(idb != idc);
	/* Device returns C first: used slot 3 (wrap 1), then B at slot 0 (wrap 0). */
	gv_vqd_push(q.vqd, idc, 1, 0);
	gv_vqd_push(q.vqd, idb, 1, 40);
	gv_vqd_publish(q.vqd);
	assert_int_equal(d[3].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_AVAIL | GV_DESC_F_USED);
	assert_int_equal(d[3].id, idc);
	assert_int_equal(d[0].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), 0);
	assert_int_equal(d[0].id, idb);
	assert_int_equal(d[0].len, 40);
	assert_int_equal(gv_vq_used_pending(q.vq), 2);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 4), 2);
	assert_ptr_equal(ck[0], GVT_COOKIE(3));
	assert_int_equal(lens[0], 0);
	assert_ptr_equal(ck[1], GVT_COOKIE(2));
	assert_int_equal(lens[1], 40);
	assert_int_equal(gv_vq_num_free(q.vq), 4);

	/* A full lap at wrap 0: slots 1..3 and 0 again with the new counter. */
	for (int i = 0; i < 4; i++)
		assert_int_equal(gvt_post1(&q, buf + 64 * i, 8, true, GVT_COOKIE(10 + i)), 0);
	gv_vq_flush(q.vq);
	for (int i = 1; i < 4; i++)
		assert_int_equal(d[i].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_USED);
	assert_int_equal(d[0].flags & (GV_DESC_F_AVAIL | GV_DESC_F_USED), GV_DESC_F_AVAIL);
	assert_int_equal(gvt_dev_echo(&q, 8), 4);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 4), 4);
	for (int i = 0; i < 4; i++) {
		assert_ptr_equal(ck[i], GVT_COOKIE(10 + i));
		assert_int_equal(lens[i], 8);
	}
	assert_false(gv_vq_broken(q.vq));

	gvt_q_free(&q);
	free(buf);
	free(c);
}

static void t_wrap(void **state)
{
	const uint32_t sizes[] = { 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192,
				   16384, 32768 };

	tc_wrap_sizes(gvt_param(state), sizes, sizeof(sizes) / sizeof(sizes[0]), 0);
}

static void t_wrap_odd(void **state)
{
	const uint32_t sizes[] = { 3, 5, 100, 1000, 32767 };

	tc_wrap_sizes(gvt_param(state), sizes, sizeof(sizes) / sizeof(sizes[0]), 0);
}

/* Multi-descriptor chains on a non-power-of-two ring, out of order. */
static void t_model_odd(void **state)
{
	tc_model_run(gvt_param(state), 7, 0, 30000, 0xabcdef);
	tc_model_run(gvt_param(state), 100, GV_VQ_F_INDIRECT, 30000, 0x13579);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_PACKED(t_sizes),
		GVT_TEST_PACKED(t_layout),
		GVT_TEST_PACKED(t_wrap),
		GVT_TEST_PACKED(t_wrap_odd),
		GVT_TEST_PACKED(tc_chain),
		GVT_TEST_PACKED(tc_chain_errors),
		GVT_TEST_PACKED(tc_burst),
		GVT_TEST_PACKED(tc_indirect),
		GVT_TEST_PACKED(tc_model),
		GVT_TEST_PACKED(t_model_odd),
		GVT_TEST_PACKED(tc_in_order),
		GVT_TEST_PACKED(tc_avail_count),
		GVT_TEST_PACKED(tc_detach_reset),
	};

	return GVT_RUN(tests);
}
