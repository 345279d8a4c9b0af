/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci.c - the net_gvirtio PCI driver: registration (transitional
 * 0x1af4:0x1000 and modern 0x1af4:0x1041 virtio-net), devargs, probe and
 * remove, and the virtio-pci transport ops (gv_transport.h) on top of a
 * register-access table: the modern interface (gv_pci_modern.c) when the
 * device has usable virtio capabilities, else the legacy one
 * (gv_pci_legacy.c). Owns the device status sequence: reset (bounded
 * wait), ACKNOWLEDGE, DRIVER, features, FEATURES_OK (read back), queue
 * set-up, DRIVER_OK; a stop is a reset that re-establishes the features.
 * Interrupts are in gv_pci_intr.c.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <bus_pci_driver.h>
#include <ethdev_driver.h>
#include <ethdev_pci.h>
#include <rte_cycles.h>
#include <rte_devargs.h>
#include <rte_eal.h>
#include <rte_malloc.h>

#include "gv_ctrl.h"
#include "gv_devargs.h"
#include "gv_names.h"
#include "gv_pci.h"

/* ------------------------------------------------------------ helpers -- */

void gv_pci_cfg_copy(struct gv_pci *p, gv_pci_cfg_rd rd, uint32_t off, void *dst, uint32_t len)
{
	uint8_t *d = dst;

	/* Each field at its own width: u32 and u16 fields whole, arrays bytewise. */
	if (len == 4 && off % 4 == 0) {
		uint32_t v = rd(p, off, 4);

		memcpy(d, &v, 4);
	} else if (len == 2 && off % 2 == 0) {
		uint16_t v = (uint16_t)rd(p, off, 2);

		memcpy(d, &v, 2);
	} else {
		for (uint32_t i = 0; i < len; i++)
			d[i] = (uint8_t)rd(p, off + i, 1);
	}
}

bool gv_pci_msix_enabled(struct gv_pci *p)
{
	uint16_t ctl = 0;

	if (!p->caps.has_msix ||
	    rte_pci_read_config(p->pdev, &ctl, 2, p->caps.msix_pos + 2) != 2)
		return false;
	return (rte_le_to_cpu_16(ctl) & GV_PCI_MSIX_ENABLE) != 0;
}

static int cfg_read(void *ctx, void *buf, uint32_t len, uint32_t off)
{
	return rte_pci_read_config(ctx, buf, len, off) == (int)len ? 0 : -EIO;
}

/*
 * The device's index of one of our queues. Data queues are the same; the
 * control queue follows every pair the device has, while the PMD counts
 * only the pairs it uses (queues= or GV_MAX_QUEUE_PAIRS below the device's).
 */
static uint32_t dev_vq(const struct gv_hw *hw, const struct gv_pci *p, uint16_t idx)
{
	bool mq = gv_has(hw, GV_NET_F_MQ) || gv_has(hw, GV_NET_F_RSS);

	if (gv_has(hw, GV_NET_F_CTRL_VQ) && idx == 2u * (mq ? hw->max_queue_pairs : 1))
		return 2u * (mq ? p->dev_pairs : 1);
	return idx;
}

uint8_t gv_pci_status(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint8_t st = p->regs->get_status(p);

	if (st != 0xff && (st & GV_STATUS_NEEDS_RESET) && !p->needs_reset_logged) {
		p->needs_reset_logged = true;
		GV_LOG(ERR, "%s: the device set DEVICE_NEEDS_RESET (status 0x%02x): link down; "
		       "recover with rte_eth_dev_reset() and a new configure", hw->name, st);
	}
	return st;
}

/* Status 0, and wait until the device says so (bounded). */
static int dev_reset(struct gv_pci *p)
{
	const char *name = p->pdev->name;
	uint8_t st;

	p->running = false;
	p->features_ok = false;
	p->irq_ready = false;
	p->needs_reset_logged = false;
	for (unsigned int i = 0; i < GV_PCI_MAX_VQ; i++) {
		p->vq[i].q = NULL;
		p->vq[i].notify = NULL;
	}
	p->regs->set_status(p, 0);
	for (unsigned int ms = 0; (st = p->regs->get_status(p)) != 0; ms++) {
		if (ms >= GV_PCI_RESET_WAIT_MS) {
			GV_LOG(ERR, "%s: the device did not complete its reset in %u ms (status 0x%02x)",
			       name, GV_PCI_RESET_WAIT_MS, st);
			return -ETIMEDOUT;
		}
		rte_delay_us_sleep(1000);
	}
	(void)p->regs->read_isr(p); /* drop an interrupt raised before the reset */
	return 0;
}

