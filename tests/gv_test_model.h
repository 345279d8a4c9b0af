/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_model.h - more layout-generic test bodies (see gv_test_cases.h),
 * included by test_split.c and test_packed.c:
 *
 *   tc_model         random model: out-of-order completions, mixed chain
 *                    shapes (direct + indirect), flush visibility,
 *                    num_free / inflight / used_pending / avail_count
 *   tc_in_order      IN_ORDER batches, reclaim_in_order, get_used in order,
 *                    split ring-order descriptors and batch used entry
 *   tc_avail_count   counts chains not descriptors, capped, not consuming
 *   tc_detach_reset  detach returns each outstanding cookie once; reset
 */
#ifndef GV_TEST_MODEL_H
#define GV_TEST_MODEL_H

#include "gv_test_cases.h"

/* ------------------------------------------------------------ model ------ */

#define MODEL_SLOT 512u /* bytes of buffer per model slot */
#define MODEL_SEGMAX 6

struct model_chain {
	uint64_t cookie;
	uint16_t n_out, n_in, ndesc;
	uint32_t len[MODEL_SEGMAX];
	uint32_t in_len;
	bool busy;
};

struct model_ret {
	uint64_t cookie;
	uint32_t len;
};

/*
 * Random operations against a model: post random chain shapes, flush,
 * take, return a random subset in random order, publish, reap.
 */
