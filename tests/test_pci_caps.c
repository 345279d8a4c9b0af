/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_pci_caps.c - the virtio-pci capability parser
 * (drivers/net/virtio/gv_pci_caps.c) on synthetic config spaces, no
 * device and no DPDK:
 *   qemu           a QEMU-like modern virtio-net: every region, MSI-X,
 *                  doorbell offsets up to the end of the notify region
 *   list shapes    no list, MSI-X only (legacy), loops, pointers into
 *                  the header, reserved pointer bits, capabilities past
 *                  config space, short virtio capabilities, other vendor
 *                  capability types, more capabilities than remembered
 *   BAR bounds     regions past the BAR, offset + length wrapping 32 bits,
 *                  exact fit, unmapped / reserved BARs skipped (first
 *                  usable instance), none usable, missing types
 *   structure      minimum lengths, alignment, notify_off_multiplier
 *   errors         a failing config read
 *   random         20000 random config spaces: the walk ends, and every
 *                  layout it accepts lies inside the BARs, aligned
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gv_pci_caps.h"

struct cfg {
	uint8_t b[GV_PCI_CFG_SIZE];
	uint8_t last; /* last capability linked, 0: none */
	int fail_off; /* a read covering this offset fails; -1: never */
};

static int cfg_rd(void *ctx, void *buf, uint32_t len, uint32_t off)
{
	struct cfg *c = ctx;

	assert_true(off + len <= GV_PCI_CFG_SIZE); /* the parser never reads past config space */
	if (c->fail_off >= 0 && (uint32_t)c->fail_off >= off && (uint32_t)c->fail_off < off + len)
		return -EIO;
	memcpy(buf, c->b + off, len);
	return 0;
}

static void put16(uint8_t *b, uint16_t v)
{
	b[0] = (uint8_t)v;
	b[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static void cfg_init(struct cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->fail_off = -1;
	put16(c->b, 0x1af4);
	put16(c->b + 2, 0x1041);
	put16(c->b + GV_PCI_CFG_STATUS, GV_PCI_STATUS_CAP_LIST);
}

/* Append a capability header at pos to the list. */
static void link_cap(struct cfg *c, uint8_t pos, uint8_t id)
{
	c->b[pos] = id;
	c->b[pos + 1] = 0;
	if (c->last)
		c->b[c->last + 1] = pos;
	else
		c->b[GV_PCI_CFG_CAP_PTR] = pos;
	c->last = pos;
}

static void add_vcap(struct cfg *c, uint8_t pos, uint8_t type, uint8_t bar, uint32_t off,
		     uint32_t len, uint32_t mult)
{
	link_cap(c, pos, GV_PCI_CAP_ID_VNDR);
	c->b[pos + 2] = type == GV_PCI_CAP_NOTIFY ? GV_PCI_NOTIFY_CAP_LEN : GV_PCI_VCAP_LEN;
	c->b[pos + 3] = type;
	c->b[pos + 4] = bar;
	put32(c->b + pos + 8, off);
	put32(c->b + pos + 12, len);
	if (type == GV_PCI_CAP_NOTIFY)
		put32(c->b + pos + 16, mult);
}

static void add_msix(struct cfg *c, uint8_t pos, uint16_t vectors, bool enabled)
{
	link_cap(c, pos, GV_PCI_CAP_ID_MSIX);
	put16(c->b + pos + 2, (uint16_t)((vectors - 1) | (enabled ? GV_PCI_MSIX_ENABLE : 0)));
}

#define BAR4_LEN 0x4000

/* QEMU's virtio-net-pci (modern): MSI-X, then the regions in BAR 4. */
static void qemu_modern(struct cfg *c)
{
	cfg_init(c);
	add_msix(c, 0x98, 4, false);
	add_vcap(c, 0x84, GV_PCI_CAP_COMMON, 4, 0x0000, 0x1000, 0);
	add_vcap(c, 0x74, GV_PCI_CAP_ISR, 4, 0x1000, 0x1000, 0);
	add_vcap(c, 0x64, GV_PCI_CAP_DEVICE, 4, 0x2000, 0x1000, 0);
	add_vcap(c, 0x50, GV_PCI_CAP_NOTIFY, 4, 0x3000, 0x1000, 4);
	add_vcap(c, 0xa4, GV_PCI_CAP_PCI_CFG, 0, 0, 0, 0);
	c->b[0xa4 + 2] = 20;
}

static const uint64_t bars_qemu[GV_PCI_BARS] = { 0, 0x1000, 0, 0, BAR4_LEN, 0 };

static int walk_layout(struct cfg *c, const uint64_t *bars, struct gv_pci_caps *caps,
		       struct gv_pci_layout *l, char *err)
{
	int ret = gv_pci_caps_walk(cfg_rd, c, caps, err, 256);

	if (ret)
		return ret;
	return gv_pci_caps_layout(caps, bars, l, err, 256);
}

static void t_qemu(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];
	uint32_t off;

	(void)state;
	qemu_modern(&c);
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), 0);
	assert_int_equal(caps.n_caps, 6);
	assert_int_equal(caps.n_vcaps, 4); /* the PCI cfg access capability is not ours */
	assert_true(caps.has_msix);
	assert_int_equal(caps.msix_pos, 0x98);
	assert_int_equal(caps.msix_table_size, 4);
	assert_false(caps.msix_enabled);
	assert_int_equal(l.common.bar, 4);
	assert_int_equal(l.common.offset, 0);
	assert_int_equal(l.common.length, 0x1000);
	assert_int_equal(l.isr.offset, 0x1000);
	assert_int_equal(l.device.offset, 0x2000);
	assert_int_equal(l.notify.offset, 0x3000);
	assert_int_equal(l.notify.length, 0x1000);
	assert_int_equal(l.notify_mult, 4);

	assert_int_equal(gv_pci_notify_offset(&l, 3, 2, &off), 0);
	assert_int_equal(off, 12);
	/* The last doorbell that fits: 0x3ff * 4 + 4 == 0x1000. */
	assert_int_equal(gv_pci_notify_offset(&l, 0x3ff, 4, &off), 0);
	assert_int_equal(off, 0xffc);
	assert_int_equal(gv_pci_notify_offset(&l, 0x400, 2, &off), -EINVAL);
	assert_int_equal(gv_pci_notify_offset(&l, 0xffff, 2, &off), -EINVAL);

	/* MSI-X enabled, a full table. */
	put16(c.b + 0x98 + 2, 0x7ff | GV_PCI_MSIX_ENABLE);
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), 0);
	assert_true(caps.msix_enabled);
	assert_int_equal(caps.msix_table_size, 2048);
}