/* ----------------------------------------------------- transport ops -- */

static int pci_reset(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	int ret = dev_reset(p);

	if (ret)
		return ret;
	p->regs->set_status(p, GV_STATUS_ACKNOWLEDGE);
	p->regs->set_status(p, GV_STATUS_ACKNOWLEDGE | GV_STATUS_DRIVER);
	return 0;
}

static int pci_get_features(struct gv_hw *hw, uint64_t *features)
{
	struct gv_pci *p = gv_pci_of(hw);

	*features = p->regs->get_features(p);
	return 0;
}

static void read_speed(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint32_t speed = 0;

	if (p->speed_fixed || p->regs->read_config(p, GV_NET_CFG_SPEED, &speed, 4))
		return;
	speed = rte_le_to_cpu_32(speed);
	/* 0 to 0x7fffffff Mbps; anything else (0xffffffff) is unknown. */
	hw->speed = speed <= INT32_MAX ? speed : 0;
}

/* Features, then FEATURES_OK read back (modern). `again`: a re-arm after a stop. */
static int write_features(struct gv_hw *hw, uint64_t f, bool again)
{
	struct gv_pci *p = gv_pci_of(hw);
	char buf[512];
	uint8_t st;

	if (p->modern && !(f & GV_BIT(GV_F_VERSION_1))) {
		GV_LOG(ERR, "%s: the modern interface needs VERSION_1, which the device does not "
		       "offer", hw->name);
		return -ENOTSUP;
	}
	if (!p->modern && (f >> 32)) {
		GV_LOG(ERR, "%s: the legacy interface has 32 feature bits", hw->name);
		return -EINVAL;
	}
	if (!p->modern && !(f & GV_BIT(GV_F_ANY_LAYOUT))) {
		GV_LOG(ERR, "%s: the legacy device does not offer ANY_LAYOUT: it would need the "
		       "virtio-net header in a descriptor of its own, which this PMD never does",
		       hw->name);
		return -ENOTSUP;
	}
	st = p->regs->get_status(p);
	if (st & (GV_STATUS_FEATURES_OK | GV_STATUS_DRIVER_OK)) {
		/* Features are written once per reset. */
		int ret = pci_reset(hw);

		if (ret)
			return ret;
	}
	p->regs->set_features(p, f);
	p->notify_data = p->modern && (f & GV_BIT(GV_F_NOTIFICATION_DATA));
	if (p->modern) {
		p->regs->set_status(p, (uint8_t)(p->regs->get_status(p) | GV_STATUS_FEATURES_OK));
		st = p->regs->get_status(p);
		if (!(st & GV_STATUS_FEATURES_OK)) {
			GV_LOG(ERR, "%s: the device cleared FEATURES_OK: it does not accept %s", hw->name,
			       gv_features_str(f, buf, sizeof(buf)));
			p->regs->set_status(p, (uint8_t)(st | GV_STATUS_FAILED));
			return -ENOTSUP;
		}
	}
	p->features = f;
	p->features_ok = true;
	if (again)
		return 0;
	if (f & GV_BIT(GV_F_ACCESS_PLATFORM))
		GV_LOG(INFO, "%s: ACCESS_PLATFORM: the device goes through the platform's IOMMU "
		       "(descriptors carry IOVAs)", hw->name);
	GV_LOG(INFO, "%s: %s interface, %s barriers%s", hw->name, p->regs->name,
	       (f & GV_BIT(GV_F_ORDER_PLATFORM)) ? "mandatory (ORDER_PLATFORM)" : "SMP",
	       p->notify_data ? ", notifications carry the avail position" : "");
	if (f & GV_BIT(GV_NET_F_SPEED_DUPLEX))
		read_speed(hw);
	return 0;
}

static int pci_set_features(struct gv_hw *hw, uint64_t f)
{
	return write_features(hw, f, false);
}

static int pci_read_config(struct gv_hw *hw, uint32_t off, void *dst, uint32_t len)
{
	struct gv_pci *p = gv_pci_of(hw);

	return p->regs->read_config(p, off, dst, len);
}

static uint16_t pci_queue_max(struct gv_hw *hw, uint16_t qidx)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint16_t n = p->regs->queue_max(p, dev_vq(hw, p, qidx));

	if (n == 0)
		GV_LOG(ERR, "%s: the device has no queue %u", hw->name, dev_vq(hw, p, qidx));
	return RTE_MIN(n, (uint16_t)GV_PCI_QUEUE_MAX);
}

