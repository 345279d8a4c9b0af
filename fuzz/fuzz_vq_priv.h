/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vq_priv.h - state shared by the two halves of the vq fuzz engine:
 * fuzz_vq.c (the driver side, the model of what is in flight, the
 * invariants) and fuzz_vq_dev.c (the device the fuzzer plays).
 */
#ifndef GV_FUZZ_VQ_PRIV_H
#define GV_FUZZ_VQ_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "fuzz_vq.h"

#define MAX_TOK 8192 /* chains posted per input */
#define MAX_BATCH 64

enum { T_FREE, T_INFLIGHT, T_RETURNED, T_DETACHED };

struct tok {
	uint8_t state;
	uint16_t id; /* split head / packed buffer id */
	uint16_t ndesc; /* ring slots it holds */
	uint32_t in_len; /* writable bytes posted */
};

struct taken {
	uint16_t id;
	uint16_t ndesc;
};

struct h {
	enum gv_layout layout;
	uint32_t num, feat;
	struct gv_vq *vq;
	uint8_t *ring;
	size_t ring_sz;
	uint8_t *ind;
	size_t ind_sz;
	uint16_t max_ind;
	struct gv_ring_addrs a;
	/* the model of what is in flight */
	uint32_t ntok, m_inflight, m_desc;
	int32_t *id_tok; /* num entries: id -> token in flight, or -1 */
	uint32_t *fifo; /* tokens in posting order (IN_ORDER check) */
	uint32_t fifo_head, fifo_tail;
	uint16_t drv_posted; /* split: avail entries written */
	uint16_t drv_pos; /* packed: next slot the driver fills */
	/* the device */
	uint16_t d_last_avail, d_used_idx; /* split */
	uint16_t d_avail_pos, d_used_pos; /* packed */
	uint8_t d_avail_wrap, d_used_wrap;
	struct taken *taken; /* taken, not returned, in order */
	uint32_t ntaken, max_taken;
	bool clean; /* the device has behaved so far */
};

extern struct tok g_tok[MAX_TOK];

static inline bool in_order(const struct h *h)
{
	return h->feat & GV_VQ_F_IN_ORDER;
}

/* fuzz_vq_dev.c: the device. */
struct gv_split_used *dev_s_used(struct h *h);
void dev_take(struct h *h, uint32_t n);
void dev_return(struct h *h, struct fz *f);
void dev_batch(struct h *h, struct fz *f);
void dev_raw(struct h *h, struct fz *f);
void dev_jump(struct h *h, struct fz *f);
void dev_scribble(struct h *h, struct fz *f);
void dev_event(struct h *h, struct fz *f);

#endif /* GV_FUZZ_VQ_PRIV_H */
