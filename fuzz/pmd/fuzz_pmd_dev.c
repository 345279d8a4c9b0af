/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pmd_dev.c - the hostile device of fuzz_pmd (see fuzz_pmd.h): the
 * transport ops, the per-queue device ends, and the control queue's
 * answers (good, refused, a wrong ack, a hostile used entry, or none: the
 * PMD then times out after GV_CTRL_TIMEOUT_MS, 1 ms in this build).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_pmd.h"
#include "gv_ctrl.h"
#include "gv_ring_layout.h"

struct fzd g_fzd;

/*
 * The mbuf pools, their objects sorted by address: the device's "IOMMU".
 * A segment that starts in a pool must lie inside one mbuf's data buffer.
 * Without it a raw write of a packed descriptor's length (which the
 * driver never reads back) would make this device, taking that
 * descriptor later, write past the buffer into the next mbuf: a real
 * device could, but the driver cannot stop DMA, and the fuzzer must not
 * report its own device's writes.
 */
static struct {
	struct rte_mempool *mp;
	void **objs;
	uintptr_t lo, hi;
} g_pools[4];

static void note_obj(struct rte_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	(void)mp;
	((void **)opaque)[idx] = obj;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return x < y ? -1 : x > y;
}

void fzd_add_pool(struct rte_mempool *mp)
{
	for (unsigned int i = 0; i < RTE_DIM(g_pools); i++) {
		if (g_pools[i].mp)
			continue;
		g_pools[i].objs = malloc(sizeof(void *) * mp->size);
		if (!g_pools[i].objs || rte_mempool_obj_iter(mp, note_obj, g_pools[i].objs) != mp->size)
			abort();
		qsort(g_pools[i].objs, mp->size, sizeof(void *), cmp_ptr);
		g_pools[i].lo = (uintptr_t)g_pools[i].objs[0];
		g_pools[i].hi = (uintptr_t)g_pools[i].objs[mp->size - 1] + mp->elt_size;
		g_pools[i].mp = mp;
		return;
	}
	abort();
}

static void *fzd_xlate(void *ctx, uint64_t addr, uint32_t len)
{
	(void)ctx;
	/* The PMD posts process virtual addresses (hw->use_va). */
	if (addr == 0 || addr > UINTPTR_MAX || (uint64_t)len > UINTPTR_MAX - addr)
		return NULL;
	for (unsigned int i = 0; i < RTE_DIM(g_pools) && g_pools[i].mp; i++) {
		unsigned int lo = 0, hi = g_pools[i].mp->size;
		const struct rte_mbuf *m;

		if (addr < g_pools[i].lo || addr >= g_pools[i].hi)
			continue;
		while (hi - lo > 1) { /* last object at or below addr */
			unsigned int mid = (lo + hi) / 2;

			if ((uintptr_t)g_pools[i].objs[mid] <= addr)
				lo = mid;
			else
				hi = mid;
		}
		m = g_pools[i].objs[lo];
		if (addr < (uintptr_t)m->buf_addr || addr + len > (uintptr_t)m->buf_addr + m->buf_len)
			return NULL;
		break;
	}
	return (void *)(uintptr_t)addr;
}

void fzd_init(void)
{
	for (unsigned int i = 0; i < FZD_MAX_VQ; i++) {
		g_fzd.vq[i].d = malloc(gv_vqd_state_size());
		g_fzd.vq[i].held = malloc(sizeof(struct gv_chain) * FZD_HELD);
		if (!g_fzd.vq[i].d || !g_fzd.vq[i].held)
			abort();
	}
}

static void forget(bool keep_setup)
{
	for (unsigned int i = 0; i < FZD_MAX_VQ; i++) {
		g_fzd.vq[i].up = false;
		g_fzd.vq[i].n_held = 0;
		if (!keep_setup)
			g_fzd.vq[i].q = NULL;
	}
	g_fzd.running = false;
}

struct fzd_vq *fzd_vq(uint16_t idx)
{
	if (idx >= FZD_MAX_VQ || !g_fzd.vq[idx].up)
		return NULL;
	return &g_fzd.vq[idx];
}

uint32_t fzd_take(struct fzd_vq *v, uint32_t n)
{
	uint32_t got = 0;

	while (got < n && v->n_held < FZD_HELD && !gv_vqd_broken(v->d)) {
		if (gv_vqd_take(v->d, &v->held[v->n_held]) != 1)
			break;
		v->n_held++;
		got++;
	}
	return got;
}

void fzd_drop(struct fzd_vq *v, uint32_t i)
{
	if (i >= v->n_held)
		return;
	memmove(&v->held[i], &v->held[i + 1], sizeof(struct gv_chain) * (v->n_held - i - 1));
	v->n_held--;
}

uint16_t fzd_hdr_size(void)
{
	return gv_net_hdr_size(g_fzd.features);
}

/* ---------------------------------------------------- transport ops -- */

static int fzd_get_features(struct gv_hw *hw, uint64_t *f)
{
	(void)hw;
	*f = g_fzd.offered;
	return 0;
}

static int fzd_set_features(struct gv_hw *hw, uint64_t f)
{
	(void)hw;
	forget(false);
	g_fzd.features = f; /* a hostile device takes anything */
	return 0;
}

