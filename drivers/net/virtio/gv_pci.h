/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci.h - private to the virtio-pci transport (gv_pci*.c): its state
 * (struct gv_pci), the register-access table the modern (gv_pci_modern.c)
 * and legacy (gv_pci_legacy.c) interfaces each implement, and the
 * interrupt helpers (gv_pci_intr.c). The PMD sees none of this: only the
 * transport ops table built in gv_pci.c.
 */
#ifndef GV_PCI_H
#define GV_PCI_H

#include <stdbool.h>
#include <stdint.h>

#include <bus_pci_driver.h>
#include <rte_bus_pci.h>
#include <rte_spinlock.h>

#include "gv_pci_caps.h"
#include "gv_queue.h"

#define GV_PCI_VENDOR 0x1af4
#define GV_PCI_DEV_TRANSITIONAL_NET 0x1000
#define GV_PCI_DEV_MODERN_NET 0x1041

/* Queues the transport tracks, by the PMD's index: every pair + control. */
#define GV_PCI_MAX_VQ (2 * GV_MAX_QUEUE_PAIRS + 1)
#define GV_PCI_QUEUE_MAX 32768 /* the core's largest ring */
#define GV_PCI_NO_VECTOR 0xffff
#define GV_PCI_ISR_QUEUE 0x1
#define GV_PCI_ISR_CONFIG 0x2
#define GV_PCI_RESET_WAIT_MS 3000

/* Modern common configuration (virtio 1.2, 4.1.4.3). */
#define GV_PCI_COMMON_DFSELECT 0x00
#define GV_PCI_COMMON_DF 0x04
#define GV_PCI_COMMON_GFSELECT 0x08
#define GV_PCI_COMMON_GF 0x0c
#define GV_PCI_COMMON_MSIX 0x10
#define GV_PCI_COMMON_NUMQ 0x12
#define GV_PCI_COMMON_STATUS 0x14
#define GV_PCI_COMMON_CFGGEN 0x15
#define GV_PCI_COMMON_Q_SELECT 0x16
#define GV_PCI_COMMON_Q_SIZE 0x18
#define GV_PCI_COMMON_Q_MSIX 0x1a
#define GV_PCI_COMMON_Q_ENABLE 0x1c
#define GV_PCI_COMMON_Q_NOFF 0x1e
#define GV_PCI_COMMON_Q_DESC 0x20
#define GV_PCI_COMMON_Q_DRIVER 0x28
#define GV_PCI_COMMON_Q_DEVICE 0x30

/* Legacy I/O BAR 0 (virtio 1.2, 4.1.4.8). */
#define GV_PCI_LEG_HOST_FEATURES 0 /* u32 */
#define GV_PCI_LEG_GUEST_FEATURES 4 /* u32 */
#define GV_PCI_LEG_QUEUE_PFN 8 /* u32 */
#define GV_PCI_LEG_QUEUE_NUM 12 /* u16 */
#define GV_PCI_LEG_QUEUE_SEL 14 /* u16 */
#define GV_PCI_LEG_QUEUE_NOTIFY 16 /* u16 */
#define GV_PCI_LEG_STATUS 18 /* u8 */
#define GV_PCI_LEG_ISR 19 /* u8 */
#define GV_PCI_LEG_CONFIG_VECTOR 20 /* u16, MSI-X enabled only */
#define GV_PCI_LEG_QUEUE_VECTOR 22 /* u16, MSI-X enabled only */
#define GV_PCI_LEG_CONFIG(msix) ((msix) ? 24 : 20)
#define GV_PCI_LEG_PFN_SHIFT 12
#define GV_PCI_LEG_ALIGN 4096

struct gv_pci;

/* Register access: one implementation per interface. */
struct gv_pci_regs {
	const char *name; /* "modern", "legacy" */
	uint8_t (*get_status)(struct gv_pci *p);
	void (*set_status)(struct gv_pci *p, uint8_t status);
	uint8_t (*read_isr)(struct gv_pci *p); /* reading acknowledges */
	uint64_t (*get_features)(struct gv_pci *p);
	void (*set_features)(struct gv_pci *p, uint64_t features);
	/* Size the device offers for queue `idx` (device index); 0: no such queue. */
	uint16_t (*queue_max)(struct gv_pci *p, uint32_t idx);
	/* Hand queue `idx` (device index) to the device with its MSI-X vector. */
	int (*queue_setup)(struct gv_pci *p, uint32_t idx, struct gv_queue *q, uint16_t vector);
	/* The device's config MSI-X vector; returns what the device kept. */
	uint16_t (*config_vector)(struct gv_pci *p, uint16_t vector);
	int (*read_config)(struct gv_pci *p, uint32_t off, void *dst, uint32_t len);
};

