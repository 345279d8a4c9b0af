/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_pci_intr.c - interrupts of the virtio-pci transport through the PCI
 * device's EAL interrupt handle (VFIO): MSI-X vector 0 carries config
 * changes (or INTx with the ISR's config bit, without MSI-X); vectors
 * 1..n carry the RX queues' interrupts when the app asks for them
 * (intr_conf.rxq), their eventfds become the queues' callfd, which
 * gv_ethdev.c hands to the app. A config change re-reads status, speed,
 * MTU and MAC, then lets gv_config_changed() report the link and answer
 * an ANNOUNCE; DEVICE_NEEDS_RESET takes the link down and raises
 * RTE_ETH_EVENT_INTR_RESET.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_alarm.h>
#include <rte_interrupts.h>
#include <rte_pause.h>

#include "gv_ctrl.h"
#include "gv_pci.h"

#define RETRY_US 1000 /* the control path holds the port: try again */

static void config_event(struct rte_eth_dev *dev);

static void config_retry(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_pci *p = hw ? gv_pci_of(hw) : NULL;

	if (p && !p->closing)
		config_event(dev);
}

/* Re-read what a config change may have changed. True: NEEDS_RESET is new. */
static bool refresh(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_pci *p = gv_pci_of(hw);
	bool was = p->needs_reset_logged;
	struct rte_ether_addr mac;
	uint16_t mtu = 0;
	uint32_t speed = 0;

	(void)gv_pci_status(hw);
	if (!hw->negotiated)
		return false;
	if (gv_has(hw, GV_NET_F_SPEED_DUPLEX) && !p->speed_fixed &&
	    p->regs->read_config(p, GV_NET_CFG_SPEED, &speed, 4) == 0) {
		speed = rte_le_to_cpu_32(speed);
		hw->speed = speed <= INT32_MAX ? speed : 0;
	}
	if (gv_has(hw, GV_NET_F_MTU) && p->regs->read_config(p, GV_NET_CFG_MTU, &mtu, 2) == 0 &&
	    rte_le_to_cpu_16(mtu) >= 68 && rte_le_to_cpu_16(mtu) != hw->max_mtu) {
		GV_LOG(NOTICE, "%s: the device's MTU is now %u", hw->name, rte_le_to_cpu_16(mtu));
		hw->max_mtu = rte_le_to_cpu_16(mtu);
	}
	if (gv_has(hw, GV_NET_F_MAC) && !hw->mac_from_app &&
	    p->regs->read_config(p, GV_NET_CFG_MAC, mac.addr_bytes, 6) == 0 &&
	    rte_is_valid_assigned_ether_addr(&mac) && !rte_is_same_ether_addr(&mac, &hw->mac)) {
		GV_LOG(NOTICE, "%s: the device's MAC is now %02x:%02x:%02x:%02x:%02x:%02x", hw->name,
		       mac.addr_bytes[0], mac.addr_bytes[1], mac.addr_bytes[2], mac.addr_bytes[3],
		       mac.addr_bytes[4], mac.addr_bytes[5]);
		rte_ether_addr_copy(&mac, &hw->mac);
		rte_ether_addr_copy(&mac, &dev->data->mac_addrs[0]);
	}
	return !was && p->needs_reset_logged;
}

/*
 * EAL interrupt thread. The control path may hold the port (start, stop,
 * close): never wait for it here, come back shortly instead.
 */
static void config_event(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	bool reset_event;

	if (pthread_mutex_trylock(&hw->ctl_lock) != 0) {
		rte_eal_alarm_set(RETRY_US, config_retry, dev);
		return;
	}
	reset_event = refresh(dev);
	if (reset_event)
		gv_port_needs_reset(dev); /* queues paused, link down */
	else
		gv_config_changed(dev);
	pthread_mutex_unlock(&hw->ctl_lock);
	if (reset_event)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_RESET, NULL);
}

static void intr_handler(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_pci *p = hw ? gv_pci_of(hw) : NULL;
	uint8_t isr;

	if (!p || p->closing)
		return;
	/* Reading the ISR acknowledges INTx; with MSI-X vector 0 is config only. */
	isr = p->regs->read_isr(p);
	if (p->msix || (isr != 0xff && (isr & GV_PCI_ISR_CONFIG)))
		config_event(dev);
	rte_intr_ack(p->ih);
}