static int pci_setup_queue(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_pci *p = gv_pci_of(hw);
	struct gv_pci_vq *v;
	uint16_t vector;
	int ret;

	if (q->vq_idx >= GV_PCI_MAX_VQ || !p->features_ok || p->running) {
		GV_LOG(ERR, "%s: queue %u set up %s", hw->name, q->vq_idx,
		       p->running ? "while running" : "out of range or before FEATURES_OK");
		return -EINVAL;
	}
	if (!p->irq_ready) {
		ret = gv_pci_intr_prepare(hw);
		if (ret)
			return ret;
	}
	v = &p->vq[q->vq_idx];
	v->dev_idx = dev_vq(hw, p, q->vq_idx);
	vector = gv_pci_intr_queue_vector(hw, q);
	ret = p->regs->queue_setup(p, v->dev_idx, q, vector);
	if (ret)
		return ret;
	v->q = q;
	return 0;
}

static int pci_start(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint8_t st;
	int ret;

	if (!p->features_ok)
		return -EINVAL;
	if (!p->irq_ready) {
		ret = gv_pci_intr_prepare(hw);
		if (ret)
			return ret;
	}
	/* Without CTRL_MAC_ADDR a legacy device learns the app's MAC from config space. */
	if (!p->modern && hw->mac_from_app && gv_has(hw, GV_NET_F_MAC) &&
	    !gv_has(hw, GV_NET_F_CTRL_MAC_ADDR))
		gv_pci_legacy_write_mac(p, hw->mac.addr_bytes);
	p->regs->set_status(p, (uint8_t)(p->regs->get_status(p) | GV_STATUS_DRIVER_OK));
	st = gv_pci_status(hw);
	if (st == 0xff || !(st & GV_STATUS_DRIVER_OK) ||
	    (st & (GV_STATUS_NEEDS_RESET | GV_STATUS_FAILED))) {
		GV_LOG(ERR, "%s: the device did not start (status 0x%02x after DRIVER_OK)", hw->name,
		       st);
		return -EIO;
	}
	p->running = true;
	return 0;
}

/* The device forgets the rings; the features stay as negotiated. */
static void pci_stop(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	bool had = p->features_ok || p->running;

	if (pci_reset(hw) == 0 && had && write_features(hw, p->features, true))
		GV_LOG(ERR, "%s: the device refused its features after a stop: reconfigure the "
		       "port", hw->name);
}

static bool pci_link_up(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint8_t st;

	if (!p->running)
		return false;
	st = gv_pci_status(hw);
	/* All-ones: the device is gone from the bus. */
	return st != 0xff && (st & GV_STATUS_DRIVER_OK) &&
	       !(st & (GV_STATUS_NEEDS_RESET | GV_STATUS_FAILED));
}

static void pci_free(struct gv_pci *p)
{
	if (p->regs)
		dev_reset(p);
	gv_pci_legacy_fini(p);
	rte_free(p);
}

static void pci_close(struct gv_hw *hw)
{
	struct gv_pci *p = gv_pci_of(hw);

	if (!p)
		return;
	gv_pci_intr_fini(hw);
	pci_free(p);
	hw->tp = NULL;
}

static const struct gv_transport_ops pci_modern_ops = {
	.name = "virtio-pci",
	.tp_features = GV_BIT(GV_F_NOTIFICATION_DATA),
	.get_features = pci_get_features,
	.set_features = pci_set_features,
	.reset = pci_reset,
	.read_config = pci_read_config,
	.queue_max = pci_queue_max,
	.setup_queue = pci_setup_queue,
	.start = pci_start,
	.stop = pci_stop,
	.notify = gv_pci_modern_notify,
	.link_up = pci_link_up,
	.close = pci_close,
};

static const struct gv_transport_ops pci_legacy_ops = {
	.name = "virtio-pci-legacy",
	.tp_features = GV_BIT(GV_F_ANY_LAYOUT),
	.fixed_queue_size = true,
	.get_features = pci_get_features,
	.set_features = pci_set_features,
	.reset = pci_reset,
	.read_config = pci_read_config,
	.queue_max = pci_queue_max,
	.setup_queue = pci_setup_queue,
	.start = pci_start,
	.stop = pci_stop,
	.notify = gv_pci_legacy_notify,
	.link_up = pci_link_up,
	.close = pci_close,
};

/* -------------------------------------------------------- probe/remove -- */

