/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_split.c - driver end + device end on the split layout, both barrier
 * modes:
 *   sizes          gv_ring_size / gv_vq_init for 2..32768 (powers of two),
 *                  -EINVAL for 0, non-powers of two, >32768, bad align,
 *                  misaligned ring, bad layout; ring zeroed by init;
 *                  area placement (legacy 4096 layout exactly)
 *   layout         raw avail ring / descriptor table / used ring contents
 *   wrap           every size 2..32768 (modern and legacy alignment),
 *                  >= 70000 buffers so the 16-bit indices wrap
 *   avail_laps     with and without IN_ORDER, a device returning buffers
 *                  in order gets the same ids at each avail entry lap
 *                  after lap, and posting rewrites only entries that do
 *                  not hold their id already (scribbled ones included)
 *   generic cases  chains, errors, burst, indirect, random out-of-order model,
 *                  in-order, avail_count, detach/reset (gv_test_cases.h,
 *                  gv_test_model.h)
 */
#include "gv_test_cases.h"
#include "gv_test_model.h"

static void t_sizes(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	const uint32_t aligns[] = { 0, 4, 4096 };
	const uint32_t bad[] = { 0, 3, 6, 12, 100, 1000, 32767, 32769, 49152, 65536, 1u << 20 };
	size_t maxring = gv_ring_size(GV_LAYOUT_SPLIT, 32768, 4096);
	size_t maxstate = gv_vq_state_size(GV_LAYOUT_SPLIT, 32768);
	uint8_t *ring, *vqmem;
	struct gv_vq *vq;
	struct gv_vq_config cfg;
	struct gv_ring_addrs a;

	assert_true(maxring >= gv_align_up(16u * 32768 + 6 + 2u * 32768, 4096) + 6 + 8u * 32768);
	assert_true(maxstate > 0);
	ring = gvt_alloc(4096, maxring + 4096);
	vqmem = gvt_alloc(64, maxstate);
	vq = (struct gv_vq *)vqmem;

	memset(&cfg, 0, sizeof(cfg));
	cfg.layout = GV_LAYOUT_SPLIT;
	cfg.barrier = p->barrier;
	cfg.ring = ring;
	cfg.ring_iova = gvt_iova(ring);

	for (uint32_t num = 2; num <= 32768; num <<= 1) {
		for (size_t ai = 0; ai < sizeof(aligns) / sizeof(aligns[0]); ai++) {
			uint32_t align = aligns[ai], al = align ? align : 4;
			size_t rs = gv_ring_size(GV_LAYOUT_SPLIT, num, align);
			uint64_t base = cfg.ring_iova, end;

			assert_true(rs >= 16u * num + 6 + 2u * num + 6 + 8u * num);
			assert_true(rs <= maxring);
			assert_true(gv_vq_state_size(GV_LAYOUT_SPLIT, num) <= maxstate);
			memset(ring, 0xff, rs);
			cfg.num = num;
			cfg.align = align;
			assert_int_equal(gv_vq_init(vq, &cfg), 0);
			for (size_t i = 0; i < rs; i++)
				if (ring[i])
					fail_msg("num %u align %u: ring byte %zu not zeroed", num, align, i);
			gv_vq_addrs(vq, &a);
			end = base + rs;
			assert_int_equal(a.desc % 16, 0);
			assert_int_equal(a.driver % 2, 0);
			assert_int_equal(a.device % al, 0);
			assert_true(a.desc >= base && a.desc + 16u * num <= end);
			assert_true(a.driver >= base && a.driver + gv_split_avail_bytes(num) <= end);
			assert_true(a.device >= base && a.device + gv_split_used_bytes(num) <= end);
			/* The three areas do not overlap. */
			assert_true(a.desc + 16u * num <= a.driver || a.driver + gv_split_avail_bytes(num) <= a.desc);
			assert_true(a.desc + 16u * num <= a.device || a.device + gv_split_used_bytes(num) <= a.desc);
			assert_true(a.driver + gv_split_avail_bytes(num) <= a.device ||
				    a.device + gv_split_used_bytes(num) <= a.driver);
			if (align == 4096) {
				/* Legacy: the device derives the areas from the base. */
				assert_int_equal(a.desc, base);
				assert_int_equal(a.driver, base + 16u * num);
				assert_int_equal(a.device, base + gv_align_up(16u * num + 6 + 2u * num, 4096));
			}
			assert_int_equal(gv_vq_num(vq), num);
			assert_int_equal(gv_vq_layout(vq), GV_LAYOUT_SPLIT);
			assert_int_equal(gv_vq_num_free(vq), num);
			assert_int_equal(gv_vq_inflight(vq), 0);
			assert_false(gv_vq_broken(vq));
			assert_int_equal(gv_vq_used_pending(vq), 0);
		}
	}

	cfg.align = 0;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cfg.num = bad[i];
		if (gv_vq_init(vq, &cfg) != -EINVAL)
			fail_msg("split num %u accepted", bad[i]);
	}
	cfg.num = 256;
	cfg.align = 3;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.align = 100;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.align = 0;
	cfg.ring = ring + 8;
	cfg.ring_iova += 8;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.ring = ring;
	cfg.ring_iova -= 8;
	cfg.layout = (enum gv_layout)7;
	assert_int_equal(gv_vq_init(vq, &cfg), -EINVAL);
	cfg.layout = GV_LAYOUT_SPLIT;
	assert_int_equal(gv_vq_init(vq, &cfg), 0);
	assert_int_equal(gv_vq_num(vq), 256);

	free(ring);
	free(vqmem);
}

