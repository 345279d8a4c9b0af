/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_vq_dev.c - the device of the vq fuzz engine (fuzz_vq.c): a
 * well-behaved one (takes published chains as a device reading the ring
 * would, returns them with valid lengths, in order when IN_ORDER, in
 * batches) and a hostile one (raw used entries / packed descriptors, used
 * index jumps, event-suppression values, scribbles anywhere in the ring
 * and the indirect tables). Every hostile write clears h->clean.
 */
#include <string.h>

#include "fuzz_vq_priv.h"

struct gv_split_used *dev_s_used(struct h *h)
{
	return (void *)(uintptr_t)h->a.device;
}

static struct gv_packed_desc *p_desc(struct h *h)
{
	return (void *)(uintptr_t)h->a.desc;
}

static void p_advance(struct h *h, uint16_t *pos, uint8_t *wrap, uint32_t by)
{
	uint32_t p = *pos + by;

	while (p >= h->num) {
		p -= h->num;
		*wrap ^= 1;
	}
	*pos = (uint16_t)p;
}

/* Take up to n published chains, as a device reading the ring would. */
void dev_take(struct h *h, uint32_t n)
{
	while (n-- && h->ntaken < h->max_taken) {
		struct taken tk = { 0, 0 };

		if (h->layout == GV_LAYOUT_SPLIT) {
			struct gv_split_avail *av = (void *)(uintptr_t)h->a.driver;

			if (av->idx == h->d_last_avail)
				return;
			tk.id = av->ring[h->d_last_avail & (h->num - 1)];
			h->d_last_avail++;
		} else {
			struct gv_packed_desc *d = p_desc(h);
			uint16_t fl = d[h->d_avail_pos].flags;

			if (!!(fl & GV_DESC_F_AVAIL) != h->d_avail_wrap ||
			    !!(fl & GV_DESC_F_USED) == h->d_avail_wrap)
				return;
			do {
				fl = d[h->d_avail_pos].flags;
				tk.id = d[h->d_avail_pos].id;
				tk.ndesc++;
				p_advance(h, &h->d_avail_pos, &h->d_avail_wrap, 1);
			} while ((fl & GV_DESC_F_NEXT) && tk.ndesc < h->num);
		}
		h->taken[h->ntaken++] = tk;
	}
}

static uint32_t in_len_of(struct h *h, uint16_t id)
{
	if (id >= h->num || h->id_tok[id] < 0)
		return 0;
	return g_tok[h->id_tok[id]].in_len;
}

static void dev_put(struct h *h, uint32_t at, uint16_t id, uint32_t len, uint16_t ndesc)
{
	if (h->layout == GV_LAYOUT_SPLIT) {
		struct gv_split_used_elem *e = &dev_s_used(h)->ring[at & (h->num - 1)];

		e->id = id;
		e->len = len;
	} else {
		struct gv_packed_desc *d = &p_desc(h)[at];

		d->id = id;
		d->len = len;
		d->flags = h->d_used_wrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
		p_advance(h, &h->d_used_pos, &h->d_used_wrap, ndesc);
	}
}

/* Return one taken chain (the oldest with IN_ORDER) with a valid length. */
void dev_return(struct h *h, struct fz *f)
{
	uint8_t b = fz_u8(f), frac = fz_u8(f);
	uint32_t i = in_order(h) || !h->ntaken ? 0 : b % h->ntaken, len;
	struct taken tk;

	if (!h->ntaken)
		return;
	tk = h->taken[i];
	memmove(&h->taken[i], &h->taken[i + 1], (h->ntaken - i - 1) * sizeof(tk));
	h->ntaken--;
	len = (uint32_t)((uint64_t)in_len_of(h, tk.id) * frac / 255);
	if (h->layout == GV_LAYOUT_SPLIT) {
		dev_put(h, h->d_used_idx++, tk.id, len, 1);
		if (b & 0x80)
			dev_s_used(h)->idx = h->d_used_idx;
	} else {
		dev_put(h, h->d_used_pos, tk.id, len, tk.ndesc);
	}
}

/* IN_ORDER batch: the oldest `count` taken chains as one used entry. */
void dev_batch(struct h *h, struct fz *f)
{
	uint32_t count, slots = 0;
	struct taken last;

	if (!h->ntaken)
		return;
	count = 1 + fz_u8(f) % h->ntaken;
	for (uint32_t k = 0; k < count; k++)
		slots += h->taken[k].ndesc;
	last = h->taken[count - 1];
	memmove(h->taken, h->taken + count, (h->ntaken - count) * sizeof(last));
	h->ntaken -= count;
	h->clean = false; /* valid for reclaim_in_order only; get_used may refuse it */
	if (h->layout == GV_LAYOUT_SPLIT) {
		dev_put(h, (uint16_t)(h->d_used_idx + count - 1), last.id, in_len_of(h, last.id), 1);
		h->d_used_idx = (uint16_t)(h->d_used_idx + count);
		dev_s_used(h)->idx = h->d_used_idx;
	} else {
		dev_put(h, h->d_used_pos, last.id, in_len_of(h, last.id), (uint16_t)slots);
	}
}

