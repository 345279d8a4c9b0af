/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vqd.c - the device end of a virtqueue (see gv_vqd.h): take the
 * driver's chains, return used entries, event suppression, and the dirty
 * log of every guest page written. Split and packed layouts as twin
 * functions behind one set of verbs. The burst verbs are in
 * gv_vqd_burst.c. This is test and benchmark
 * infrastructure, so it favours checks over speed where they differ.
 */
#include <errno.h>
#include <string.h>

#include "gv_vqd_priv.h"

/*
 * Event suppression fields the device writes in guest memory: logged at
 * once, since no publish need follow.
 */
static void split_set_avail_event(struct gv_vqd *d, uint16_t v)
{
	gv_store16(&d->s.used->ring[d->num], v);
	gv_log_mark_now(&d->log, d->addrs.device + 4 + 8ull * d->num, 2);
}

static void split_set_used_flags(struct gv_vqd *d, uint16_t v)
{
	gv_store16(&d->s.used->flags, v);
	gv_log_mark_now(&d->log, d->addrs.device, 2);
}

void gv_vqd_packed_set_dev_event(struct gv_vqd *d, bool set_off, uint16_t off_wrap,
				 uint16_t flags)
{
	if (set_off) {
		gv_store16(&d->p.dev->off_wrap, off_wrap);
		/* The offset before the flags that make the driver read it. */
		gv_wmb(d->barrier);
	}
	gv_store16(&d->p.dev->flags, flags);
	gv_log_mark_now(&d->log, d->addrs.device, sizeof(struct gv_packed_event));
}


size_t gv_vqd_state_size(void)
{
	return sizeof(struct gv_vqd);
}

int gv_vqd_init(struct gv_vqd *d, const struct gv_vqd_config *cfg)
{
	uint32_t num = cfg->num;

	if (!cfg->xlate || num == 0 || num > GV_RING_MAX_NUM)
		return -EINVAL;
	if (cfg->layout == GV_LAYOUT_SPLIT && (num & (num - 1)))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->layout = cfg->layout;
	d->barrier = cfg->barrier;
	d->num = num;
	d->mask = num - 1;
	d->features = cfg->features;
	d->addrs = cfg->addrs;
	d->xlate = cfg->xlate;
	d->xctx = cfg->xlate_ctx;
	if (cfg->flat_len) {
		/* Not wrapping, and short enough that off + len cannot wrap (in_flat). */
		if (!cfg->flat_host || cfg->flat_addr + cfg->flat_len - 1 < cfg->flat_addr ||
		    cfg->flat_len > UINT64_MAX - UINT32_MAX)
			return -EINVAL;
		d->flat_addr = cfg->flat_addr;
		d->flat_len = cfg->flat_len;
		d->flat_host = cfg->flat_host;
	}
	d->kick_enabled = 1;
	if (cfg->layout == GV_LAYOUT_SPLIT) {
		d->s.desc = cfg->xlate(d->xctx, cfg->addrs.desc, (uint32_t)gv_split_desc_bytes(num));
		d->s.avail = cfg->xlate(d->xctx, cfg->addrs.driver, (uint32_t)gv_split_avail_bytes(num));
		d->s.used = cfg->xlate(d->xctx, cfg->addrs.device, (uint32_t)gv_split_used_bytes(num));
		/* Alignments of virtio 1.2 2.7: desc 16, avail 2, used 4. */
		if (!d->s.desc || !d->s.avail || !d->s.used || (uintptr_t)d->s.desc % 16 ||
		    (uintptr_t)d->s.avail % 2 || (uintptr_t)d->s.used % 4)
			return -EINVAL;
	} else {
		d->p.desc = cfg->xlate(d->xctx, cfg->addrs.desc, 16u * num);
		d->p.drv = cfg->xlate(d->xctx, cfg->addrs.driver, sizeof(struct gv_packed_event));
		d->p.dev = cfg->xlate(d->xctx, cfg->addrs.device, sizeof(struct gv_packed_event));
		/* Alignments of virtio 1.2 2.8: descriptors 16, events 4. */
		if (!d->p.desc || !d->p.drv || !d->p.dev || (uintptr_t)d->p.desc % 16 ||
		    (uintptr_t)d->p.drv % 4 || (uintptr_t)d->p.dev % 4)
			return -EINVAL;
		d->p.avail_wrap = d->p.used_wrap = d->p.pub_wrap = 1;
	}
	return 0;
}