static void tc_model_run(const struct gvt_param *p, uint32_t num, uint32_t features,
			 uint32_t steps, uint64_t seed)
{
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint32_t nslots = num;
	uint8_t *mem = gvt_alloc(64, (size_t)nslots * MODEL_SLOT);
	struct model_chain *mc = calloc(nslots, sizeof(*mc));
	/* FIFOs of slots: staged, published (not taken); taken list; returns. */
	uint32_t *staged = calloc(nslots, 4), *pub = calloc(nslots, 4), *taken = calloc(nslots, 4);
	uint16_t *tid = calloc(nslots, 2);
	struct model_ret *rets = calloc(nslots, sizeof(*rets));
	uint32_t *slot_of_ret = calloc(nslots, 4);
	uint32_t nstaged = 0, npub = 0, ntaken = 0, nret = 0, nvisible = 0;
	uint32_t free_desc = num, inflight = 0;
	void **ck = calloc(num + 1, sizeof(void *));
	uint32_t *lens = calloc(num + 1, 4);
	uint64_t cookie = 1000;
	uint16_t maxi = (features & GV_VQ_F_INDIRECT) ? MODEL_SEGMAX : 0;

	assert_true(mc && staged && pub && taken && tid && rets && slot_of_ret && ck && lens);
	gvt_q_setup(&q, p, num, features, maxi);

	for (uint32_t step = 0; step < steps; step++) {
		uint32_t op = (uint32_t)(gvt_rand(&seed) % 100);

		if (op < 35) { /* post */
			uint32_t s;
			struct gv_seg segs[MODEL_SEGMAX];
			struct model_chain *m;
			bool ind;
			int rc;

			for (s = 0; s < nslots && mc[s].busy; s++)
				;
			if (s == nslots)
				continue;
			m = &mc[s];
			m->n_out = (uint16_t)(gvt_rand(&seed) % 3);
			m->n_in = (uint16_t)(gvt_rand(&seed) % 4);
			if (m->n_out + m->n_in == 0)
				m->n_in = 1;
			m->in_len = 0;
			for (int j = 0; j < m->n_out + m->n_in; j++) {
				m->len[j] = 1 + (uint32_t)(gvt_rand(&seed) % 80);
				segs[j] = gvt_seg(mem + (size_t)s * MODEL_SLOT + j * 80, m->len[j]);
				if (j >= m->n_out)
					m->in_len += m->len[j];
			}
			ind = maxi && m->n_out + m->n_in >= 2 && (gvt_rand(&seed) & 1);
			m->ndesc = ind ? 1 : (uint16_t)(m->n_out + m->n_in);
			m->cookie = cookie++;
			rc = gv_vq_add(q.vq, segs, m->n_out, m->n_in, GVT_COOKIE(m->cookie), ind);
			if (m->ndesc > free_desc) {
				assert_int_equal(rc, -ENOSPC);
				continue;
			}
			assert_int_equal(rc, 0);
			m->busy = true;
			free_desc -= m->ndesc;
			inflight++;
			staged[nstaged++] = s;
		} else if (op < 45) { /* flush */
			if (gvt_rand(&seed) & 1)
				gv_vq_flush(q.vq);
			else
				(void)gv_vq_kick_prepare(q.vq);
			memcpy(pub + npub, staged, nstaged * 4);
			npub += nstaged;
			nstaged = 0;
		} else if (op < 65) { /* device takes some, in order */
			uint32_t k = (uint32_t)(gvt_rand(&seed) % (npub + 2));

			assert_int_equal(gv_vqd_avail_count(q.vqd, num), npub);
			for (uint32_t i = 0; i < k; i++) {
				int rc = gv_vqd_take(q.vqd, c);
				struct model_chain *m;
				uint32_t s;

				if (npub == 0) {
					assert_int_equal(rc, 0);
					break;
				}
				assert_int_equal(rc, 1);
				s = pub[0];
				memmove(pub, pub + 1, (npub - 1) * 4);
				npub--;
				m = &mc[s];
				assert_int_equal(c->seg[0].addr, gvt_iova(mem + (size_t)s * MODEL_SLOT));
				assert_int_equal(c->nseg, m->n_out + m->n_in);
				assert_int_equal(c->n_out, m->n_out);
				assert_int_equal(c->ndesc, m->ndesc);
				assert_int_equal(c->in_len, m->in_len);
				for (int j = 0; j < c->nseg; j++) {
					assert_int_equal(c->seg[j].len, m->len[j]);
					assert_int_equal(c->seg[j].write, j >= m->n_out);
				}
				assert_true(c->id < num);
				tid[ntaken] = c->id;
				taken[ntaken++] = s;
			}
		} else if (op < 80) { /* device returns a random subset */
			uint32_t k = ntaken ? (uint32_t)(gvt_rand(&seed) % (ntaken + 1)) : 0;

			for (uint32_t i = 0; i < k; i++) {
				uint32_t j = (uint32_t)(gvt_rand(&seed) % ntaken);
				uint32_t s = taken[j];
				uint32_t len = mc[s].in_len ? (uint32_t)(gvt_rand(&seed) % (mc[s].in_len + 1)) : 0;

				gv_vqd_push(q.vqd, tid[j], mc[s].ndesc, len);
				rets[nret].cookie = mc[s].cookie;
				rets[nret].len = len;
				slot_of_ret[nret++] = s;
				taken[j] = taken[ntaken - 1];
				tid[j] = tid[ntaken - 1];
				ntaken--;
			}
			if (gvt_rand(&seed) & 1) {
				gv_vqd_publish(q.vqd);
				nvisible = nret;
			}
		} else { /* driver reaps */
			uint32_t want = 1 + (uint32_t)(gvt_rand(&seed) % (num + 1));
			uint32_t expect = want < nvisible ? want : nvisible;
			uint32_t got;

			assert_int_equal(gv_vq_used_pending(q.vq), nvisible);
			got = gv_vq_get_used(q.vq, ck, lens, want);
			if (p->layout == GV_LAYOUT_SPLIT) { /* a split get publishes first */
				memcpy(pub + npub, staged, nstaged * 4);
				npub += nstaged;
				nstaged = 0;
			}
			assert_int_equal(got, expect);
			for (uint32_t i = 0; i < got; i++) {
				struct model_chain *m = &mc[slot_of_ret[i]];

				assert_ptr_equal(ck[i], GVT_COOKIE(rets[i].cookie));
				assert_int_equal(lens[i], rets[i].len);
				m->busy = false;
				free_desc += m->ndesc;
				inflight--;
			}
			memmove(rets, rets + got, (nret - got) * sizeof(*rets));
			memmove(slot_of_ret, slot_of_ret + got, (nret - got) * 4);
			nret -= got;
			nvisible -= got;
		}
		assert_int_equal(gv_vq_num_free(q.vq), free_desc);
		assert_int_equal(gv_vq_inflight(q.vq), inflight);
	}
	assert_false(gv_vq_broken(q.vq));
	assert_false(gv_vqd_broken(q.vqd));

	gvt_q_free(&q);
	free(mem);
	free(mc);
	free(staged);
	free(pub);
	free(taken);
	free(tid);
	free(rets);
	free(slot_of_ret);
	free(ck);
	free(lens);
	free(c);
}

