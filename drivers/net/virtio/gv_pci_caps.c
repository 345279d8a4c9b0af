/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci_caps.c - the virtio-pci capability parser (see gv_pci_caps.h):
 * the walk over the PCI capability list, the choice of the common /
 * notify / ISR / device capability, and the bounds checks of each region
 * against its BAR. No DPDK: config space comes through a callback, and
 * errors are returned as text for the caller to log.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "gv_pci_caps.h"

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return ret;
}

/* Config space is little-endian whatever the CPU. */
static uint16_t le16(const uint8_t *b)
{
	return (uint16_t)(b[0] | (b[1] << 8));
}

static uint32_t le32(const uint8_t *b)
{
	return (uint32_t)b[0] | ((uint32_t)b[1] << 8) | ((uint32_t)b[2] << 16) |
	       ((uint32_t)b[3] << 24);
}

static int rd_at(gv_pci_cfg_read_fn rd, void *ctx, void *buf, uint32_t len, uint32_t off)
{
	if (off + len > GV_PCI_CFG_SIZE)
		return -EINVAL;
	return rd(ctx, buf, len, off) ? -EIO : 0;
}

static const char *type_name(uint8_t t)
{
	switch (t) {
	case GV_PCI_CAP_COMMON:
		return "common config";
	case GV_PCI_CAP_NOTIFY:
		return "notify";
	case GV_PCI_CAP_ISR:
		return "ISR";
	case GV_PCI_CAP_DEVICE:
		return "device config";
	default:
		return "unknown";
	}
}

/* One vendor capability at `pos` (its id and next already read). */
static int read_vcap(gv_pci_cfg_read_fn rd, void *ctx, uint8_t pos, struct gv_pci_caps *caps,
		     char *err, size_t errlen)
{
	uint8_t b[GV_PCI_NOTIFY_CAP_LEN];
	struct gv_pci_vcap *v;
	uint8_t cap_len, type;

	if (rd_at(rd, ctx, b, 4, pos))
		return fail(err, errlen, -EIO, "cannot read capability at 0x%02x", pos);
	cap_len = b[2];
	type = b[3];
	/* Vendor capabilities of other kinds (PCI cfg access, shared memory) are not ours. */
	if (cap_len < 4 || type < GV_PCI_CAP_COMMON || type > GV_PCI_CAP_DEVICE)
		return 0;
	if (cap_len < GV_PCI_VCAP_LEN || (type == GV_PCI_CAP_NOTIFY && cap_len < GV_PCI_NOTIFY_CAP_LEN))
		return fail(err, errlen, -EINVAL,
			    "virtio %s capability at 0x%02x is %u bytes, shorter than its structure (%u)",
			    type_name(type), pos, cap_len,
			    type == GV_PCI_CAP_NOTIFY ? GV_PCI_NOTIFY_CAP_LEN : GV_PCI_VCAP_LEN);
	if ((uint32_t)pos + cap_len > GV_PCI_CFG_SIZE)
		return fail(err, errlen, -EINVAL,
			    "virtio %s capability at 0x%02x (%u bytes) runs past config space",
			    type_name(type), pos, cap_len);
	if (caps->n_vcaps >= GV_PCI_MAX_VCAPS)
		return 0; /* the first GV_PCI_MAX_VCAPS are plenty: the first usable one wins */
	if (rd_at(rd, ctx, b, type == GV_PCI_CAP_NOTIFY ? GV_PCI_NOTIFY_CAP_LEN : GV_PCI_VCAP_LEN,
		  pos))
		return fail(err, errlen, -EIO, "cannot read capability at 0x%02x", pos);
	v = &caps->vcap[caps->n_vcaps++];
	memset(v, 0, sizeof(*v));
	v->pos = pos;
	v->cap_len = cap_len;
	v->cfg_type = type;
	v->bar = b[4];
	v->offset = le32(b + 8);
	v->length = le32(b + 12);
	if (type == GV_PCI_CAP_NOTIFY)
		v->notify_mult = le32(b + 16);
	return 0;
}