bool gv_vqd_broken(const struct gv_vqd *d)
{
	return d->broken;
}

void gv_vqd_stats(const struct gv_vqd *d, struct gv_vqd_stats *out)
{
	out->bad_chains = d->bad_chains;
	out->log_marks = d->log.marks;
	out->log_atomics = d->log.atomics;
}

/*
 * A buffer's host pointer: inline when it lies wholly in the flat range,
 * through the caller's hook otherwise. NULL: untranslatable.
 */
static inline void *buf_xlate(struct gv_vqd *d, uint64_t addr, uint32_t len)
{
	uint64_t off = addr - d->flat_addr;

	if (off < d->flat_len && len <= d->flat_len - off)
		return d->flat_host + off;
	return d->xlate(d->xctx, addr, len);
}

/* Fill segment `s` with a buffer and its host pointer; -1: untranslatable. */
static inline int seg_fill(struct gv_vqd *d, struct gv_chain_seg *s, uint64_t addr, uint32_t len,
			   bool write)
{
	s->ptr = buf_xlate(d, addr, len);
	if (!s->ptr)
		return -1;
	s->addr = addr;
	s->len = len;
	s->write = write;
	return 0;
}

/* Append a segment; readable ones must all come before writable ones. */
static int add_seg(struct gv_vqd *d, struct gv_chain *c, uint64_t addr, uint32_t len, bool write)
{
	/* Readable after any writable segment (even an empty one): refused. */
	if (c->nseg == GV_CHAIN_MAX_SEGS || (!write && c->nseg != c->n_out))
		return -1;
	if (write ? (uint64_t)c->in_len + len > UINT32_MAX : (uint64_t)c->out_len + len > UINT32_MAX)
		return -1;
	if (seg_fill(d, &c->seg[c->nseg], addr, len, write))
		return -1;
	c->nseg++;
	if (write) {
		c->in_len += len;
	} else {
		c->out_len += len;
		c->n_out++;
	}
	return 0;
}

/*
 * The whole chain is one descriptor (no NEXT, no INDIRECT): fill it in
 * one go, the common case of a network queue. -1: untranslatable.
 */
static inline int chain_one(struct gv_vqd *d, struct gv_chain *c, uint64_t addr, uint32_t len,
			    uint16_t flags)
{
	bool write = flags & GV_DESC_F_WRITE;

	if (seg_fill(d, &c->seg[0], addr, len, write))
		return -1;
	c->ndesc = 1;
	c->nseg = 1;
	c->n_out = !write;
	c->out_len = write ? 0 : len;
	c->in_len = write ? len : 0;
	return 0;
}

static void chain_start(struct gv_chain *c)
{
	c->nseg = c->n_out = c->ndesc = 0;
	c->out_len = c->in_len = 0;
}

/* The table an indirect descriptor points at: checked and translated. */
static void *indirect_table(struct gv_vqd *d, uint64_t addr, uint32_t len, uint32_t *n)
{
	void *t;

	if (len == 0 || len % 16 || len / 16 > GV_CHAIN_MAX_SEGS)
		return NULL;
	*n = len / 16;
	t = d->xlate(d->xctx, addr, len);
	/* Descriptors are read in place: the table must be aligned (spec: 16). */
	return t && (uintptr_t)t % 16 == 0 ? t : NULL;
}