static void tc_model(void **state)
{
	const struct gvt_param *p = gvt_param(state);

	tc_model_run(p, 8, 0, 40000, 0x1234);
	tc_model_run(p, 32, 0, 40000, 0x9876);
	tc_model_run(p, 16, GV_VQ_F_INDIRECT, 40000, 0x5555);
	tc_model_run(p, 16, GV_VQ_F_EVENT_IDX, 20000, 0x7777);
}

/* ---------------------------------------------------------- in order ----- */

static void tc_in_order(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	enum { NUM = 16 };
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 4096);
	struct gv_seg segs[4];
	void *ck[NUM + 1];
	uint32_t lens[NUM + 1];
	uint64_t seq = 0, reaped = 0;
	uint32_t desc_pos = 0;

	for (int j = 0; j < 4; j++)
		segs[j] = gvt_seg(buf + 256 * j, 64);
	gvt_q_setup(&q, p, NUM, GV_VQ_F_IN_ORDER, 0);

	/* Enough rounds for the 16-bit indices to wrap. */
	for (uint32_t round = 0; round < 30000; round++) {
		uint32_t nch = 1 + round % 5, ndesc_total = 0, first_batch;
		uint16_t used_before;
		uint16_t last_id = 0, ids[5], nds[5];

		for (uint32_t i = 0; i < nch; i++) {
			uint16_t n = (uint16_t)(1 + (round + i) % 3);

			assert_int_equal(gv_vq_add(q.vq, segs, 1, (uint16_t)(n - 1),
						   GVT_COOKIE(seq + i), false), 0);
		}
		gv_vq_flush(q.vq);
		for (uint32_t i = 0; i < nch; i++) {
			assert_int_equal(gv_vqd_take(q.vqd, c), 1);
			assert_int_equal(c->ndesc, 1 + (round + i) % 3);
			/*
			 * Split IN_ORDER (virtio 1.2 2.7.5): descriptors used in
			 * ring order, next = x + 1 (0 after the last entry).
			 */
			if (p->layout == GV_LAYOUT_SPLIT) {
				const struct gv_split_desc *d = gvt_split_desc(&q);

				assert_int_equal(c->id, desc_pos % NUM);
				for (uint32_t j = 0; j + 1 < c->ndesc; j++)
					assert_int_equal(d[(c->id + j) % NUM].next, (c->id + j + 1) % NUM);
			}
			desc_pos += c->ndesc;
			ids[i] = c->id;
			nds[i] = c->ndesc;
			ndesc_total += c->ndesc;
		}
		if (round % 3 == 2) {
			/* Returned one by one, reaped with get_used. */
			/* (a one-descriptor chain has no writable bytes: len 0) */
			for (uint32_t i = 0; i < nch; i++)
				gv_vqd_push(q.vqd, ids[i], nds[i],
					    nds[i] > 1 ? (uint32_t)(seq + i) % 64 : 0);
			gv_vqd_publish(q.vqd);
			assert_int_equal(gv_vq_get_used(q.vq, ck, lens, NUM), nch);
			for (uint32_t i = 0; i < nch; i++) {
				assert_ptr_equal(ck[i], GVT_COOKIE(seq + i));
				assert_int_equal(lens[i], nds[i] > 1 ? (uint32_t)(seq + i) % 64 : 0);
			}
			reaped += nch;
		} else {
			/* Two batches (or one), one used entry each. */
			first_batch = (round % 3 == 1 && nch > 1) ? nch / 2 : nch;
			ndesc_total = 0;
			for (uint32_t i = 0; i < first_batch; i++)
				ndesc_total += nds[i];
			last_id = ids[first_batch - 1];
			used_before = p->layout == GV_LAYOUT_SPLIT ? gvt_split_used(&q)->idx : 0;
			gv_vqd_push_in_order_batch(q.vqd, last_id, 0, (uint16_t)first_batch, ndesc_total);
			gv_vqd_publish(q.vqd);
			if (p->layout == GV_LAYOUT_SPLIT) {
				/* One entry, for the last chain, at the last chain's slot. */
				const struct gv_split_used *u = gvt_split_used(&q);

				assert_int_equal(u->idx, (uint16_t)(used_before + first_batch));
				assert_int_equal(u->ring[(used_before + first_batch - 1) % NUM].id, last_id);
			}
			if (first_batch < nch) {
				uint32_t rest = 0;

				for (uint32_t i = first_batch; i < nch; i++)
					rest += nds[i];
				gv_vqd_push_in_order_batch(q.vqd, ids[nch - 1], 0,
							   (uint16_t)(nch - first_batch), rest);
				gv_vqd_publish(q.vqd);
			}
			/* Partial reclaim, then the rest. */
			uint32_t k1 = nch > 1 ? 1 + round % (nch - 1) : 1;

			assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, k1), k1);
			assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck + k1, NUM), nch - k1);
			for (uint32_t i = 0; i < nch; i++)
				assert_ptr_equal(ck[i], GVT_COOKIE(seq + i));
			reaped += nch;
		}
		assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, NUM), 0);
		assert_int_equal(gv_vq_num_free(q.vq), NUM);
		assert_int_equal(gv_vq_inflight(q.vq), 0);
		seq += nch;
	}
	assert_int_equal(reaped, seq);
	assert_false(gv_vq_broken(q.vq));

	/* A full ring returned as one batch of one entry. */
	for (uint32_t i = 0; i < NUM; i++)
		assert_int_equal(gvt_post1(&q, buf, 8, false, GVT_COOKIE(i)), 0);
	gv_vq_flush(q.vq);
	uint16_t last = 0;

	for (uint32_t i = 0; i < NUM; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		last = c->id;
	}
	gv_vqd_push_in_order_batch(q.vqd, last, 0, NUM, NUM);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_reclaim_in_order(q.vq, ck, NUM + 1), NUM);
	for (uint32_t i = 0; i < NUM; i++)
		assert_ptr_equal(ck[i], GVT_COOKIE(i));
	assert_int_equal(gv_vq_num_free(q.vq), NUM);
	assert_false(gv_vq_broken(q.vq));

	gvt_q_free(&q);
	free(buf);
	free(c);
}