/* Raw contents of the split rings, written by the driver and the device. */
static void t_layout(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 1024);
	struct gv_seg segs[3] = { gvt_seg(buf, 11), gvt_seg(buf + 64, 22), gvt_seg(buf + 128, 33) };
	struct gv_split_avail *av;
	struct gv_split_used *u;
	struct gv_split_desc *d;
	uint16_t head, n1, n2, head2;
	void *ck[4];
	uint32_t lens[4];

	gvt_q_setup(&q, p, 8, 0, 0);
	av = gvt_split_avail(&q);
	u = gvt_split_used(&q);
	d = gvt_split_desc(&q);

	assert_int_equal(gv_vq_add(q.vq, segs, 2, 1, GVT_COOKIE(1), false), 0);
	assert_int_equal(av->idx, 0); /* staged only */
	gv_vq_flush(q.vq);
	assert_int_equal(av->idx, 1);
	head = av->ring[0];
	assert_true(head < 8);
	assert_int_equal(d[head].addr, segs[0].addr);
	assert_int_equal(d[head].len, 11);
	assert_int_equal(d[head].flags, GV_DESC_F_NEXT);
	n1 = d[head].next;
	assert_true(n1 < 8 && n1 != head);
	assert_int_equal(d[n1].addr, segs[1].addr);
	assert_int_equal(d[n1].len, 22);
	assert_int_equal(d[n1].flags, GV_DESC_F_NEXT);
	n2 = d[n1].next;
	assert_true(n2 < 8 && n2 != head && n2 != n1);
	assert_int_equal(d[n2].addr, segs[2].addr);
	assert_int_equal(d[n2].len, 33);
	assert_int_equal(d[n2].flags, GV_DESC_F_WRITE);

	assert_int_equal(gvt_post1(&q, buf + 256, 44, true, GVT_COOKIE(2)), 0);
	assert_int_equal(av->idx, 1);
	gv_vq_flush(q.vq);
	assert_int_equal(av->idx, 2);
	head2 = av->ring[1];
	assert_true(head2 != head && head2 != n1 && head2 != n2 && head2 < 8);
	assert_int_equal(d[head2].flags, GV_DESC_F_WRITE);
	assert_int_equal(d[head2].len, 44);

	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->id, head);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->id, head2);
	gv_vqd_push(q.vqd, head2, 1, 40);
	assert_int_equal(u->idx, 0); /* staged only */
	gv_vqd_push(q.vqd, head, 3, 30);
	gv_vqd_publish(q.vqd);
	assert_int_equal(u->idx, 2);
	assert_int_equal(u->ring[0].id, head2);
	assert_int_equal(u->ring[0].len, 40);
	assert_int_equal(u->ring[1].id, head);
	assert_int_equal(u->ring[1].len, 30);
	assert_int_equal(gv_vq_used_pending(q.vq), 2);
	assert_int_equal(gv_vq_get_used(q.vq, ck, lens, 4), 2);
	assert_ptr_equal(ck[0], GVT_COOKIE(2));
	assert_int_equal(lens[0], 40);
	assert_ptr_equal(ck[1], GVT_COOKIE(1));
	assert_int_equal(lens[1], 30);

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