static int split_take_indirect(struct gv_vqd *d, struct gv_chain *c, uint64_t addr, uint32_t len)
{
	struct gv_split_desc *tbl;
	uint32_t n, i = 0;

	tbl = indirect_table(d, addr, len, &n);
	if (!tbl)
		return -1;
	for (uint32_t count = 0;; count++) {
		uint16_t flags = gv_load16(&tbl[i].flags);

		if (count == n || (flags & GV_DESC_F_INDIRECT))
			return -1;
		if (add_seg(d, c, gv_load64(&tbl[i].addr), gv_load32(&tbl[i].len),
			    flags & GV_DESC_F_WRITE))
			return -1;
		if (!(flags & GV_DESC_F_NEXT))
			return 0;
		i = gv_load16(&tbl[i].next);
		if (i >= n)
			return -1;
	}
}

/*
 * Read the driver's avail index again, once everything up to the cached
 * one was taken. Returns the entries now available, or -1 (bad index:
 * more than the ring ahead, the queue breaks).
 */
int gv_vqd_split_refresh_avail(struct gv_vqd *d)
{
	uint16_t avail = gv_load16(&d->s.avail->idx);

	if (avail == d->s.last_avail) {
		if (!(d->features & GV_VQ_F_EVENT_IDX) || !d->kick_enabled)
			return 0;
		/* Going idle: ask for a kick at our position, then look again. */
		split_set_avail_event(d, d->s.last_avail);
		gv_mb(d->barrier);
		avail = gv_load16(&d->s.avail->idx);
		if (avail == d->s.last_avail)
			return 0;
	}
	if ((uint16_t)(avail - d->s.last_avail) > d->num)
		return -1;
	/* The index before the entries and descriptors it exposes. */
	gv_rmb(d->barrier);
	d->s.avail_cache = avail;
	return 1;
}

static int split_take(struct gv_vqd *d, struct gv_chain *c)
{
	uint32_t i;

	if (d->s.last_avail == d->s.avail_cache) {
		int r = gv_vqd_split_refresh_avail(d);

		if (r < 0)
			BAD_CHAIN(d);
		if (r == 0)
			return 0;
	}
	i = gv_load16(&d->s.avail->ring[d->s.last_avail & d->mask]);
	if (i >= d->num)
		BAD_CHAIN(d);
	c->id = (uint16_t)i;
	{
		struct gv_split_desc *desc = &d->s.desc[i];
		uint16_t flags = gv_load16(&desc->flags);

		if (GV_LIKELY(!(flags & (GV_DESC_F_NEXT | GV_DESC_F_INDIRECT)))) {
			if (chain_one(d, c, gv_load64(&desc->addr), gv_load32(&desc->len), flags))
				BAD_CHAIN(d);
			d->s.last_avail++;
			return 1;
		}
	}
	/* Longer chains: the general walk (reads the head again). */
	chain_start(c);
	for (;;) {
		struct gv_split_desc *desc = &d->s.desc[i];
		uint16_t flags = gv_load16(&desc->flags);
		uint64_t addr = gv_load64(&desc->addr);
		uint32_t len = gv_load32(&desc->len);

		if (c->ndesc++ == d->num)
			BAD_CHAIN(d); /* longer than the ring: a loop */
		if (flags & GV_DESC_F_INDIRECT) {
			if ((flags & GV_DESC_F_NEXT) || c->nseg || split_take_indirect(d, c, addr, len))
				BAD_CHAIN(d);
			break;
		}
		if (add_seg(d, c, addr, len, flags & GV_DESC_F_WRITE))
			BAD_CHAIN(d);
		if (!(flags & GV_DESC_F_NEXT))
			break;
		i = gv_load16(&desc->next);
		if (i >= d->num)
			BAD_CHAIN(d);
	}
	d->s.last_avail++;
	return 1;
}

static void packed_advance(uint16_t *pos, uint8_t *wrap, uint32_t by, uint32_t num)
{
	uint32_t p = *pos + by;

	while (p >= num) {
		p -= num;
		*wrap ^= 1;
	}
	*pos = (uint16_t)p;
}