/* ------------------------------------------------------- avail count ----- */

static void tc_avail_count(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	enum { NUM = 32 };
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 1024);
	struct gv_seg segs[3] = { gvt_seg(buf, 10), gvt_seg(buf + 64, 20), gvt_seg(buf + 128, 30) };
	void *ck[NUM];

	gvt_q_setup(&q, p, NUM, 0, 0);
	assert_int_equal(gv_vqd_avail_count(q.vqd, NUM), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(gv_vq_add(q.vq, segs, 1, 2, GVT_COOKIE(i), false), 0);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 5);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 5), 5);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 3), 3);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 1), 1);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 0), 0);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 5);
	assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 3);
	assert_int_equal(c->seg[0].addr, segs[0].addr);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 4);
	/* One more staged, unpublished: not counted. */
	assert_int_equal(gvt_post1(&q, buf + 512, 4, true, GVT_COOKIE(5)), 0);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 4);
	gv_vq_flush(q.vq);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 5);
	for (int i = 0; i < 5; i++)
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
	assert_int_equal(c->ndesc, 1);
	assert_int_equal(gv_vqd_avail_count(q.vqd, 100), 0);
	assert_int_equal(gv_vqd_take(q.vqd, c), 0);
	gvt_q_free(&q);

	/* Chains spanning the end of the ring, several laps. */
	gvt_q_setup(&q, p, NUM, 0, 0);
	for (uint32_t lap = 0; lap < 7; lap++) {
		uint32_t k = 0, free_now = gv_vq_num_free(q.vq);

		assert_int_equal(free_now, NUM);
		/* Advance by an odd amount so chains straddle the end. */
		for (uint32_t i = 0; i < 5; i++)
			gvt_roundtrip1(&q, buf, 8, GVT_COOKIE(i));
		while (gv_vq_num_free(q.vq) >= 3) {
			assert_int_equal(gv_vq_add(q.vq, segs, 2, 1, GVT_COOKIE(k), false), 0);
			k++;
		}
		if (gv_vq_num_free(q.vq) > 0) {
			assert_int_equal(gvt_post1(&q, buf, 8, false, GVT_COOKIE(k)), 0);
			k++;
		}
		gv_vq_flush(q.vq);
		assert_int_equal(gv_vqd_avail_count(q.vqd, NUM), k);
		assert_int_equal(gv_vqd_avail_count(q.vqd, k - 1), k - 1);
		assert_int_equal(gvt_dev_echo(&q, NUM), k);
		assert_int_equal(gv_vq_get_used(q.vq, ck, NULL, NUM), k);
		assert_ptr_equal(ck[k - 1], GVT_COOKIE(k - 1));
	}
	assert_false(gv_vq_broken(q.vq));
	gvt_q_free(&q);
	free(buf);
	free(c);
}