static void t_no_list(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	put16(c.b + GV_PCI_CFG_STATUS, 0); /* no capability list: the pointer is not looked at */
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -ENOENT);
	assert_int_equal(caps.n_caps, 0);
	assert_false(caps.has_msix);

	/* A list that is empty. */
	cfg_init(&c);
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -ENOENT);
}

/* A legacy (transitional, modern disabled) device: MSI-X and no virtio caps. */
static void t_legacy_msix_only(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	cfg_init(&c);
	add_msix(&c, 0x40, 3, true);
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -ENOENT);
	assert_true(caps.has_msix);
	assert_true(caps.msix_enabled);
	assert_int_equal(caps.msix_table_size, 3);
}

static void t_loops(void **state)
{
	struct gv_pci_caps caps;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	c.b[0xa4 + 1] = 0x84; /* the last capability points back into the list */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "loops"));

	cfg_init(&c);
	add_msix(&c, 0x50, 2, false);
	c.b[0x50 + 1] = 0x50; /* itself */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "loops"));
}

static void t_bad_pointers(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	cfg_init(&c);
	c.b[GV_PCI_CFG_CAP_PTR] = 0x20;
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "header"));

	qemu_modern(&c);
	c.b[0x74 + 1] = 0x3c; /* mid-list, into the header */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);

	/* The two low pointer bits are reserved and ignored. */
	qemu_modern(&c);
	c.b[GV_PCI_CFG_CAP_PTR] = 0x98 | 3;
	c.b[0x84 + 1] = 0x74 | 1;
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), 0);
	assert_int_equal(caps.n_vcaps, 4);
	assert_int_equal(l.notify_mult, 4);
}

static void t_past_config_space(void **state)
{
	struct gv_pci_caps caps;
	struct cfg c;
	char err[256];

	(void)state;
	cfg_init(&c);
	add_vcap(&c, 0xf4, GV_PCI_CAP_COMMON, 4, 0, 0x1000, 0); /* 16 bytes from 0xf4 */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "past config space"));

	cfg_init(&c);
	add_vcap(&c, 0xec, GV_PCI_CAP_NOTIFY, 4, 0, 0x1000, 4); /* 20 bytes from 0xec: 0x100 */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), 0);
	assert_int_equal(caps.n_vcaps, 1);
	assert_int_equal(caps.vcap[0].notify_mult, 4);

	/* The last dword of config space holds a capability header. */
	cfg_init(&c);
	add_msix(&c, 0xfc, 8, false);
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), 0);
	assert_int_equal(caps.msix_table_size, 8);
}

