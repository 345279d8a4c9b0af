/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci_legacy.c - the legacy (virtio 0.9.5) PCI interface of
 * transitional devices (virtio 1.2, 4.1.4.8): the registers in I/O BAR 0
 * through rte_pci_ioport_*: 32-bit features, queue select / size (fixed
 * by the device) / page frame number of a 4096-aligned split ring, queue
 * notify, status, ISR, the MSI-X vector registers, and the device config
 * that follows them at 20, or 24 while MSI-X is enabled.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_common.h>

#include "gv_pci.h"

#define IORESOURCE_IO 0x100 /* sysfs resource flags: an I/O port BAR */

static uint32_t rd(struct gv_pci *p, uint32_t off, uint32_t width)
{
	uint32_t v32 = UINT32_MAX;
	uint16_t v16 = UINT16_MAX;
	uint8_t v8 = UINT8_MAX;

	/* A failed access (logged by EAL) reads as all-ones, as a gone device does. */
	if (width == 4) {
		rte_pci_ioport_read(&p->io, &v32, 4, off);
		return v32;
	}
	if (width == 2) {
		rte_pci_ioport_read(&p->io, &v16, 2, off);
		return v16;
	}
	rte_pci_ioport_read(&p->io, &v8, 1, off);
	return v8;
}

static void wr(struct gv_pci *p, uint32_t off, uint32_t width, uint32_t v)
{
	uint16_t v16 = (uint16_t)v;
	uint8_t v8 = (uint8_t)v;

	if (width == 4)
		rte_pci_ioport_write(&p->io, &v, 4, off);
	else if (width == 2)
		rte_pci_ioport_write(&p->io, &v16, 2, off);
	else
		rte_pci_ioport_write(&p->io, &v8, 1, off);
}

static uint8_t l_get_status(struct gv_pci *p)
{
	return (uint8_t)rd(p, GV_PCI_LEG_STATUS, 1);
}

static void l_set_status(struct gv_pci *p, uint8_t status)
{
	wr(p, GV_PCI_LEG_STATUS, 1, status);
}

static uint8_t l_read_isr(struct gv_pci *p)
{
	return (uint8_t)rd(p, GV_PCI_LEG_ISR, 1);
}

static uint64_t l_get_features(struct gv_pci *p)
{
	return rd(p, GV_PCI_LEG_HOST_FEATURES, 4);
}

static void l_set_features(struct gv_pci *p, uint64_t f)
{
	wr(p, GV_PCI_LEG_GUEST_FEATURES, 4, (uint32_t)f);
}

static uint16_t l_queue_max(struct gv_pci *p, uint32_t idx)
{
	uint16_t n;

	if (idx > UINT16_MAX)
		return 0;
	rte_spinlock_lock(&p->lock);
	wr(p, GV_PCI_LEG_QUEUE_SEL, 2, idx);
	n = (uint16_t)rd(p, GV_PCI_LEG_QUEUE_NUM, 2);
	rte_spinlock_unlock(&p->lock);
	return n;
}

/* The legacy layout: avail right after the descriptors, used on the next 4096 boundary. */
static bool legacy_layout(const struct gv_ring_addrs *a, uint32_t num)
{
	uint64_t avail_end = a->driver + 6 + 2ull * num;

	return a->desc % GV_PCI_LEG_ALIGN == 0 && (a->desc >> GV_PCI_LEG_PFN_SHIFT) <= UINT32_MAX &&
	       a->desc >> GV_PCI_LEG_PFN_SHIFT != 0 && a->driver == a->desc + 16ull * num &&
	       a->device == RTE_ALIGN_CEIL(avail_end, (uint64_t)GV_PCI_LEG_ALIGN);
}

static int l_queue_setup(struct gv_pci *p, uint32_t idx, struct gv_queue *q, uint16_t vector)
{
	const char *name = p->hw->name;
	struct gv_ring_addrs a;
	uint16_t max, got = vector;
	bool msix = gv_pci_msix_enabled(p);
	int ret = 0;

	gv_vq_addrs(q->vq, &a);
	if (gv_vq_layout(q->vq) != GV_LAYOUT_SPLIT || !legacy_layout(&a, q->size)) {
		GV_LOG(ERR, "%s: queue %u: ring at IOVA 0x%" PRIx64 " is not a 4096-aligned legacy "
		       "split ring below 2^44", name, idx, a.desc);
		return -EINVAL;
	}
	if (idx > UINT16_MAX)
		return -ENOENT;
	if (vector != GV_PCI_NO_VECTOR && !msix) {
		GV_LOG(ERR, "%s: queue %u: MSI-X vector %u asked for, MSI-X is off", name, idx, vector);
		return -EINVAL;
	}
	rte_spinlock_lock(&p->lock);
	wr(p, GV_PCI_LEG_QUEUE_SEL, 2, idx);
	max = (uint16_t)rd(p, GV_PCI_LEG_QUEUE_NUM, 2);
	/* A legacy device's ring has exactly the size it says (queue_max). */
	if (max == 0 || q->size != max) {
		ret = -EINVAL;
		goto out;
	}
	if (msix) {
		wr(p, GV_PCI_LEG_QUEUE_VECTOR, 2, vector);
		got = (uint16_t)rd(p, GV_PCI_LEG_QUEUE_VECTOR, 2);
		if (got != vector) {
			ret = -ENOSPC;
			goto out;
		}
	}
	wr(p, GV_PCI_LEG_QUEUE_PFN, 4, (uint32_t)(a.desc >> GV_PCI_LEG_PFN_SHIFT));
out:
	rte_spinlock_unlock(&p->lock);
	if (ret == -EINVAL)
		GV_LOG(ERR, "%s: queue %u: %u entries, the legacy device has %s%u", name, idx,
		       q->size, max ? "exactly " : "", max);
	else if (ret == -ENOSPC)
		GV_LOG(ERR, "%s: queue %u: the device refused MSI-X vector %u (kept 0x%x)", name,
		       idx, vector, got);
	return ret;
}

