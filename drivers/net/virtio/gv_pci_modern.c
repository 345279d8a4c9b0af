/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci_modern.c - the virtio 1.x PCI interface (virtio 1.2, 4.1.4):
 * mapping the common / notify / ISR / device-config regions the vendor
 * capabilities describe (checked against their BARs by gv_pci_caps.c),
 * the register accesses of struct gv_pci_regs over MMIO (status, 64-bit
 * features through the select registers, per-queue set-up with ring IOVAs
 * and MSI-X vectors, config generation), and the doorbell write, with the
 * next available position when VIRTIO_F_NOTIFICATION_DATA is negotiated.
 */
#include <errno.h>
#include <string.h>

#include <rte_io.h>

#include "gv_pci.h"

static inline void *cc(struct gv_pci *p, uint32_t off)
{
	return p->common + off;
}

static void write64(struct gv_pci *p, uint32_t off, uint64_t v)
{
	/* 64-bit fields may be written as two 32-bit halves, low first. */
	rte_write32((uint32_t)v, cc(p, off));
	rte_write32((uint32_t)(v >> 32), cc(p, off + 4));
}

static uint8_t m_get_status(struct gv_pci *p)
{
	return rte_read8(cc(p, GV_PCI_COMMON_STATUS));
}

static void m_set_status(struct gv_pci *p, uint8_t status)
{
	rte_write8(status, cc(p, GV_PCI_COMMON_STATUS));
}

static uint8_t m_read_isr(struct gv_pci *p)
{
	return rte_read8(p->isr);
}

static uint64_t m_get_features(struct gv_pci *p)
{
	uint32_t lo, hi;

	rte_spinlock_lock(&p->lock);
	rte_write32(0, cc(p, GV_PCI_COMMON_DFSELECT));
	lo = rte_read32(cc(p, GV_PCI_COMMON_DF));
	rte_write32(1, cc(p, GV_PCI_COMMON_DFSELECT));
	hi = rte_read32(cc(p, GV_PCI_COMMON_DF));
	rte_spinlock_unlock(&p->lock);
	return ((uint64_t)hi << 32) | lo;
}

static void m_set_features(struct gv_pci *p, uint64_t f)
{
	rte_spinlock_lock(&p->lock);
	rte_write32(0, cc(p, GV_PCI_COMMON_GFSELECT));
	rte_write32((uint32_t)f, cc(p, GV_PCI_COMMON_GF));
	rte_write32(1, cc(p, GV_PCI_COMMON_GFSELECT));
	rte_write32((uint32_t)(f >> 32), cc(p, GV_PCI_COMMON_GF));
	rte_spinlock_unlock(&p->lock);
}

static uint16_t m_queue_max(struct gv_pci *p, uint32_t idx)
{
	uint16_t n;

	if (idx >= rte_read16(cc(p, GV_PCI_COMMON_NUMQ)))
		return 0;
	rte_spinlock_lock(&p->lock);
	rte_write16((uint16_t)idx, cc(p, GV_PCI_COMMON_Q_SELECT));
	n = rte_read16(cc(p, GV_PCI_COMMON_Q_SIZE));
	rte_spinlock_unlock(&p->lock);
	return n;
}

static int m_queue_setup(struct gv_pci *p, uint32_t idx, struct gv_queue *q, uint16_t vector)
{
	const char *name = p->hw->name;
	uint16_t numq = rte_read16(cc(p, GV_PCI_COMMON_NUMQ));
	uint16_t max, got = vector, noff = 0;
	struct gv_ring_addrs a;
	uint32_t off = 0;
	int ret = 0;

	if (idx >= numq) {
		GV_LOG(ERR, "%s: the device has %u queues: no queue %u", name, numq, idx);
		return -ENOENT;
	}
	gv_vq_addrs(q->vq, &a);
	rte_spinlock_lock(&p->lock);
	rte_write16((uint16_t)idx, cc(p, GV_PCI_COMMON_Q_SELECT));
	max = rte_read16(cc(p, GV_PCI_COMMON_Q_SIZE));
	if (max == 0 || q->size > max) {
		ret = -EINVAL;
		goto out;
	}
	/* The device offers its largest size; the ring may be smaller. */
	rte_write16(q->size, cc(p, GV_PCI_COMMON_Q_SIZE));
	rte_write16(vector, cc(p, GV_PCI_COMMON_Q_MSIX));
	got = rte_read16(cc(p, GV_PCI_COMMON_Q_MSIX));
	if (got != vector) {
		ret = -ENOSPC;
		goto out;
	}
	write64(p, GV_PCI_COMMON_Q_DESC, a.desc);
	write64(p, GV_PCI_COMMON_Q_DRIVER, a.driver);
	write64(p, GV_PCI_COMMON_Q_DEVICE, a.device);
	noff = rte_read16(cc(p, GV_PCI_COMMON_Q_NOFF));
	if (gv_pci_notify_offset(&p->layout, noff, p->notify_data ? 4 : 2, &off)) {
		ret = -ERANGE;
		goto out;
	}
	p->vq[q->vq_idx].notify = p->notify_base + off;
	rte_write16(1, cc(p, GV_PCI_COMMON_Q_ENABLE));
out:
	rte_spinlock_unlock(&p->lock);
	switch (ret) {
	case -EINVAL:
		GV_LOG(ERR, "%s: queue %u: %u entries, the device takes %s%u", name, idx, q->size,
		       max ? "at most " : "", max);
		break;
	case -ENOSPC:
		GV_LOG(ERR, "%s: queue %u: the device refused MSI-X vector %u (kept 0x%x)", name,
		       idx, vector, got);
		break;
	case -ERANGE:
		GV_LOG(ERR, "%s: queue %u: doorbell at queue_notify_off %u x %u is outside the "
		       "notify region (%u bytes): refusing the device",
		       name, idx, noff, p->layout.notify_mult, p->layout.notify.length);
		break;
	default:
		break;
	}
	return ret;
}