/* What the device config says before negotiation: pairs, MAC, MTU, speed. */
static void read_device_info(struct gv_hw *hw, uint64_t offered, const struct gv_user_args *a)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint16_t pairs = 1, v16 = 0;

	if (offered & (GV_BIT(GV_NET_F_MQ) | GV_BIT(GV_NET_F_RSS))) {
		if (p->regs->read_config(p, GV_NET_CFG_MAX_PAIRS, &v16, 2) == 0 &&
		    rte_le_to_cpu_16(v16) >= 1 && rte_le_to_cpu_16(v16) <= 0x8000)
			pairs = rte_le_to_cpu_16(v16);
		else
			GV_LOG(WARNING, "%s: max_virtqueue_pairs %u out of range: using 1 pair",
			       hw->name, rte_le_to_cpu_16(v16));
	}
	p->dev_pairs = pairs;
	hw->max_queue_pairs = RTE_MIN(pairs, (uint16_t)GV_MAX_QUEUE_PAIRS);
	if (a->queues)
		hw->max_queue_pairs = RTE_MIN(hw->max_queue_pairs, (uint16_t)a->queues);
	hw->req_queue_pairs = hw->max_queue_pairs;

	if (a->have_mac) {
		hw->mac = a->mac;
		hw->mac_from_app = true;
	} else if (!(offered & GV_BIT(GV_NET_F_MAC)) ||
		   p->regs->read_config(p, GV_NET_CFG_MAC, hw->mac.addr_bytes, 6) ||
		   !rte_is_valid_assigned_ether_addr(&hw->mac)) {
		rte_eth_random_addr(hw->mac.addr_bytes);
		if (offered & GV_BIT(GV_NET_F_MAC))
			GV_LOG(WARNING, "%s: the device's MAC is not a unicast address: random one",
			       hw->name);
	}
	if ((offered & GV_BIT(GV_NET_F_MTU)) &&
	    p->regs->read_config(p, GV_NET_CFG_MTU, &v16, 2) == 0 && rte_le_to_cpu_16(v16) >= 68)
		hw->max_mtu = rte_le_to_cpu_16(v16);
	if (offered & GV_BIT(GV_NET_F_SPEED_DUPLEX))
		read_speed(hw);
}

/*
 * A secondary process: the port the primary made. The bus mapped the BARs
 * at the primary's addresses, so a modern device's doorbells (pointers in
 * the shared gv_pci) work from here; a legacy device's I/O port is reached
 * through the primary's own port handle, so this process gets no RX/TX.
 */
static int gv_pci_attach_secondary(struct rte_pci_device *pdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_pci_allocate(pdev, 0);
	struct gv_hw *hw;

	if (!dev) {
		GV_LOG(ERR, "%s: no such port in the primary process", pdev->device.name);
		return -ENODEV;
	}
	hw = dev->data->dev_private;
	if (hw->tp_id == GV_TP_PCI_MODERN) {
		gv_tp_table[GV_TP_PCI_MODERN] = &pci_modern_ops;
		return gv_secondary_attach(dev, true);
	}
	gv_tp_table[GV_TP_PCI_LEGACY] = &pci_legacy_ops;
	return gv_secondary_attach(dev, false);
}