static int fzd_reset(struct gv_hw *hw)
{
	(void)hw;
	forget(false);
	g_fzd.features = 0;
	return 0;
}

static int fzd_read_config(struct gv_hw *hw, uint32_t off, void *dst, uint32_t len)
{
	(void)hw;
	if (off > FZD_CFG_LEN || len > FZD_CFG_LEN - off)
		return -EINVAL;
	memcpy(dst, g_fzd.cfg + off, len);
	return 0;
}

static uint16_t fzd_queue_max(struct gv_hw *hw, uint16_t qidx)
{
	(void)hw;
	(void)qidx;
	return g_fzd.qmax;
}

static int fzd_setup_queue(struct gv_hw *hw, struct gv_queue *q)
{
	(void)hw;
	if (q->vq_idx >= FZD_MAX_VQ || g_fzd.running)
		return -EINVAL;
	g_fzd.vq[q->vq_idx].q = q;
	return 0;
}

static int fzd_start(struct gv_hw *hw)
{
	(void)hw;
	for (unsigned int i = 0; i < FZD_MAX_VQ; i++) {
		struct fzd_vq *v = &g_fzd.vq[i];
		struct gv_vqd_config cfg = { 0 };

		if (!v->q)
			continue;
		cfg.layout = gv_vq_layout(v->q->vq);
		cfg.barrier = GV_BARRIER_SMP;
		cfg.num = gv_vq_num(v->q->vq);
		cfg.features = ((g_fzd.features & GV_BIT(GV_F_RING_EVENT_IDX)) ? GV_VQ_F_EVENT_IDX : 0) |
			       ((g_fzd.features & GV_BIT(GV_F_RING_INDIRECT_DESC)) ? GV_VQ_F_INDIRECT : 0);
		gv_vq_addrs(v->q->vq, &cfg.addrs);
		cfg.xlate = fzd_xlate;
		if (gv_vqd_init(v->d, &cfg) != 0) {
			forget(true);
			return -EINVAL;
		}
		v->up = true;
		v->n_held = 0;
	}
	g_fzd.running = true;
	return 0;
}

static void fzd_stop(struct gv_hw *hw)
{
	(void)hw;
	forget(false);
}

/* Answer a control command as the input says. */
static void ctrl_answer(struct fzd_vq *v)
{
	struct fz *in = g_fzd.in;
	uint8_t how = g_fzd.ctrl_mode < 128 ? g_fzd.ctrl_mode : in ? fz_u8(in) : 0;
	struct gv_chain *c;
	uint8_t ack;
	uint32_t len;

	g_fzd.ctrl_cmds++;
	v->n_held = 0;
	if (fzd_take(v, 1) != 1)
		return; /* nothing (or a bad chain): the PMD times out */
	c = &v->held[0];
	switch (how % 8) {
	case 5: /* no answer */
		return;
	case 6: { /* a used entry with any id and length */
		uint16_t id = fz_u16(in);

		gv_vqd_push(v->d, id, 1, fz_u32(in));
		gv_vqd_publish(v->d);
		return;
	}
	case 7: /* any ack byte, any length */
		ack = fz_u8(in);
		len = fz_u32(in);
		break;
	case 4: /* refused */
		ack = GV_CTRL_ERR;
		len = 1;
		break;
	default:
		ack = GV_CTRL_OK;
		len = 1;
		break;
	}
	gv_vqd_write(v->d, c, 0, &ack, 1);
	gv_vqd_push(v->d, c->id, c->ndesc, len);
	gv_vqd_publish(v->d);
	v->n_held = 0;
	gv_vqd_enable_kick(v->d, true); /* idle again: kick me (event index) */
}

static void fzd_notify(struct gv_hw *hw, struct gv_queue *q)
{
	struct fzd_vq *v = fzd_vq(q->vq_idx);

	(void)hw;
	if (!v || v->q != q)
		return;
	if (hw->cvq && q == gv_ctrl_queue(hw))
		ctrl_answer(v);
	/* RX and TX: the script decides when the device acts. */
}

static bool fzd_link_up(struct gv_hw *hw)
{
	(void)hw;
	return g_fzd.running;
}

static void fzd_close(struct gv_hw *hw)
{
	(void)hw;
	forget(false);
}

#define FZD_OPS(nm, fixed)                                                     \
	{                                                                      \
		.name = nm, .get_features = fzd_get_features,                  \
		.set_features = fzd_set_features, .reset = fzd_reset,          \
		.read_config = fzd_read_config, .queue_max = fzd_queue_max,    \
		.fixed_queue_size = fixed, .setup_queue = fzd_setup_queue,     \
		.start = fzd_start, .stop = fzd_stop, .notify = fzd_notify,    \
		.link_up = fzd_link_up, .close = fzd_close, .ctrl = NULL,      \
	}

const struct gv_transport_ops fzd_ops = FZD_OPS("fuzz", false);
/* A legacy device: its rings have exactly the size it says (as legacy PCI). */
const struct gv_transport_ops fzd_ops_legacy = FZD_OPS("fuzz-legacy", true);
