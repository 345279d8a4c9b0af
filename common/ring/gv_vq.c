/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vq.c - the driver end's public verbs. Each checks the broken flag
 * (the posting and taking verbs: the gate, shut also in fixed mode),
 * then switches once on (layout, barrier policy) into the layout twins of
 * gv_vq_split.h / gv_vq_packed.h, which the compiler specialises for each
 * literal policy. Set-up, teardown and accessors live here too.
 */
#include "gv_vq_priv.h"
#include "gv_vq_burst.h"
#include "gv_vq_fixed.h"
#include "gv_vq_packed.h"
#include "gv_vq_split.h"

static bool num_ok(enum gv_layout layout, uint32_t num)
{
	if (num == 0 || num > GV_RING_MAX_NUM)
		return false;
	if (layout != GV_LAYOUT_SPLIT && layout != GV_LAYOUT_PACKED)
		return false;
	return layout == GV_LAYOUT_PACKED || (num & (num - 1)) == 0;
}

static uint32_t align_of(uint32_t align)
{
	return align ? align : 4;
}

size_t gv_ring_size(enum gv_layout layout, uint32_t num, uint32_t align)
{
	if (!num_ok(layout, num))
		return 0;
	if (layout == GV_LAYOUT_PACKED)
		return packed_ring_size(num);
	return split_ring_size(num, align_of(align));
}

static size_t state_head(void)
{
	return gv_align_up(sizeof(struct gv_vq), 16);
}

size_t gv_vq_state_size(enum gv_layout layout, uint32_t num)
{
	if (!num_ok(layout, num))
		return 0;
	return state_head() + (size_t)num * (sizeof(struct gv_slot) + 2 * sizeof(uint16_t));
}

static void layout_init(struct gv_vq *vq)
{
	vq->broken = 0;
	vq->gate = 0;
	vq->num_free = vq->num;
	vq->inflight = 0;
	vq->order_put = vq->order_get = 0;
	vq->detach_pos = 0;
	memset(vq->slot, 0, (size_t)vq->num * sizeof(*vq->slot));
	memset(&vq->stats, 0, sizeof(vq->stats));
	if (vq->layout == GV_LAYOUT_PACKED)
		packed_init(vq);
	else
		split_init(vq);
}

int gv_vq_init(struct gv_vq *vq, const struct gv_vq_config *cfg)
{
	uint32_t align = align_of(cfg->align);

	if (!vq || !cfg->ring || !num_ok(cfg->layout, cfg->num))
		return -EINVAL;
	if ((uintptr_t)cfg->ring % 16 || (align & (align - 1)) || align < 4)
		return -EINVAL;
	if (cfg->barrier != GV_BARRIER_SMP && cfg->barrier != GV_BARRIER_MANDATORY)
		return -EINVAL;
#ifdef GV_RING_FIXED_BARRIER
	if (cfg->barrier != GV_RING_FIXED_BARRIER)
		return -ENOTSUP; /* this build is hard-wired to one policy */
#endif
	if ((cfg->features & GV_VQ_F_INDIRECT) && (!cfg->indirect || cfg->max_indirect == 0))
		return -EINVAL;
	memset(vq, 0, sizeof(*vq));
	vq->layout = cfg->layout;
	vq->barrier = cfg->barrier;
	vq->num = cfg->num;
	vq->mask = cfg->num - 1;
	vq->features = cfg->features;
	vq->ring = cfg->ring;
	vq->ring_iova = cfg->ring_iova;
	vq->align = align;
	if (cfg->features & GV_VQ_F_INDIRECT) {
		vq->indirect = cfg->indirect;
		vq->indirect_iova = cfg->indirect_iova;
		vq->max_indirect = cfg->max_indirect;
	}
	vq->slot = (struct gv_slot *)((uint8_t *)vq + state_head());
	vq->next = (uint16_t *)(vq->slot + vq->num);
	vq->order = vq->next + vq->num;
	layout_init(vq);
	return 0;
}

void gv_vq_reset(struct gv_vq *vq)
{
	layout_init(vq);
}

void gv_vq_addrs(const struct gv_vq *vq, struct gv_ring_addrs *out)
{
	if (vq->layout == GV_LAYOUT_PACKED)
		packed_addrs(vq, out);
	else
		split_addrs(vq, out);
}

enum gv_layout gv_vq_layout(const struct gv_vq *vq) { return vq->layout; }
uint32_t gv_vq_num(const struct gv_vq *vq) { return vq->num; }
uint32_t gv_vq_num_free(const struct gv_vq *vq) { return vq->num_free; }
uint32_t gv_vq_inflight(const struct gv_vq *vq) { return vq->inflight; }
bool gv_vq_broken(const struct gv_vq *vq) { return vq->broken; }

uint32_t gv_vq_avail_state(const struct gv_vq *vq)
{
	if (vq->layout == GV_LAYOUT_PACKED)
		return (uint32_t)(vq->p.avail_idx & 0x7fff) | ((uint32_t)(vq->p.avail_wrap & 1) << 15);
	return vq->s.pub_idx;
}

void gv_vq_stats(const struct gv_vq *vq, struct gv_vq_stats *out)
{
	*out = vq->stats;
}