static int pci_probe(struct rte_pci_driver *drv, struct rte_pci_device *pdev)
{
	const char *name = pdev->device.name;
	struct rte_devargs *da = pdev->device.devargs;
	struct rte_eth_dev *dev = NULL;
	struct gv_user_args a;
	struct gv_pci *p;
	struct gv_hw *hw;
	uint64_t offered = 0;
	char err[256];
	int ret;

	(void)drv;
	gv_names_note();
	if (gv_names_pci_yields()) {
		GV_LOG(INFO, "%s: left to DPDK's net_virtio (GVIRTIO_PREFER=dpdk)", name);
		return 1;
	}
	ret = gv_pci_parse_args(name, da ? da->args : NULL, &a);
	if (ret)
		return ret;
	if (a.vdpa) {
		/* As DPDK's net_virtio: a positive return makes the bus ask the next driver. */
		GV_LOG(INFO, "%s: vdpa=1: left to a vDPA driver", name);
		return 1;
	}
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return gv_pci_attach_secondary(pdev);
	p = rte_zmalloc_socket("gv_pci", sizeof(*p), RTE_CACHE_LINE_SIZE, pdev->device.numa_node);
	if (!p)
		return -ENOMEM;
	p->pdev = pdev;
	p->ih = pdev->intr_handle;
	p->speed_fixed = a.speed != 0;
	rte_spinlock_init(&p->lock);
	ret = gv_pci_caps_walk(cfg_read, pdev, &p->caps, err, sizeof(err));
	if (ret) {
		GV_LOG(ERR, "%s: refusing the device: %s", name, err);
		goto fail;
	}
	ret = gv_pci_modern_init(p);
	if (ret == -ENOENT || ret == -ENODEV) {
		if (pdev->id.device_id != GV_PCI_DEV_TRANSITIONAL_NET) {
			GV_LOG(ERR, "%s: a modern-only virtio-net device without usable virtio "
			       "capabilities: refused", name);
			ret = -ENODEV;
			goto fail;
		}
		ret = gv_pci_legacy_init(p);
	}
	if (ret)
		goto fail;

	dev = rte_eth_dev_pci_allocate(pdev, sizeof(struct gv_hw));
	if (!dev) {
		ret = -ENOMEM;
		goto fail;
	}
	/*
	 * The PCI bus owns pdev->intr_handle (VFIO vectors, freed at unplug);
	 * the port's own handle (RX interrupt fds, gv_ethdev.c) is separate.
	 */
	dev->intr_handle = NULL;
	hw = dev->data->dev_private;
	hw->tp = p;
	p->hw = hw;
	gv_set_transport(hw, p->modern ? GV_TP_PCI_MODERN : GV_TP_PCI_LEGACY,
			 p->modern ? &pci_modern_ops : &pci_legacy_ops);
	snprintf(hw->name, sizeof(hw->name), "%s", name);
	hw->port_id = dev->data->port_id;
	ret = pci_reset(hw);
	if (ret)
		goto fail_port;
	offered = p->regs->get_features(p);
	if (p->modern && !(offered & GV_BIT(GV_F_VERSION_1))) {
		GV_LOG(ERR, "%s: the modern interface does not offer VERSION_1: refused", name);
		ret = -ENOTSUP;
		goto fail_port;
	}
	/*
	 * Without ACCESS_PLATFORM the device uses the addresses it is given
	 * as physical ones, untranslated: IOVAs must then be physical too.
	 */
	if (!(offered & GV_BIT(GV_F_ACCESS_PLATFORM)) && rte_eal_iova_mode() == RTE_IOVA_VA) {
		GV_LOG(ERR, "%s: the device lacks ACCESS_PLATFORM (its DMA bypasses the IOMMU and "
		       "uses physical addresses) but EAL runs with IOVA as VA: port refused. Give "
		       "the device ACCESS_PLATFORM (QEMU: a modern-only device with "
		       "iommu_platform=on) or run EAL with --iova-mode=pa", name);
		ret = -ENOTSUP;
		goto fail_port;
	}
	read_device_info(hw, offered, &a);
	hw->queue_size = p->modern ? (uint16_t)a.queue_size : pci_queue_max(hw, 0);
	if (hw->queue_size == 0) {
		ret = -ENODEV;
		goto fail_port;
	}
	gv_ring_args_apply(hw, &a.ring);
	if (a.speed)
		hw->speed = a.speed;
	hw->use_va = false; /* the device reads guest memory at IOVAs */
	ret = gv_ethdev_init(dev, hw);
	if (ret)
		goto fail_port;
	gv_pci_intr_init(dev);
	rte_eth_dev_probing_finish(dev);
	GV_LOG(INFO, "%s: port %u, virtio-pci %s interface, %u queue pair(s) (device: %u), "
	       "MSI-X vectors: %u, ring 0 up to %u entries",
	       name, dev->data->port_id, p->regs->name, hw->max_queue_pairs, p->dev_pairs,
	       p->caps.has_msix ? p->caps.msix_table_size : 0, pci_queue_max(hw, 0));
	return 0;

fail_port:
	hw->tp_id = GV_TP_NONE;
	hw->tp = NULL;
	rte_eth_dev_release_port(dev); /* frees dev_private and mac_addrs */
fail:
	pci_free(p);
	return ret;
}

static int pci_remove(struct rte_pci_device *pdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(pdev->device.name);

	if (!dev)
		return 0;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return gv_secondary_remove(dev);
	/* Hot-unplug of a running port: ethdev will not close it started. */
	if (dev->data->dev_started)
		rte_eth_dev_stop(dev->data->port_id);
	return rte_eth_dev_close(dev->data->port_id);
}

const struct rte_pci_id gv_pci_id_table[] = {
	{ RTE_PCI_DEVICE(GV_PCI_VENDOR, GV_PCI_DEV_TRANSITIONAL_NET) },
	{ RTE_PCI_DEVICE(GV_PCI_VENDOR, GV_PCI_DEV_MODERN_NET) },
	{ .vendor_id = 0 },
};

/* Registered by gv_names.c. */
struct rte_pci_driver gv_pci_driver = {
	.id_table = gv_pci_id_table,
	.drv_flags = RTE_PCI_DRV_NEED_MAPPING | RTE_PCI_DRV_INTR_LSC,
	.probe = pci_probe,
	.remove = pci_remove,
};