int gv_pci_caps_walk(gv_pci_cfg_read_fn rd, void *ctx, struct gv_pci_caps *caps, char *err,
		     size_t errlen)
{
	uint8_t seen[GV_PCI_CFG_SIZE / 4] = { 0 };
	uint8_t b[4], pos;
	int ret;

	memset(caps, 0, sizeof(*caps));
	if (err && errlen)
		err[0] = '\0';
	if (rd_at(rd, ctx, b, 2, GV_PCI_CFG_STATUS))
		return fail(err, errlen, -EIO, "cannot read the PCI status register");
	if (!(le16(b) & GV_PCI_STATUS_CAP_LIST))
		return 0;
	if (rd_at(rd, ctx, b, 1, GV_PCI_CFG_CAP_PTR))
		return fail(err, errlen, -EIO, "cannot read the capability pointer");
	/* The two low bits of every capability pointer are reserved. */
	pos = b[0] & 0xfc;
	while (pos) {
		if (pos < 0x40)
			return fail(err, errlen, -EINVAL,
				    "capability pointer 0x%02x points into the PCI header", pos);
		if (seen[pos / 4])
			return fail(err, errlen, -EINVAL,
				    "capability list loops back to 0x%02x after %u capabilities", pos,
				    caps->n_caps);
		seen[pos / 4] = 1;
		caps->n_caps++;
		if (rd_at(rd, ctx, b, 4, pos))
			return fail(err, errlen, -EIO, "cannot read capability at 0x%02x", pos);
		if (b[0] == GV_PCI_CAP_ID_VNDR) {
			ret = read_vcap(rd, ctx, pos, caps, err, errlen);
			if (ret)
				return ret;
		} else if (b[0] == GV_PCI_CAP_ID_MSIX && !caps->has_msix) {
			uint16_t ctl = le16(b + 2);

			caps->has_msix = true;
			caps->msix_pos = pos;
			caps->msix_table_size = (uint16_t)((ctl & GV_PCI_MSIX_TABLE_MASK) + 1);
			caps->msix_enabled = (ctl & GV_PCI_MSIX_ENABLE) != 0;
		}
		pos = b[1] & 0xfc;
	}
	return 0;
}

/* Per type: minimum length and offset alignment the structure needs. */
static void type_rules(uint8_t type, uint32_t *min_len, uint32_t *align)
{
	switch (type) {
	case GV_PCI_CAP_COMMON:
		*min_len = GV_PCI_COMMON_MIN_LEN;
		*align = 4;
		break;
	case GV_PCI_CAP_NOTIFY:
		*min_len = 2;
		*align = 2;
		break;
	case GV_PCI_CAP_ISR:
		*min_len = 1;
		*align = 1;
		break;
	default: /* device config: fields are read at their natural width */
		*min_len = 1;
		*align = 4;
		break;
	}
}

/* Check the chosen capability of one type against its BAR. */
static int check_region(const struct gv_pci_vcap *v, const uint64_t bar_len[GV_PCI_BARS],
			char *err, size_t errlen)
{
	uint32_t min_len, align;

	type_rules(v->cfg_type, &min_len, &align);
	if (!gv_pci_in_bounds(bar_len[v->bar], v->offset, v->length))
		return fail(err, errlen, -EINVAL,
			    "virtio %s capability at 0x%02x describes offset 0x%x length 0x%x, "
			    "outside BAR %u (0x%llx bytes)",
			    type_name(v->cfg_type), v->pos, v->offset, v->length, v->bar,
			    (unsigned long long)bar_len[v->bar]);
	if (v->length < min_len)
		return fail(err, errlen, -EINVAL,
			    "virtio %s capability at 0x%02x: length 0x%x, below the 0x%x bytes of "
			    "the structure",
			    type_name(v->cfg_type), v->pos, v->length, min_len);
	if (v->offset % align)
		return fail(err, errlen, -EINVAL,
			    "virtio %s capability at 0x%02x: offset 0x%x is not %u-byte aligned",
			    type_name(v->cfg_type), v->pos, v->offset, align);
	if (v->cfg_type == GV_PCI_CAP_NOTIFY && v->notify_mult &&
	    ((v->notify_mult & 1) || (v->notify_mult & (v->notify_mult - 1))))
		return fail(err, errlen, -EINVAL,
			    "virtio notify capability at 0x%02x: notify_off_multiplier %u is "
			    "neither 0 nor an even power of two",
			    v->pos, v->notify_mult);
	return 0;
}