static uint16_t m_config_vector(struct gv_pci *p, uint16_t vector)
{
	rte_write16(vector, cc(p, GV_PCI_COMMON_MSIX));
	return rte_read16(cc(p, GV_PCI_COMMON_MSIX));
}

static uint32_t m_cfg_rd(struct gv_pci *p, uint32_t off, uint32_t width)
{
	void *a = p->device + off;

	if (width == 4)
		return rte_read32(a);
	if (width == 2)
		return rte_read16(a);
	return rte_read8(a);
}

static int m_read_config(struct gv_pci *p, uint32_t off, void *dst, uint32_t len)
{
	if (!gv_pci_in_bounds(p->layout.device.length, off, len))
		return -EINVAL;
	/* A consistent snapshot: the generation is the same before and after. */
	for (int i = 0; i < 16; i++) {
		uint8_t gen = rte_read8(cc(p, GV_PCI_COMMON_CFGGEN));

		gv_pci_cfg_copy(p, m_cfg_rd, off, dst, len);
		if (rte_read8(cc(p, GV_PCI_COMMON_CFGGEN)) == gen)
			return 0;
	}
	GV_LOG(ERR, "%s: device config keeps changing under reads", p->hw->name);
	return -EAGAIN;
}

const struct gv_pci_regs gv_pci_modern_regs = {
	.name = "modern",
	.get_status = m_get_status,
	.set_status = m_set_status,
	.read_isr = m_read_isr,
	.get_features = m_get_features,
	.set_features = m_set_features,
	.queue_max = m_queue_max,
	.queue_setup = m_queue_setup,
	.config_vector = m_config_vector,
	.read_config = m_read_config,
};

/* Hot path: one MMIO write per kick. */
void gv_pci_modern_notify(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_pci *p = gv_pci_of(hw);
	struct gv_pci_vq *v = &p->vq[q->vq_idx];

	if (unlikely(v->notify == NULL))
		return;
	if (p->notify_data)
		/* vq index, then the next available index (split) or offset | wrap << 15 (packed). */
		rte_write32(v->dev_idx | (gv_vq_avail_state(q->vq) << 16), v->notify);
	else
		rte_write16((uint16_t)v->dev_idx, v->notify);
}

int gv_pci_modern_init(struct gv_pci *p)
{
	struct rte_pci_device *pdev = p->pdev;
	uint64_t bar_len[GV_PCI_BARS];
	char err[256];
	int ret;

	for (int i = 0; i < GV_PCI_BARS; i++)
		bar_len[i] = pdev->mem_resource[i].addr ? pdev->mem_resource[i].len : 0;
	ret = gv_pci_caps_layout(&p->caps, bar_len, &p->layout, err, sizeof(err));
	if (ret == -ENOENT || ret == -ENODEV) {
		GV_LOG(INFO, "%s: no modern interface: %s", pdev->name, err);
		return ret;
	}
	if (ret) {
		GV_LOG(ERR, "%s: refusing the device: %s", pdev->name, err);
		return ret;
	}
#define REGION(r) ((uint8_t *)pdev->mem_resource[p->layout.r.bar].addr + p->layout.r.offset)
	p->common = REGION(common);
	p->isr = REGION(isr);
	p->device = REGION(device);
	p->notify_base = REGION(notify);
#undef REGION
	p->regs = &gv_pci_modern_regs;
	p->modern = true;
	GV_LOG(DEBUG, "%s: modern: common BAR%u+0x%x, notify BAR%u+0x%x (x%u, %u bytes), "
	       "ISR BAR%u+0x%x, device BAR%u+0x%x (%u bytes)",
	       pdev->name, p->layout.common.bar, p->layout.common.offset, p->layout.notify.bar,
	       p->layout.notify.offset, p->layout.notify_mult, p->layout.notify.length,
	       p->layout.isr.bar, p->layout.isr.offset, p->layout.device.bar,
	       p->layout.device.offset, p->layout.device.length);
	return 0;
}