static uint16_t l_config_vector(struct gv_pci *p, uint16_t vector)
{
	if (!gv_pci_msix_enabled(p))
		return GV_PCI_NO_VECTOR;
	wr(p, GV_PCI_LEG_CONFIG_VECTOR, 2, vector);
	return (uint16_t)rd(p, GV_PCI_LEG_CONFIG_VECTOR, 2);
}

/* Device config follows the header, whose length depends on MSI-X being on now. */
static uint32_t cfg_base(struct gv_pci *p, uint32_t off, uint32_t len, bool *ok)
{
	uint32_t base = GV_PCI_LEG_CONFIG(gv_pci_msix_enabled(p));

	*ok = p->io_len == 0 || (p->io_len >= base && gv_pci_in_bounds(p->io_len - base, off, len));
	return base;
}

static uint32_t l_cfg_rd(struct gv_pci *p, uint32_t off, uint32_t width)
{
	return rd(p, off, width);
}

static int l_read_config(struct gv_pci *p, uint32_t off, void *dst, uint32_t len)
{
	bool ok;
	uint32_t base = cfg_base(p, off, len, &ok);

	if (!ok)
		return -EINVAL;
	gv_pci_cfg_copy(p, l_cfg_rd, base + off, dst, len);
	return 0;
}

/* Legacy devices take the MAC from the driver through config space. */
int gv_pci_legacy_write_mac(struct gv_pci *p, const uint8_t mac[6])
{
	bool ok;
	uint32_t base = cfg_base(p, GV_NET_CFG_MAC, 6, &ok);

	if (!ok)
		return -EINVAL;
	for (uint32_t i = 0; i < 6; i++)
		wr(p, base + GV_NET_CFG_MAC + i, 1, mac[i]);
	return 0;
}

const struct gv_pci_regs gv_pci_legacy_regs = {
	.name = "legacy",
	.get_status = l_get_status,
	.set_status = l_set_status,
	.read_isr = l_read_isr,
	.get_features = l_get_features,
	.set_features = l_set_features,
	.queue_max = l_queue_max,
	.queue_setup = l_queue_setup,
	.config_vector = l_config_vector,
	.read_config = l_read_config,
};

/* Hot path: an I/O port write (a system call under VFIO). */
void gv_pci_legacy_notify(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint16_t idx = (uint16_t)p->vq[q->vq_idx].dev_idx;

	rte_pci_ioport_write(&p->io, &idx, 2, GV_PCI_LEG_QUEUE_NOTIFY);
}

/* Size of I/O BAR 0 from sysfs; 0 if unknown. */
static uint64_t io_bar_len(const struct rte_pci_device *pdev)
{
	char path[PATH_MAX], line[256];
	unsigned long long start, end, flags;
	uint64_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/resource", rte_pci_get_sysfs_path(), pdev->name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f) && sscanf(line, "%llx %llx %llx", &start, &end, &flags) == 3 &&
	    (flags & IORESOURCE_IO) && end >= start)
		len = end - start + 1;
	fclose(f);
	return len;
}

int gv_pci_legacy_init(struct gv_pci *p)
{
	struct rte_pci_device *pdev = p->pdev;
	uint32_t bar0 = 0;

	if (rte_pci_read_config(pdev, &bar0, 4, GV_PCI_CFG_BAR0) != 4 || !(bar0 & 1)) {
		GV_LOG(ERR, "%s: no modern interface and BAR 0 is not an I/O BAR: not a usable "
		       "virtio-net device", pdev->name);
		return -ENODEV;
	}
	if (rte_pci_ioport_map(pdev, 0, &p->io)) {
		GV_LOG(ERR, "%s: cannot map the legacy I/O BAR 0", pdev->name);
		return -EIO;
	}
	p->io_mapped = true;
	p->io_len = io_bar_len(pdev);
	if (p->io_len && p->io_len < GV_PCI_LEG_CONFIG(true)) {
		GV_LOG(ERR, "%s: legacy I/O BAR 0 is %" PRIu64 " bytes, less than its registers",
		       pdev->name, p->io_len);
		gv_pci_legacy_fini(p);
		return -EINVAL;
	}
	p->regs = &gv_pci_legacy_regs;
	p->modern = false;
	return 0;
}

void gv_pci_legacy_fini(struct gv_pci *p)
{
	if (!p->io_mapped)
		return;
	rte_pci_ioport_unmap(&p->io); /* VFIO: nothing to undo, it says -1 */
	p->io_mapped = false;
}