int gv_vq_add(struct gv_vq *vq, const struct gv_seg *segs, uint16_t n_out, uint16_t n_in,
	      void *cookie, bool indirect)
{
	switch (GV_VQ_KEY(vq)) {
	case GV_K_SPLIT_SMP:
		return gvb_add(vq, segs, n_out, n_in, cookie, indirect, GV_LAYOUT_SPLIT,
			       GV_BARRIER_SMP);
	case GV_K_SPLIT_MAND:
		return gvb_add(vq, segs, n_out, n_in, cookie, indirect, GV_LAYOUT_SPLIT,
			       GV_BARRIER_MANDATORY);
	case GV_K_PACKED_SMP:
		return gvb_add(vq, segs, n_out, n_in, cookie, indirect, GV_LAYOUT_PACKED,
			       GV_BARRIER_SMP);
	default:
		return gvb_add(vq, segs, n_out, n_in, cookie, indirect, GV_LAYOUT_PACKED,
			       GV_BARRIER_MANDATORY);
	}
}

uint32_t gv_vq_add_burst(struct gv_vq *vq, const struct gv_seg *segs, void *const *cookies,
			 uint32_t n, bool writable)
{
	if (vq->gate)
		return 0;
	GV_DISPATCH(vq, split_add_burst, packed_add_burst, vq, segs, cookies, n, writable)
}

void gv_vq_flush(struct gv_vq *vq)
{
	if (vq->broken)
		return;
	GV_DISPATCH(vq, split_flush, packed_flush, vq)
}

bool gv_vq_kick_prepare(struct gv_vq *vq)
{
	if (vq->broken)
		return false;
	GV_DISPATCH(vq, split_kick_prepare, packed_kick_prepare, vq)
}

uint32_t gv_vq_get_used(struct gv_vq *vq, void **cookies, uint32_t *lens, uint32_t n)
{
	if (vq->gate)
		return 0;
	GV_DISPATCH(vq, split_get_used, packed_get_used, vq, cookies, lens, n)
}

uint32_t gv_vq_reclaim_in_order(struct gv_vq *vq, void **cookies, uint32_t n)
{
	if (vq->gate)
		return 0;
	if (!(vq->features & GV_VQ_F_IN_ORDER))
		return gv_vq_get_used(vq, cookies, NULL, n);
	GV_DISPATCH(vq, split_reclaim_in_order, packed_reclaim_in_order, vq, cookies, n)
}

uint32_t gv_vq_used_pending(struct gv_vq *vq)
{
	if (vq->broken)
		return 0;
	if (vq->layout == GV_LAYOUT_PACKED && vq->p.fixed)
		return packed_fixed_used_pending(vq);
	GV_DISPATCH(vq, split_used_pending, packed_used_pending, vq)
}

void gv_vq_watch(const struct gv_vq *vq, struct gv_vq_watch *out)
{
	if (vq->broken) {
		*out = (struct gv_vq_watch){ vq->layout == GV_LAYOUT_SPLIT ? (void *)&vq->s.used->idx
									   : (void *)&vq->p.desc[0].flags,
					     0, 0, false };
		return;
	}
	if (vq->layout == GV_LAYOUT_SPLIT)
		split_watch(vq, out);
	else
		packed_watch(vq, out);
	if (vq->inflight == 0) { /* nothing will be written: the caller must post */
		out->mask = 0;
		out->value = 0;
		out->when_equal = true;
	}
}

void gv_vq_disable_cb(struct gv_vq *vq)
{
	if (vq->broken)
		return;
	GV_DISPATCH(vq, split_disable_cb, packed_disable_cb, vq)
}

bool gv_vq_enable_cb(struct gv_vq *vq)
{
	if (vq->broken)
		return false;
	GV_DISPATCH(vq, split_enable_cb, packed_enable_cb, vq)
}

int gv_vq_fixed_enable(struct gv_vq *vq, uint32_t len)
{
	if (vq->layout == GV_LAYOUT_PACKED)
		return gvf_enable(vq, len, GV_LAYOUT_PACKED);
	return gvf_enable(vq, len, GV_LAYOUT_SPLIT);
}

int gv_vq_fixed_tx_enable(struct gv_vq *vq)
{
	if (vq->layout == GV_LAYOUT_PACKED)
		return gvf_tx_enable(vq, GV_LAYOUT_PACKED);
	return gvf_tx_enable(vq, GV_LAYOUT_SPLIT);
}

/* Scans from a cursor, so detaching every chain costs O(num) in all. */
void *gv_vq_detach(struct gv_vq *vq)
{
	if (vq->layout == GV_LAYOUT_SPLIT && vq->s.fixed)
		return split_fixed_detach(vq);
	if (vq->layout == GV_LAYOUT_PACKED && vq->p.fixed)
		return packed_fixed_detach(vq);
	for (uint32_t scanned = 0; scanned < vq->num && vq->inflight; scanned++) {
		uint16_t id = (uint16_t)vq->detach_pos;
		void *cookie;

		if (++vq->detach_pos == vq->num)
			vq->detach_pos = 0;
		if (vq->slot[id].ndesc == 0)
			continue;
		cookie = vq->slot[id].cookie;
		if (vq->layout == GV_LAYOUT_PACKED) {
			packed_free_id(vq, id);
			if (!vq->inflight)
				vq->p.batch_open = 0; /* no chain of it is left */
		} else
			split_free_chain(vq, id);
		return cookie;
	}
	return NULL;
}