static void t_short_vcaps(void **state)
{
	struct gv_pci_caps caps;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	c.b[0x84 + 2] = 12; /* common shorter than struct virtio_pci_cap */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "shorter"));

	qemu_modern(&c);
	c.b[0x50 + 2] = 16; /* notify without its multiplier */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "notify"));

	/* Vendor capabilities of other kinds, even odd ones, are skipped. */
	qemu_modern(&c);
	c.b[0xa4 + 2] = 3;
	c.b[0xa4 + 3] = 8; /* shared memory type, nonsense length */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), 0);
	assert_int_equal(caps.n_vcaps, 4);
}

/*
 * A hostile list: a capability at every dword, each overlapping the next
 * (their BAR bytes read as 0x09, a reserved BAR). The walk ends, keeps
 * the first GV_PCI_MAX_VCAPS, and nothing is usable.
 */
static void t_many_vcaps(void **state)
{
	static const uint8_t types[] = { GV_PCI_CAP_COMMON, GV_PCI_CAP_ISR, GV_PCI_CAP_DEVICE };
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];
	unsigned int n = 0;

	(void)state;
	cfg_init(&c);
	c.b[GV_PCI_CFG_CAP_PTR] = 0x40;
	for (uint32_t pos = 0x40; pos + GV_PCI_VCAP_LEN <= GV_PCI_CFG_SIZE; pos += 4, n++) {
		c.b[pos] = GV_PCI_CAP_ID_VNDR;
		c.b[pos + 1] = pos + GV_PCI_VCAP_LEN + 4 <= GV_PCI_CFG_SIZE ? (uint8_t)(pos + 4) : 0;
		c.b[pos + 2] = GV_PCI_VCAP_LEN;
		c.b[pos + 3] = types[n % 3];
	}
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), 0);
	assert_int_equal(caps.n_caps, n);
	assert_true(n > GV_PCI_MAX_VCAPS);
	assert_int_equal(caps.n_vcaps, GV_PCI_MAX_VCAPS);
	assert_int_equal(caps.vcap[0].bar, GV_PCI_CAP_ID_VNDR);
	assert_int_equal(gv_pci_caps_layout(&caps, bars_qemu, &l, err, sizeof(err)), -ENODEV);
}

static void t_bar_bounds(void **state)
{
	uint64_t bars[GV_PCI_BARS] = { 0, 0, 0, 0, BAR4_LEN, 0 };
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	put32(c.b + 0x84 + 8, BAR4_LEN - 0x30); /* common: 0x38 bytes from 0x3fd0 */
	put32(c.b + 0x84 + 12, 0x38);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "common config"));
	assert_non_null(strstr(err, "outside BAR 4"));

	/* offset + length wraps 32 bits: still outside. */
	qemu_modern(&c);
	put32(c.b + 0x64 + 8, 0xfffffff0);
	put32(c.b + 0x64 + 12, 0x20);
	bars[4] = 1ull << 32;
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "device config"));
	bars[4] = (1ull << 32) + 0x10; /* a BAR large enough: fine */
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	assert_int_equal(l.device.offset, 0xfffffff0);

	/* Exactly to the end of the BAR. */
	qemu_modern(&c);
	bars[4] = BAR4_LEN;
	put32(c.b + 0x50 + 12, 0x1000);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	put32(c.b + 0x50 + 12, 0x1001);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "notify"));

	/* A BAR too small for everything. */
	qemu_modern(&c);
	bars[4] = 0x2000;
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
}