/* A used entry / descriptor with whatever id, length and flags. */
void dev_raw(struct h *h, struct fz *f)
{
	uint8_t m = fz_u8(f);
	uint16_t id;
	uint32_t len, id32 = 0;

	switch (m & 3) {
	case 0:
		id32 = fz_u32(f);
		break;
	case 1:
		id32 = fz_u8(f);
		break;
	case 2:
		id32 = h->ntaken ? h->taken[fz_u8(f) % h->ntaken].id : 0;
		break;
	default:
		id32 = h->fifo_tail ? g_tok[h->fifo[fz_u8(f) % h->fifo_tail]].id : 0;
		break;
	}
	id = (uint16_t)id32;
	switch ((m >> 2) & 3) {
	case 0:
		len = fz_u32(f);
		break;
	case 1:
		len = in_len_of(h, id) + 1;
		break;
	case 2:
		len = 0;
		break;
	default:
		len = in_len_of(h, id);
		break;
	}
	h->clean = false;
	if (h->layout == GV_LAYOUT_SPLIT) {
		uint16_t at = (m & 0x10) ? (uint16_t)(h->d_used_idx + (int8_t)fz_u8(f)) : h->d_used_idx++;
		struct gv_split_used_elem *e = &dev_s_used(h)->ring[at & (h->num - 1)];

		e->id = id32;
		e->len = len;
		if (m & 0x20)
			dev_s_used(h)->idx = h->d_used_idx;
	} else {
		uint16_t pos = (m & 0x10) ? (uint16_t)(fz_u16(f) % h->num) : h->d_used_pos;
		struct gv_packed_desc *d = &p_desc(h)[pos];
		uint16_t w = h->d_used_wrap, fl;

		switch (fz_u8(f) % 6) {
		case 0:
			fl = w ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;
			break;
		case 1:
			fl = GV_DESC_F_AVAIL;
			break;
		case 2:
			fl = GV_DESC_F_USED;
			break;
		case 3:
			fl = GV_DESC_F_AVAIL | GV_DESC_F_USED;
			break;
		case 4:
			fl = 0;
			break;
		default:
			fl = fz_u16(f);
			break;
		}
		d->id = id;
		d->len = len;
		d->flags = fl;
		if (!(m & 0x10))
			p_advance(h, &h->d_used_pos, &h->d_used_wrap, 1 + ((m >> 5) & 3));
	}
}

void dev_jump(struct h *h, struct fz *f)
{
	uint8_t m = fz_u8(f);

	h->clean = false;
	if (h->layout == GV_LAYOUT_SPLIT) {
		h->d_used_idx = (m & 1) ? fz_u16(f) : (uint16_t)(h->d_used_idx + (int8_t)fz_u8(f));
		dev_s_used(h)->idx = h->d_used_idx;
	} else {
		h->d_used_pos = (uint16_t)(fz_u16(f) % h->num);
		h->d_used_wrap ^= m & 1;
	}
}

void dev_scribble(struct h *h, struct fz *f)
{
	uint8_t m = fz_u8(f);
	bool ind = (m & 1) && h->ind;
	uint8_t *base = ind ? h->ind : h->ring;
	size_t sz = ind ? h->ind_sz : h->ring_sz;
	size_t off = fz_u32(f) % sz, len = 1 + (m >> 1) % 8;

	if (len > sz - off)
		len = sz - off;
	fz_bytes(f, base + off, len);
	h->clean = false;
}

/* Event suppression as the device writes it; odd values are not clean. */
void dev_event(struct h *h, struct fz *f)
{
	uint8_t m = fz_u8(f);
	uint16_t v = fz_u16(f);

	if (h->layout == GV_LAYOUT_SPLIT) {
		if (m & 1) {
			dev_s_used(h)->flags = v;
			h->clean &= v <= GV_USED_F_NO_NOTIFY;
		} else {
			*(uint16_t *)&dev_s_used(h)->ring[h->num] = v; /* avail_event */
		}
	} else {
		struct gv_packed_event *ev = (void *)(uintptr_t)h->a.device;

		if (m & 1) {
			ev->flags = v;
			h->clean &= v <= GV_EVENT_F_DESC;
		} else {
			ev->off_wrap = v;
		}
	}
}
