/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci_caps.h - the virtio-pci capability parser (virtio 1.2 section
 * 4.1.4): walking a device's PCI capability list for the virtio vendor
 * capabilities (common, notify, ISR, device config) and MSI-X, choosing
 * the instance of each to use, and checking every region against the size
 * of the BAR it lives in. Pure C: config space is read through a callback
 * and BAR sizes are passed in, so tests (tests/test_pci_caps.c) run it on
 * synthetic config spaces. Everything read is untrusted: a device that
 * describes regions outside its BARs is refused with a readable reason.
 */
#ifndef GV_PCI_CAPS_H
#define GV_PCI_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Standard PCI config space. */
#define GV_PCI_CFG_STATUS 0x06 /* u16 */
#define GV_PCI_STATUS_CAP_LIST 0x10
#define GV_PCI_CFG_BAR0 0x10
#define GV_PCI_CFG_CAP_PTR 0x34 /* u8 */
#define GV_PCI_CFG_SIZE 256 /* the standard (non-extended) space */
#define GV_PCI_CAP_ID_MSIX 0x11
#define GV_PCI_CAP_ID_VNDR 0x09
#define GV_PCI_MSIX_ENABLE 0x8000 /* message control: MSI-X enable */
#define GV_PCI_MSIX_TABLE_MASK 0x07ff /* message control: table size - 1 */

/* struct virtio_pci_cap: cfg_type values and field offsets. */
#define GV_PCI_CAP_COMMON 1
#define GV_PCI_CAP_NOTIFY 2
#define GV_PCI_CAP_ISR 3
#define GV_PCI_CAP_DEVICE 4
#define GV_PCI_CAP_PCI_CFG 5
#define GV_PCI_VCAP_LEN 16 /* cap_vndr .. length */
#define GV_PCI_NOTIFY_CAP_LEN 20 /* + notify_off_multiplier */

#define GV_PCI_BARS 6
#define GV_PCI_MAX_VCAPS 16 /* vendor capabilities remembered */
#define GV_PCI_COMMON_MIN_LEN 0x38 /* virtio 1.0 common config, up to queue_device */

/* Read `len` bytes of config space at `off` into buf: 0, or -errno. */
typedef int (*gv_pci_cfg_read_fn)(void *ctx, void *buf, uint32_t len, uint32_t off);

/* One virtio vendor capability as the device describes it. */
struct gv_pci_vcap {
	uint8_t pos; /* where in config space */
	uint8_t cfg_type;
	uint8_t bar;
	uint8_t cap_len;
	uint32_t offset;
	uint32_t length;
	uint32_t notify_mult; /* notify capability only */
};

/* What the walk found. */
struct gv_pci_caps {
	uint32_t n_vcaps; /* virtio capabilities (types 1-4) kept, in list order */
	struct gv_pci_vcap vcap[GV_PCI_MAX_VCAPS];
	uint32_t n_caps; /* every capability in the list */
	bool has_msix;
	uint8_t msix_pos;
	uint16_t msix_table_size; /* vectors */
	bool msix_enabled; /* at walk time */
};

/* A region of a BAR. */
struct gv_pci_region {
	uint8_t bar;
	uint32_t offset;
	uint32_t length;
};

/* The regions a modern driver uses, each checked against its BAR. */
struct gv_pci_layout {
	struct gv_pci_region common, notify, isr, device;
	uint32_t notify_mult;
};

/*
 * Walk the capability list. 0 on success (a device without a list has
 * none: n_caps 0); -EIO when the callback fails; -EINVAL for a list no
 * PCI device may present (a pointer into the header or past config space,
 * a loop, a capability running past config space, a virtio capability
 * shorter than its structure). `err` (may be NULL) gets the reason.
 */
int gv_pci_caps_walk(gv_pci_cfg_read_fn rd, void *ctx, struct gv_pci_caps *caps, char *err,
		     size_t errlen);

/*
 * Choose the common, notify, ISR and device capabilities: per type the
 * first instance whose BAR is mapped (bar_len[bar] != 0; the spec's "first
 * one the driver can support": an I/O-BAR notify capability is skipped),
 * and check it: offset + length inside the BAR, the structure's minimum
 * length and alignment, notify_off_multiplier an even power of two or 0.
 *   0        *out filled
 *   -ENOENT  no virtio capabilities at all (a legacy-only device)
 *   -ENODEV  virtio capabilities, but none of them in a mapped BAR
 *   -EINVAL  a required capability missing or describing an impossible
 *            region (hostile or broken device): refuse it
 */
int gv_pci_caps_layout(const struct gv_pci_caps *caps, const uint64_t bar_len[GV_PCI_BARS],
		       struct gv_pci_layout *out, char *err, size_t errlen);

/*
 * Offset inside the notify region of queue's doorbell: queue_notify_off *
 * notify_off_multiplier, checked so that a `width`-byte write (2, or 4 with
 * VIRTIO_F_NOTIFICATION_DATA) stays inside the region. 0 or -EINVAL.
 */
int gv_pci_notify_offset(const struct gv_pci_layout *l, uint16_t queue_notify_off, uint32_t width,
			 uint32_t *off);

/* Is `[off, off + len)` inside a region of `size` bytes (no overflow)? */
static inline bool gv_pci_in_bounds(uint64_t size, uint64_t off, uint64_t len)
{
	return off <= size && len <= size - off;
}

#endif /* GV_PCI_CAPS_H */