/* ---------------------------------------------------- detach / reset ----- */

static void tc_detach_reset(void **state)
{
	const struct gvt_param *p = gvt_param(state);
	enum { NUM = 16 };
	struct gvt_q q;
	struct gv_chain *c = tc_chain_alloc();
	uint8_t *buf = gvt_alloc(64, 4096);
	struct gv_seg segs[2] = { gvt_seg(buf, 16), gvt_seg(buf + 64, 16) };
	uint16_t ids[6], nds[6];
	int seen[6] = { 0 };
	void *ck;
	uint32_t len;
	const uint8_t *r;

	gvt_q_setup(&q, p, NUM, 0, 0);
	assert_null(gv_vq_detach(q.vq));

	for (int i = 0; i < 6; i++) {
		if (i == 5)
			gv_vq_flush(q.vq); /* F stays staged, unpublished */
		assert_int_equal(gv_vq_add(q.vq, segs, 1, (uint16_t)(i & 1), GVT_COOKIE(i), false), 0);
	}
	for (int i = 0; i < 4; i++) {
		assert_int_equal(gv_vqd_take(q.vqd, c), 1);
		ids[i] = c->id;
		nds[i] = c->ndesc;
	}
	gv_vqd_push(q.vqd, ids[1], nds[1], 3);
	gv_vqd_push(q.vqd, ids[3], nds[3], 4);
	gv_vqd_publish(q.vqd);
	assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 1), 1);
	assert_ptr_equal(ck, GVT_COOKIE(1));
	assert_int_equal(gv_vq_inflight(q.vq), 5);

	/* A, C, D (returned, not reaped), E (published), F (staged). */
	for (int i = 0; i < 5; i++) {
		void *d = gv_vq_detach(q.vq);

		assert_non_null(d);
		assert_true(GVT_COOKIE_IDX(d) < 6);
		seen[GVT_COOKIE_IDX(d)]++;
	}
	assert_null(gv_vq_detach(q.vq));
	assert_null(gv_vq_detach(q.vq));
	assert_int_equal(seen[0], 1);
	assert_int_equal(seen[1], 0);
	assert_int_equal(seen[2], 1);
	assert_int_equal(seen[3], 1);
	assert_int_equal(seen[4], 1);
	assert_int_equal(seen[5], 1);
	assert_int_equal(gv_vq_inflight(q.vq), 0);

	memset(q.ring, 0x5a, q.ring_bytes);
	gv_vq_reset(q.vq);
	r = q.ring;
	for (size_t i = 0; i < q.ring_bytes; i++)
		if (r[i] != 0)
			fail_msg("ring byte %zu not zeroed by gv_vq_reset", i);
	gvt_vqd_reinit(&q);
	assert_int_equal(gv_vq_num_free(q.vq), NUM);
	assert_int_equal(gv_vq_inflight(q.vq), 0);
	assert_false(gv_vq_broken(q.vq));
	assert_int_equal(gv_vq_used_pending(q.vq), 0);
	assert_null(gv_vq_detach(q.vq));
	for (int i = 0; i < 3 * NUM; i++)
		gvt_roundtrip1(&q, buf + 128, 32, GVT_COOKIE(100 + i));

	/* Reset with buffers outstanding and without detaching. */
	for (int i = 0; i < NUM / 2; i++)
		assert_int_equal(gv_vq_add(q.vq, segs, 2, 0, GVT_COOKIE(i), false), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gvt_dev_echo(&q, 3), 3);
	gvt_q_reset(&q);
	assert_int_equal(gv_vq_num_free(q.vq), NUM);
	assert_int_equal(gv_vq_used_pending(q.vq), 0);
	assert_null(gv_vq_detach(q.vq));
	for (int i = 0; i < NUM; i++)
		assert_int_equal(gvt_post1(&q, buf, 8, true, GVT_COOKIE(200 + i)), 0);
	gv_vq_flush(q.vq);
	assert_int_equal(gvt_dev_echo(&q, NUM + 1), NUM);
	for (int i = 0; i < NUM; i++) {
		assert_int_equal(gv_vq_get_used(q.vq, &ck, &len, 1), 1);
		assert_ptr_equal(ck, GVT_COOKIE(200 + i));
		assert_int_equal(len, 8);
	}
	assert_false(gv_vq_broken(q.vq));

	gvt_q_free(&q);
	free(buf);
	free(c);
}

#endif /* GV_TEST_MODEL_H */