static int packed_take(struct gv_vqd *d, struct gv_chain *c)
{
	uint16_t pos = d->p.avail_idx, id = 0;
	uint8_t wrap = d->p.avail_wrap;
	uint16_t head_flags = gv_load16(&d->p.desc[pos].flags);

	if (!packed_is_avail(head_flags, wrap)) {
		if (!(d->features & GV_VQ_F_EVENT_IDX) || !d->kick_enabled)
			return 0;
		gv_vqd_packed_set_dev_event(d, true, (uint16_t)(pos | (wrap << 15)), GV_EVENT_F_DESC);
		gv_mb(d->barrier);
		head_flags = gv_load16(&d->p.desc[pos].flags);
		if (!packed_is_avail(head_flags, wrap))
			return 0;
	}
	/* The head's flags before the rest of the chain. */
	gv_rmb(d->barrier);
	if (GV_LIKELY(!(head_flags & (GV_DESC_F_NEXT | GV_DESC_F_INDIRECT)))) {
		struct gv_packed_desc *desc = &d->p.desc[pos];

		if (chain_one(d, c, gv_load64(&desc->addr), gv_load32(&desc->len), head_flags))
			BAD_CHAIN(d);
		c->id = gv_load16(&desc->id);
		if (++pos == d->num) {
			pos = 0;
			d->p.avail_wrap = wrap ^ 1;
		}
		d->p.avail_idx = pos;
		return 1;
	}
	/* Longer chains: the general walk (reads the head again). */
	chain_start(c);
	for (;;) {
		struct gv_packed_desc *desc = &d->p.desc[pos];
		uint16_t flags = gv_load16(&desc->flags);
		uint64_t addr = gv_load64(&desc->addr);
		uint32_t len = gv_load32(&desc->len);

		id = gv_load16(&desc->id);
		if (c->ndesc++ == d->num)
			BAD_CHAIN(d);
		packed_advance(&pos, &wrap, 1, d->num);
		if (flags & GV_DESC_F_INDIRECT) {
			struct gv_packed_desc *tbl;
			uint32_t n;

			if ((flags & GV_DESC_F_NEXT) || c->nseg)
				BAD_CHAIN(d);
			tbl = indirect_table(d, addr, len, &n);
			if (!tbl)
				BAD_CHAIN(d);
			for (uint32_t k = 0; k < n; k++) {
				uint16_t tf = gv_load16(&tbl[k].flags);

				if ((tf & GV_DESC_F_INDIRECT) ||
				    add_seg(d, c, gv_load64(&tbl[k].addr), gv_load32(&tbl[k].len),
					    tf & GV_DESC_F_WRITE))
					BAD_CHAIN(d);
			}
			break;
		}
		if (add_seg(d, c, addr, len, flags & GV_DESC_F_WRITE))
			BAD_CHAIN(d);
		if (!(flags & GV_DESC_F_NEXT))
			break;
	}
	c->id = id; /* the buffer id travels in the chain's last descriptor */
	d->p.avail_idx = pos;
	d->p.avail_wrap = wrap;
	return 1;
}

int gv_vqd_take(struct gv_vqd *d, struct gv_chain *c)
{
	if (d->broken)
		return -EIO;
	return d->layout == GV_LAYOUT_SPLIT ? split_take(d, c) : packed_take(d, c);
}

uint32_t gv_vqd_avail_count(struct gv_vqd *d, uint32_t max)
{
	uint32_t count = 0, steps = 0;
	uint16_t pos;
	uint8_t wrap;

	if (d->broken)
		return 0;
	if (d->layout == GV_LAYOUT_SPLIT) {
		uint16_t n = (uint16_t)(gv_load16(&d->s.avail->idx) - d->s.last_avail);

		if (n > d->num)
			n = (uint16_t)d->num;
		return n < max ? n : max;
	}
	pos = d->p.avail_idx;
	wrap = d->p.avail_wrap;
	while (count < max && steps < d->num) {
		uint16_t flags = gv_load16(&d->p.desc[pos].flags);

		if (!packed_is_avail(flags, wrap))
			break;
		gv_rmb(d->barrier);
		/* Skip the chain's other descriptors: one packet per head. */
		while ((flags & GV_DESC_F_NEXT) && ++steps < d->num) {
			packed_advance(&pos, &wrap, 1, d->num);
			flags = gv_load16(&d->p.desc[pos].flags);
		}
		packed_advance(&pos, &wrap, 1, d->num);
		steps++;
		count++;
	}
	return count;
}