void gv_pci_intr_init(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_pci *p = gv_pci_of(hw);
	enum rte_intr_handle_type type =
		p->ih ? rte_intr_type_get(p->ih) : RTE_INTR_HANDLE_UNKNOWN;

	switch (type) {
	case RTE_INTR_HANDLE_VFIO_MSIX:
	case RTE_INTR_HANDLE_VFIO_LEGACY:
	case RTE_INTR_HANDLE_UIO:
	case RTE_INTR_HANDLE_UIO_INTX:
		break;
	default:
		GV_LOG(NOTICE, "%s: no device interrupts (handle type %d): link changes are seen "
		       "when polled, no LSC or RX interrupts", hw->name, (int)type);
		dev->data->dev_flags &= ~RTE_ETH_DEV_INTR_LSC;
		return;
	}
	if (rte_intr_callback_register(p->ih, intr_handler, dev)) {
		GV_LOG(WARNING, "%s: cannot register the config-change handler: no LSC", hw->name);
		dev->data->dev_flags &= ~RTE_ETH_DEV_INTR_LSC;
		return;
	}
	if (rte_intr_enable(p->ih)) {
		GV_LOG(WARNING, "%s: cannot enable the device's interrupts: no LSC", hw->name);
		while (rte_intr_callback_unregister(p->ih, intr_handler, dev) == -EAGAIN)
			rte_pause();
		dev->data->dev_flags &= ~RTE_ETH_DEV_INTR_LSC;
		return;
	}
	p->intr_cb = true;
	p->msix = type == RTE_INTR_HANDLE_VFIO_MSIX && p->caps.has_msix;
}

int gv_pci_intr_prepare(struct gv_hw *hw)
{
	struct rte_eth_dev *dev = &rte_eth_devices[hw->port_id];
	struct gv_pci *p = gv_pci_of(hw);
	uint16_t n = dev->data->dev_conf.intr_conf.rxq ? dev->data->nb_rx_queues : 0;
	uint16_t got;

	if (n && !p->msix) {
		GV_LOG(ERR, "%s: RX interrupts need MSI-X through vfio-pci", hw->name);
		return -ENOTSUP;
	}
	if (n && (uint32_t)n + 1 > p->caps.msix_table_size) {
		GV_LOG(ERR, "%s: %u RX interrupts need %u MSI-X vectors, the device has %u",
		       hw->name, n, n + 1, p->caps.msix_table_size);
		return -ENOSPC;
	}
	/* VFIO takes a new vector count only with MSI-X off: the device is not running. */
	if (p->msix && n != p->nb_rxq_intr) {
		rte_intr_disable(p->ih);
		if (p->nb_rxq_intr)
			rte_intr_efd_disable(p->ih);
		p->nb_rxq_intr = 0;
		if (n && rte_intr_efd_enable(p->ih, n)) {
			GV_LOG(ERR, "%s: no eventfds for %u RX interrupts", hw->name, n);
			rte_intr_enable(p->ih);
			return -ENOMEM;
		}
		if (rte_intr_enable(p->ih)) {
			GV_LOG(ERR, "%s: cannot enable %u MSI-X vectors", hw->name, n + 1);
			if (n)
				rte_intr_efd_disable(p->ih);
			rte_intr_enable(p->ih);
			return -EIO;
		}
		p->nb_rxq_intr = n;
	}
	if (p->msix && p->intr_cb) {
		got = p->regs->config_vector(p, 0);
		if (got != 0)
			GV_LOG(WARNING, "%s: the device refused MSI-X vector 0 for config changes "
			       "(kept 0x%x): link changes are seen when polled", hw->name, got);
	}
	p->irq_ready = true;
	return 0;
}

uint16_t gv_pci_intr_queue_vector(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_pci *p = gv_pci_of(hw);
	uint16_t qid = q->vq_idx / 2;

	q->callfd = -1;
	/* RX queues are the even indices below the control queue. */
	if (!p->msix || q->vq_idx % 2 || q == gv_ctrl_queue(hw) || qid >= p->nb_rxq_intr)
		return GV_PCI_NO_VECTOR;
	q->callfd = rte_intr_efds_index_get(p->ih, qid);
	return (uint16_t)(RTE_INTR_VEC_RXTX_OFFSET + qid);
}

void gv_pci_intr_fini(struct gv_hw *hw)
{
	struct rte_eth_dev *dev = &rte_eth_devices[hw->port_id];
	struct gv_pci *p = gv_pci_of(hw);

	p->closing = true;
	if (p->intr_cb) {
		rte_intr_disable(p->ih);
		/* -EAGAIN: the handler runs; it only try-locks, so it ends soon. */
		while (rte_intr_callback_unregister(p->ih, intr_handler, dev) == -EAGAIN)
			rte_pause();
		p->intr_cb = false;
	}
	rte_eal_alarm_cancel(config_retry, dev);
	if (p->nb_rxq_intr) {
		rte_intr_efd_disable(p->ih);
		p->nb_rxq_intr = 0;
	}
}