static void t_unmapped_bars(void **state)
{
	uint64_t bars[GV_PCI_BARS] = { 0, 0x1000, 0, 0, BAR4_LEN, 0 };
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	/* QEMU's modern-pio-notify: a notify capability in I/O BAR 2 (not mapped) first. */
	qemu_modern(&c);
	add_vcap(&c, 0xc0, GV_PCI_CAP_NOTIFY, 2, 0, 4, 0);
	c.b[GV_PCI_CFG_CAP_PTR] = 0xc0;
	c.b[0xc0 + 1] = 0x98;
	c.b[0xa4 + 1] = 0;
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	assert_int_equal(l.notify.bar, 4);
	assert_int_equal(l.notify_mult, 4);

	/* Nothing mapped: not usable, but not hostile either (legacy fallback). */
	bars[4] = 0;
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -ENODEV);

	/* Reserved BAR numbers are ignored. */
	qemu_modern(&c);
	bars[4] = BAR4_LEN;
	c.b[0x74 + 4] = 6; /* ISR in "BAR 6" */
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "ISR"));
	assert_non_null(strstr(err, "unmapped"));
	c.b[0x50 + 4] = 0xff;
	c.b[0x64 + 4] = 0xff;
	c.b[0x84 + 4] = 0xff;
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -ENODEV);
}

static void t_missing(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	cfg_init(&c);
	add_vcap(&c, 0x40, GV_PCI_CAP_COMMON, 4, 0, 0x1000, 0);
	add_vcap(&c, 0x50, GV_PCI_CAP_DEVICE, 4, 0x2000, 0x100, 0);
	add_vcap(&c, 0x60, GV_PCI_CAP_NOTIFY, 4, 0x3000, 0x1000, 4);
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "no usable virtio ISR"));

	cfg_init(&c);
	add_vcap(&c, 0x40, GV_PCI_CAP_ISR, 4, 0x1000, 1, 0);
	add_vcap(&c, 0x50, GV_PCI_CAP_DEVICE, 4, 0x2000, 0x100, 0);
	add_vcap(&c, 0x60, GV_PCI_CAP_NOTIFY, 4, 0x3000, 0x1000, 4);
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "common config"));
}

static void t_structure_rules(void **state)
{
	static const uint32_t good_mult[] = { 0, 2, 4, 0x1000, 0x80000000u };
	static const uint32_t bad_mult[] = { 1, 3, 6, 12, 0x1001, 0xffffffffu };
	uint64_t bars[GV_PCI_BARS] = { 0, 0, 0, 0, 1ull << 40, 0 };
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];
	uint32_t off;

	(void)state;
	for (size_t i = 0; i < sizeof(good_mult) / sizeof(good_mult[0]); i++) {
		qemu_modern(&c);
		put32(c.b + 0x50 + 16, good_mult[i]);
		assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	}
	for (size_t i = 0; i < sizeof(bad_mult) / sizeof(bad_mult[0]); i++) {
		qemu_modern(&c);
		put32(c.b + 0x50 + 16, bad_mult[i]);
		assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
		assert_non_null(strstr(err, "notify_off_multiplier"));
	}
	/* Multiplier 0: every queue shares the first doorbell. */
	qemu_modern(&c);
	put32(c.b + 0x50 + 16, 0);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	assert_int_equal(gv_pci_notify_offset(&l, 0xffff, 4, &off), 0);
	assert_int_equal(off, 0);
	/* A huge multiplier never wraps into the region. */
	qemu_modern(&c);
	put32(c.b + 0x50 + 16, 0x80000000u);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	assert_int_equal(gv_pci_notify_offset(&l, 0, 2, &off), 0);
	assert_int_equal(gv_pci_notify_offset(&l, 2, 2, &off), -EINVAL);

	/* Minimum lengths. */
	qemu_modern(&c);
	put32(c.b + 0x84 + 12, GV_PCI_COMMON_MIN_LEN - 4);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "below"));
	qemu_modern(&c);
	put32(c.b + 0x50 + 12, 1);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	qemu_modern(&c);
	put32(c.b + 0x74 + 12, 0);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);

	/* Alignment: common and device 4, notify 2, ISR any. */
	qemu_modern(&c);
	put32(c.b + 0x84 + 8, 2);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	assert_non_null(strstr(err, "aligned"));
	qemu_modern(&c);
	put32(c.b + 0x64 + 8, 0x2002);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	qemu_modern(&c);
	put32(c.b + 0x50 + 8, 0x3001);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), -EINVAL);
	qemu_modern(&c);
	put32(c.b + 0x50 + 8, 0x3002);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	qemu_modern(&c);
	put32(c.b + 0x74 + 8, 0x1003);
	assert_int_equal(walk_layout(&c, bars, &caps, &l, err), 0);
	assert_int_equal(l.isr.offset, 0x1003);
}