static void split_put_used(struct gv_vqd *d, uint16_t at, uint16_t id, uint32_t len)
{
	struct gv_split_used_elem *e = &d->s.used->ring[at & d->mask];

	gv_store32(&e->id, id);
	gv_store32(&e->len, len);
	if (gv_log_on(&d->log))
		gv_log_mark(&d->log, d->addrs.device + 4 + 8ull * (at & d->mask), 8);
}

/* Write a used descriptor; the first of a batch gets its flags at publish. */
static void packed_put_used(struct gv_vqd *d, uint16_t id, uint32_t len, uint32_t ndesc)
{
	uint16_t pos = d->p.used_idx;
	struct gv_packed_desc *desc = &d->p.desc[pos];
	uint16_t flags = d->p.used_wrap ? (GV_DESC_F_AVAIL | GV_DESC_F_USED) : 0;

	gv_store16(&desc->id, id);
	gv_store32(&desc->len, len);
	if (!d->p.have_staged) {
		d->p.have_staged = 1;
		d->p.staged_pos = pos;
		d->p.staged_flags = flags;
	} else {
		gv_store16(&desc->flags, flags);
	}
	if (gv_log_on(&d->log))
		gv_log_mark(&d->log, d->addrs.desc + 16ull * pos, 16);
	packed_advance(&d->p.used_idx, &d->p.used_wrap, ndesc, d->num);
	d->p.staged_slots += ndesc;
}

void gv_vqd_push(struct gv_vqd *d, uint16_t id, uint16_t ndesc, uint32_t len)
{
	if (d->layout == GV_LAYOUT_SPLIT) {
		split_put_used(d, d->s.used_idx, id, len);
		d->s.used_idx++;
	} else {
		packed_put_used(d, id, len, ndesc);
	}
}

void gv_vqd_push_in_order_batch(struct gv_vqd *d, uint16_t last_id, uint32_t last_len,
				uint16_t count, uint32_t ndesc)
{
	if (count == 0)
		return;
	if (d->layout == GV_LAYOUT_SPLIT) {
		split_put_used(d, (uint16_t)(d->s.used_idx + count - 1), last_id, last_len);
		d->s.used_idx = (uint16_t)(d->s.used_idx + count);
	} else {
		packed_put_used(d, last_id, last_len, ndesc);
	}
}

void gv_vqd_publish(struct gv_vqd *d)
{
	/* Data and used entries logged before the index/flags publish them. */
	if (gv_log_on(&d->log))
		gv_log_flush(&d->log);
	if (d->layout == GV_LAYOUT_SPLIT) {
		if (d->s.used_idx == d->s.pub_used)
			return;
		gv_wmb(d->barrier);
		gv_store16(&d->s.used->idx, d->s.used_idx);
		d->s.pub_used = d->s.used_idx;
		/* The index itself was just written: log it after the write. */
		if (gv_log_on(&d->log))
			gv_log_mark_now(&d->log, d->addrs.device + 2, 2);
		return;
	}
	if (!d->p.have_staged)
		return;
	gv_wmb(d->barrier);
	gv_store16(&d->p.desc[d->p.staged_pos].flags, d->p.staged_flags);
	d->p.have_staged = 0;
	if (gv_log_on(&d->log))
		gv_log_mark_now(&d->log, d->addrs.desc + 16ull * d->p.staged_pos + 14, 2);
	d->p.pub_slots += d->p.staged_slots;
	d->p.staged_slots = 0;
	d->p.pub_pos = d->p.used_idx;
	d->p.pub_wrap = d->p.used_wrap;
}