int gv_pci_caps_layout(const struct gv_pci_caps *caps, const uint64_t bar_len[GV_PCI_BARS],
		       struct gv_pci_layout *out, char *err, size_t errlen)
{
	const struct gv_pci_vcap *pick[GV_PCI_CAP_DEVICE + 1] = { NULL };
	bool present[GV_PCI_CAP_DEVICE + 1] = { false };
	bool any_usable = false;
	int ret;

	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	if (caps->n_vcaps == 0)
		return fail(err, errlen, -ENOENT, "no virtio capabilities");
	for (uint32_t i = 0; i < caps->n_vcaps && i < GV_PCI_MAX_VCAPS; i++) {
		const struct gv_pci_vcap *v = &caps->vcap[i];

		if (v->cfg_type < GV_PCI_CAP_COMMON || v->cfg_type > GV_PCI_CAP_DEVICE)
			continue;
		present[v->cfg_type] = true;
		/* BAR numbers above 5 are reserved: such a capability is ignored. */
		if (v->bar >= GV_PCI_BARS || bar_len[v->bar] == 0)
			continue;
		any_usable = true;
		if (!pick[v->cfg_type])
			pick[v->cfg_type] = v;
	}
	if (!any_usable)
		return fail(err, errlen, -ENODEV,
			    "virtio capabilities point only at BARs that are not mapped");
	for (uint8_t t = GV_PCI_CAP_COMMON; t <= GV_PCI_CAP_DEVICE; t++) {
		if (!pick[t])
			return fail(err, errlen, -EINVAL, "no usable virtio %s capability%s",
				    type_name(t), present[t] ? " (only in unmapped BARs)" : "");
		ret = check_region(pick[t], bar_len, err, errlen);
		if (ret)
			return ret;
	}
	out->common = (struct gv_pci_region){ pick[GV_PCI_CAP_COMMON]->bar,
					      pick[GV_PCI_CAP_COMMON]->offset,
					      pick[GV_PCI_CAP_COMMON]->length };
	out->notify = (struct gv_pci_region){ pick[GV_PCI_CAP_NOTIFY]->bar,
					      pick[GV_PCI_CAP_NOTIFY]->offset,
					      pick[GV_PCI_CAP_NOTIFY]->length };
	out->isr = (struct gv_pci_region){ pick[GV_PCI_CAP_ISR]->bar, pick[GV_PCI_CAP_ISR]->offset,
					   pick[GV_PCI_CAP_ISR]->length };
	out->device = (struct gv_pci_region){ pick[GV_PCI_CAP_DEVICE]->bar,
					      pick[GV_PCI_CAP_DEVICE]->offset,
					      pick[GV_PCI_CAP_DEVICE]->length };
	out->notify_mult = pick[GV_PCI_CAP_NOTIFY]->notify_mult;
	return 0;
}

int gv_pci_notify_offset(const struct gv_pci_layout *l, uint16_t queue_notify_off, uint32_t width,
			 uint32_t *off)
{
	uint64_t o = (uint64_t)queue_notify_off * l->notify_mult;

	if (!gv_pci_in_bounds(l->notify.length, o, width))
		return -EINVAL;
	*off = (uint32_t)o;
	return 0;
}