static void t_wrap_legacy(void **state)
{
	const uint32_t sizes[] = { 2, 256, 32768 };

	tc_wrap_sizes(gvt_param(state), sizes, sizeof(sizes) / sizeof(sizes[0]), 4096);
}

/*
 * A device that returns buffers in order (always with IN_ORDER, usually
 * without): from the second lap on an avail entry already holds the id
 * posted there (the free list hands ids back in the order they were
 * returned), and posting leaves it alone; one that does not (here: a
 * device scribbled over two) is written again, so the device finds the
 * right chains on the next lap.
 */
static void avail_laps(void **state, uint32_t flags)
{
	enum { N = 8 };
	static uint8_t buf[N][64];
	struct gvt_q q;
	struct gv_split_avail *av;
	struct gv_chain c;
	struct gv_seg s[N];
	void *cks[N], *ck[N];
	uint32_t lens[N];

	gvt_q_setup(&q, gvt_param(state), N, flags, 0);
	av = gvt_split_avail(&q);
	for (uint32_t lap = 0; lap < 3; lap++) {
		for (uint32_t i = 0; i < N; i++) {
			s[i] = gvt_seg(buf[i], 64);
			cks[i] = GVT_COOKIE(lap * N + i);
		}
		assert_int_equal(gv_vq_add_burst(q.vq, s, cks, N, true), N);
		gv_vq_flush(q.vq);
		for (uint32_t i = 0; i < N; i++) {
			assert_int_equal(av->ring[i], i);
			assert_int_equal(gv_vqd_take(q.vqd, &c), 1);
			assert_int_equal(c.id, i);
			assert_int_equal(c.seg[0].addr, gvt_iova(buf[i]));
			gv_vqd_push(q.vqd, c.id, c.ndesc, 10);
		}
		gv_vqd_publish(q.vqd);
		assert_int_equal(gv_vq_get_used(q.vq, ck, lens, N), N);
		for (uint32_t i = 0; i < N; i++)
			assert_ptr_equal(ck[i], cks[i]);
		/* The device writes where it must not: two entries for the next lap. */
		av->ring[3] = 5;
		av->ring[6] = 0xffff;
	}
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
}

static void t_avail_laps(void **state)
{
	avail_laps(state, GV_VQ_F_IN_ORDER);
	avail_laps(state, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		GVT_TEST_SPLIT(t_sizes),
		GVT_TEST_SPLIT(t_layout),
		GVT_TEST_SPLIT(t_wrap),
		GVT_TEST_SPLIT(t_wrap_legacy),
		GVT_TEST_SPLIT(tc_chain),
		GVT_TEST_SPLIT(tc_chain_errors),
		GVT_TEST_SPLIT(tc_burst),
		GVT_TEST_SPLIT(tc_indirect),
		GVT_TEST_SPLIT(tc_model),
		GVT_TEST_SPLIT(tc_in_order),
		GVT_TEST_SPLIT(t_avail_laps),
		GVT_TEST_SPLIT(tc_avail_count),
		GVT_TEST_SPLIT(tc_detach_reset),
	};

	return GVT_RUN(tests);
}