/* The first usable instance is used: a broken one is refused, not skipped. */
static void t_first_instance(void **state)
{
	struct gv_pci_caps caps;
	struct gv_pci_layout l;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	add_vcap(&c, 0xc0, GV_PCI_CAP_COMMON, 4, 0x100, 0x100, 0); /* a second, later one */
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), 0);
	assert_int_equal(l.common.offset, 0);
	put32(c.b + 0x84 + 12, 0x10000); /* the first is out of its BAR */
	assert_int_equal(walk_layout(&c, bars_qemu, &caps, &l, err), -EINVAL);
}

static void t_read_errors(void **state)
{
	struct gv_pci_caps caps;
	struct cfg c;
	char err[256];

	(void)state;
	qemu_modern(&c);
	c.fail_off = GV_PCI_CFG_STATUS;
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EIO);
	c.fail_off = GV_PCI_CFG_CAP_PTR;
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EIO);
	c.fail_off = 0x74 + 9; /* inside the ISR capability's offset field */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err)), -EIO);
	assert_non_null(strstr(err, "0x74"));
	/* No error text buffer: still fine. */
	assert_int_equal(gv_pci_caps_walk(cfg_rd, &c, &caps, NULL, 0), -EIO);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)rng_state;
}

/* Hostile devices at random: the parser ends, and what it accepts is sound. */
static void t_random(void **state)
{
	unsigned int accepted = 0;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		struct gv_pci_caps caps;
		struct gv_pci_layout l;
		uint64_t bars[GV_PCI_BARS];
		struct cfg c;
		char err[256];
		int ret;

		/* Half from a valid device with a few bytes changed, half pure noise. */
		if (iter % 2) {
			qemu_modern(&c);
			for (int k = rnd() % 8; k >= 0; k--)
				c.b[0x40 + rnd() % 0xc0] = (uint8_t)rnd();
		} else {
			cfg_init(&c);
			for (int i = 0x34; i < GV_PCI_CFG_SIZE; i++)
				c.b[i] = (uint8_t)rnd();
		}
		for (int i = 0; i < GV_PCI_BARS; i++)
			bars[i] = (rnd() % 3) ? (rnd() % 2 ? BAR4_LEN : (uint64_t)rnd()) : 0;
		ret = gv_pci_caps_walk(cfg_rd, &c, &caps, err, sizeof(err));
		assert_true(ret == 0 || ret == -EINVAL);
		if (ret)
			continue;
		assert_true(caps.n_caps <= (GV_PCI_CFG_SIZE - 0x40) / 4);
		assert_true(caps.n_vcaps <= GV_PCI_MAX_VCAPS);
		ret = gv_pci_caps_layout(&caps, bars, &l, err, sizeof(err));
		assert_true(ret == 0 || ret == -EINVAL || ret == -ENOENT || ret == -ENODEV);
		if (ret)
			continue;
		accepted++;
		const struct gv_pci_region *r[] = { &l.common, &l.notify, &l.isr, &l.device };

		for (int i = 0; i < 4; i++) {
			assert_true(r[i]->bar < GV_PCI_BARS);
			assert_true(bars[r[i]->bar] != 0);
			assert_true((uint64_t)r[i]->offset + r[i]->length <= bars[r[i]->bar]);
			assert_true(r[i]->length > 0);
		}
		assert_true(l.common.length >= GV_PCI_COMMON_MIN_LEN && l.common.offset % 4 == 0);
		assert_true(l.notify.offset % 2 == 0 && l.device.offset % 4 == 0);
		for (uint32_t q = 0; q < 70000; q += 997) {
			uint32_t off;

			if (gv_pci_notify_offset(&l, (uint16_t)q, 4, &off) == 0)
				assert_true((uint64_t)off + 4 <= l.notify.length);
		}
	}
	assert_true(accepted > 100); /* the mutated valid devices are often still valid */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_qemu),
		cmocka_unit_test(t_no_list),
		cmocka_unit_test(t_legacy_msix_only),
		cmocka_unit_test(t_loops),
		cmocka_unit_test(t_bad_pointers),
		cmocka_unit_test(t_past_config_space),
		cmocka_unit_test(t_short_vcaps),
		cmocka_unit_test(t_many_vcaps),
		cmocka_unit_test(t_bar_bounds),
		cmocka_unit_test(t_unmapped_bars),
		cmocka_unit_test(t_missing),
		cmocka_unit_test(t_structure_rules),
		cmocka_unit_test(t_first_instance),
		cmocka_unit_test(t_read_errors),
		cmocka_unit_test(t_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
