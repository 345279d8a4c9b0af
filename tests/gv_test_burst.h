/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_test_burst.h - run a core test on the inline datapath verbs of
 * gv_vq_burst.h instead of the out-of-line ones of gv_vq.h. Force-included
 * (-include) into the *_burst copies of the core tests (tests/meson.build):
 * gv_vq_get_used, gv_vq_reclaim_in_order, gv_vq_add_burst, gv_vq_add and
 * gv_vq_kick_prepare become calls of the gvb_* verbs with the queue's
 * layout and barrier policy as literals, as the PMD's bursts make them, so
 * every hostile-device, model and event case also checks the fast loops.
 */
#ifndef GV_TEST_BURST_H
#define GV_TEST_BURST_H

#include "gv_vq_burst.h"

#define GVT_B_SWITCH(vq, call)                                                 \
	switch (((vq)->layout == GV_LAYOUT_PACKED) * 2 + ((vq)->barrier == GV_BARRIER_MANDATORY)) { \
	case 0: { const enum gv_layout L = GV_LAYOUT_SPLIT; const enum gv_barrier B = GV_BARRIER_SMP; call; } \
	case 1: { const enum gv_layout L = GV_LAYOUT_SPLIT; const enum gv_barrier B = GV_BARRIER_MANDATORY; call; } \
	case 2: { const enum gv_layout L = GV_LAYOUT_PACKED; const enum gv_barrier B = GV_BARRIER_SMP; call; } \
	default: { const enum gv_layout L = GV_LAYOUT_PACKED; const enum gv_barrier B = GV_BARRIER_MANDATORY; call; } \
	}

static inline uint32_t gvt_b_get_used(struct gv_vq *vq, void **ck, uint32_t *lens, uint32_t n)
{
	static uint32_t scratch[GV_RING_MAX_NUM];

	if (!lens)
		lens = scratch;
	GVT_B_SWITCH(vq, (void)B; return gvb_get_used(vq, ck, lens, n, L, B))
}

static inline uint32_t gvt_b_reclaim(struct gv_vq *vq, void **ck, uint32_t n)
{
	GVT_B_SWITCH(vq, return gvb_reclaim_in_order(vq, ck, n, L, B))
}

static inline uint32_t gvt_b_add_burst(struct gv_vq *vq, const struct gv_seg *segs,
				       void *const *ck, uint32_t n, bool writable)
{
	GVT_B_SWITCH(vq, (void)B; return gvb_add_burst(vq, segs, ck, n, writable, L))
}

static inline int gvt_b_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out,
			    uint16_t n_in, void *cookie, bool indirect)
{
	GVT_B_SWITCH(vq, return gvb_add(vq, segs, n_out, n_in, cookie, indirect, L, B))
}

static inline bool gvt_b_kick_prepare(struct gv_vq *vq)
{
	GVT_B_SWITCH(vq, return gvb_kick_prepare(vq, L, B))
}

#define gv_vq_get_used gvt_b_get_used
#define gv_vq_reclaim_in_order gvt_b_reclaim
#define gv_vq_add_burst gvt_b_add_burst
#define gv_vq_add gvt_b_add
#define gv_vq_kick_prepare gvt_b_kick_prepare

#endif /* GV_TEST_BURST_H */