bool gv_vqd_need_interrupt(struct gv_vqd *d)
{
	if (d->layout == GV_LAYOUT_SPLIT) {
		uint16_t old = d->s.sig_used, now = d->s.pub_used;

		if (old == now)
			return false;
		d->s.sig_used = now;
		/* Our used idx store before the load of the driver's wish. */
		gv_mb(d->barrier);
		if (d->features & GV_VQ_F_EVENT_IDX)
			return gv_need_event(gv_load16(&d->s.avail->ring[d->num]), now, old);
		return !(gv_load16(&d->s.avail->flags) & GV_AVAIL_F_NO_INTERRUPT);
	} else {
		uint32_t slots = d->p.pub_slots;
		uint16_t flags, off_wrap, event;

		if (slots == 0)
			return false;
		d->p.pub_slots = 0;
		gv_mb(d->barrier);
		flags = gv_load16(&d->p.drv->flags);
		if (flags == GV_EVENT_F_DISABLE)
			return false;
		if (flags != GV_EVENT_F_DESC || !(d->features & GV_VQ_F_EVENT_IDX) || slots >= d->num)
			return true;
		off_wrap = gv_load16(&d->p.drv->off_wrap);
		event = off_wrap & 0x7fffu;
		if ((off_wrap >> 15) != d->p.pub_wrap)
			event = (uint16_t)(event - d->num);
		return gv_need_event(event, d->p.pub_pos, (uint16_t)(d->p.pub_pos - slots));
	}
}

void gv_vqd_enable_kick(struct gv_vqd *d, bool enable)
{
	d->kick_enabled = enable;
	if (d->layout == GV_LAYOUT_SPLIT) {
		if (d->features & GV_VQ_F_EVENT_IDX)
			/* Disabled: an event half the index space away. */
			split_set_avail_event(d, (uint16_t)(d->s.last_avail + (enable ? 0 : 0x8000u)));
		else
			split_set_used_flags(d, enable ? 0 : GV_USED_F_NO_NOTIFY);
		return;
	}
	if (!enable)
		gv_vqd_packed_set_dev_event(d, false, 0, GV_EVENT_F_DISABLE);
	else if (d->features & GV_VQ_F_EVENT_IDX)
		gv_vqd_packed_set_dev_event(d, true, (uint16_t)(d->p.avail_idx | (d->p.avail_wrap << 15)),
				     GV_EVENT_F_DESC);
	else
		gv_vqd_packed_set_dev_event(d, false, 0, GV_EVENT_F_ENABLE);
}

/* Copy between `buf` and the chain's segments of one direction. */
static uint32_t chain_copy(struct gv_vqd *d, const struct gv_chain *c, bool write, uint32_t off,
			   void *buf, uint32_t len)
{
	uint32_t done = 0;
	uint16_t first = write ? c->n_out : 0, end = write ? c->nseg : c->n_out;

	for (uint16_t i = first; i < end && done < len; i++) {
		const struct gv_chain_seg *s = &c->seg[i];
		uint32_t n;

		if (off >= s->len) {
			off -= s->len;
			continue;
		}
		n = s->len - off < len - done ? s->len - off : len - done;
		if (write) {
			memcpy((uint8_t *)s->ptr + off, (uint8_t *)buf + done, n);
			gv_log_mark(&d->log, s->addr + off, n);
		} else {
			memcpy((uint8_t *)buf + done, (uint8_t *)s->ptr + off, n);
		}
		done += n;
		off = 0;
	}
	return done;
}

uint32_t gv_vqd_write(struct gv_vqd *d, const struct gv_chain *c, uint32_t off, const void *src,
		      uint32_t len)
{
	return chain_copy(d, c, true, off, (void *)src, len);
}

uint32_t gv_vqd_read(struct gv_vqd *d, const struct gv_chain *c, uint32_t off, void *dst,
		     uint32_t len)
{
	return chain_copy(d, c, false, off, dst, len);
}

void gv_vqd_set_log(struct gv_vqd *d, uint64_t *bitmap, uint64_t bits)
{
	gv_log_set(&d->log, bitmap, bits);
}

void gv_vqd_log_write(struct gv_vqd *d, uint64_t addr, uint64_t len)
{
	gv_log_mark(&d->log, addr, len);
}