/* Per queue, by the PMD's queue index. */
struct gv_pci_vq {
	struct gv_queue *q; /* set up with the device, NULL otherwise */
	uint32_t dev_idx; /* the device's index (the control queue may differ) */
	void *notify; /* modern: the doorbell */
};

struct gv_pci {
	struct rte_pci_device *pdev;
	struct gv_hw *hw;
	const struct gv_pci_regs *regs;
	bool modern;
	struct gv_pci_caps caps;

	/* modern: the mapped regions (gv_pci_modern.c) */
	struct gv_pci_layout layout;
	uint8_t *common, *isr, *device, *notify_base;

	/* legacy: the I/O BAR (gv_pci_legacy.c) */
	struct rte_pci_ioport io;
	bool io_mapped;
	uint64_t io_len; /* 0: unknown (the kernel still bounds every access) */

	/* The common config's select registers are shared state: one user at a time. */
	rte_spinlock_t lock;
	uint16_t dev_pairs; /* the device's max_virtqueue_pairs (1 without MQ/RSS) */
	uint64_t features; /* written at the last set_features */
	bool features_ok; /* ... and accepted: queues may be set up */
	bool running; /* DRIVER_OK */
	bool notify_data; /* VIRTIO_F_NOTIFICATION_DATA negotiated */
	bool speed_fixed; /* speed= given: do not take the device's */
	bool needs_reset_logged;

	/* interrupts (gv_pci_intr.c) */
	struct rte_intr_handle *ih; /* the PCI device's (owned by the bus) */
	bool intr_cb; /* config-change handler registered */
	bool msix; /* VFIO MSI-X: vector 0 config, 1..n RX queues */
	bool irq_ready; /* vectors prepared for this start */
	uint16_t nb_rxq_intr; /* RX queues with a vector (efds) */
	bool closing;

	struct gv_pci_vq vq[GV_PCI_MAX_VQ];
};

static inline struct gv_pci *gv_pci_of(struct gv_hw *hw)
{
	return hw->tp;
}

/* gv_pci_modern.c: map the capabilities' regions. 0, -ENOENT/-ENODEV (no
 * usable virtio capabilities: legacy?), or -EINVAL (refuse the device). */
int gv_pci_modern_init(struct gv_pci *p);
void gv_pci_modern_notify(struct gv_hw *hw, struct gv_queue *q);
extern const struct gv_pci_regs gv_pci_modern_regs;

/* gv_pci_legacy.c */
int gv_pci_legacy_init(struct gv_pci *p);
void gv_pci_legacy_fini(struct gv_pci *p);
void gv_pci_legacy_notify(struct gv_hw *hw, struct gv_queue *q);
/* Legacy devices take the MAC the driver writes into config space. */
int gv_pci_legacy_write_mac(struct gv_pci *p, const uint8_t mac[6]);
extern const struct gv_pci_regs gv_pci_legacy_regs;

/* gv_pci.c */
bool gv_pci_msix_enabled(struct gv_pci *p); /* read from config space now */

/*
 * Device config read at natural widths (8, 16 or 32 bits) through `rd`:
 * 4 bytes at a 4-aligned offset, 2 at a 2-aligned one, else bytes.
 */
typedef uint32_t (*gv_pci_cfg_rd)(struct gv_pci *p, uint32_t off, uint32_t width);
void gv_pci_cfg_copy(struct gv_pci *p, gv_pci_cfg_rd rd, uint32_t off, void *dst, uint32_t len);

/* gv_pci_intr.c */
struct rte_eth_dev;
/* Probe: the config-change handler on the device's interrupt. */
void gv_pci_intr_init(struct rte_eth_dev *dev);
/* Before queue set-up: MSI-X vectors (and RX interrupt fds) for this start. */
int gv_pci_intr_prepare(struct gv_hw *hw);
/* The vector of a queue, and its interrupt fd (q->callfd) for an RX queue. */
uint16_t gv_pci_intr_queue_vector(struct gv_hw *hw, struct gv_queue *q);
void gv_pci_intr_fini(struct gv_hw *hw);
/* Device status with DEVICE_NEEDS_RESET logged (once per reset). */
uint8_t gv_pci_status(struct gv_hw *hw);

#endif /* GV_PCI_H */
