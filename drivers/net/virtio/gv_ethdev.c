/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_ethdev.c - the ethdev ops of a gvirtio port: feature negotiation
 * (only what the app's configuration needs), queue set-up and release,
 * start/stop/close/reset, link, MTU and MAC. Transport-neutral: the
 * device is reached through gv_ops(hw) only. Counters are in gv_stats.c.
 */
#include <string.h>

#include <ethdev_driver.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>
#include <rte_memzone.h>

#include "gv_ctrl.h"
#include "gv_offload.h"
#include "gv_path.h"
#include "gv_queue.h"
#include "gv_rss.h"
#include "gv_stats.h"

RTE_LOG_REGISTER(gv_logtype, pmd.net.gvirtio, NOTICE);

const struct gv_transport_ops *gv_tp_table[GV_TP_MAX];

#define GV_MAX_RX_PKTLEN 9728

static struct gv_hw *hw_of(struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* Feature bits the PMD can use at all, before looking at the app's needs. */
static uint64_t wanted_features(const struct gv_hw *hw, const struct rte_eth_conf *conf)
{
	uint64_t f = GV_BIT(GV_F_VERSION_1) | GV_BIT(GV_NET_F_MAC) | GV_BIT(GV_NET_F_STATUS) |
		     GV_BIT(GV_NET_F_MTU) | GV_BIT(GV_F_RING_EVENT_IDX) |
		     GV_BIT(GV_F_ORDER_PLATFORM) | GV_BIT(GV_F_ACCESS_PLATFORM) |
		     GV_BIT(GV_NET_F_SPEED_DUPLEX) |
		     /* promiscuous, multicast and MAC ops are runtime calls: always */
		     GV_BIT(GV_NET_F_CTRL_VQ) | GV_BIT(GV_NET_F_CTRL_RX) |
		     GV_BIT(GV_NET_F_CTRL_MAC_ADDR) |
		     /* after a migration the device asks us to announce our MAC */
		     GV_BIT(GV_NET_F_GUEST_ANNOUNCE);
	uint16_t pairs = RTE_MAX(hw->nb_rxq_conf, hw->nb_txq_conf);

	if (pairs > 1)
		f |= GV_BIT(GV_NET_F_MQ);
	if (conf->rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_FILTER)
		f |= GV_BIT(GV_NET_F_CTRL_VLAN);
	if (conf->rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG)
		f |= GV_BIT(GV_NET_F_RSS);

	if (hw->want_packed)
		f |= GV_BIT(GV_F_RING_PACKED);
	if (hw->want_mrg)
		f |= GV_BIT(GV_NET_F_MRG_RXBUF);
	/* datapath=simple is the path without IN_ORDER: do not ask for it. */
	if (hw->want_in_order && hw->force_path != GV_FORCE_SIMPLE)
		f |= GV_BIT(GV_F_IN_ORDER);
	f |= gv_offload_features(conf->rxmode.offloads, conf->txmode.offloads);
	f |= gv_ops(hw)->tp_features;
	/* Indirect tables only help chains: multi-segment TX or chained RX. */
	if ((conf->txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ||
	    (conf->rxmode.offloads & RTE_ETH_RX_OFFLOAD_SCATTER) || hw->force_path == GV_FORCE_FULL)
		f |= GV_BIT(GV_F_RING_INDIRECT_DESC);
	return f;
}

static int negotiate(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	const struct rte_eth_conf *conf = &dev->data->dev_conf;
	char buf[512];
	uint64_t want;
	int ret;

	ret = gv_ops(hw)->reset(hw);
	if (ret == 0)
		ret = gv_ops(hw)->get_features(hw, &hw->host_features);
	if (ret) {
		GV_LOG(ERR, "%s: device not reachable: %s", hw->name, strerror(-ret));
		return ret;
	}
	want = wanted_features(hw, conf);
	hw->features = hw->host_features & want;
	ret = gv_ops(hw)->set_features(hw, hw->features);
	if (ret) {
		GV_LOG(ERR, "%s: device refused features: %s", hw->name, strerror(-ret));
		return ret;
	}
	GV_LOG(INFO, "%s: device offers %s", hw->name,
	       gv_features_str(hw->host_features, buf, sizeof(buf)));
	GV_LOG(INFO, "%s: negotiated %s", hw->name, gv_features_str(hw->features, buf, sizeof(buf)));
	hw->layout = gv_has(hw, GV_F_RING_PACKED) ? GV_LAYOUT_PACKED : GV_LAYOUT_SPLIT;
	hw->barrier = GV_BARRIER_SMP;
	if (gv_has(hw, GV_F_ORDER_PLATFORM) || hw->force_mandatory)
		hw->barrier = GV_BARRIER_MANDATORY;
	hw->hdr_size = gv_net_hdr_size(hw->features);
	if (hw->want_packed && hw->layout != GV_LAYOUT_PACKED)
		GV_LOG(WARNING, "%s: packed ring asked for but not offered: using split", hw->name);
	GV_LOG(INFO, "%s: %s barriers (%s)", hw->name,
	       hw->barrier == GV_BARRIER_MANDATORY ? "mandatory" : "SMP",
	       gv_has(hw, GV_F_ORDER_PLATFORM) ? "ORDER_PLATFORM"
	       : hw->force_mandatory ? "barrier=mandatory" : "device is a CPU");
	if (gv_has(hw, GV_NET_F_MTU)) {
		uint16_t mtu = 0;

		if (gv_ops(hw)->read_config(hw, GV_NET_CFG_MTU, &mtu, sizeof(mtu)) == 0 && mtu >= 68)
			hw->max_mtu = mtu;
	}
	if (gv_has(hw, GV_NET_F_SPEED_DUPLEX) && !hw->speed) {
		uint32_t speed = 0;

		/* UINT32_MAX: unknown (virtio 1.2 5.1.4) */
		if (gv_ops(hw)->read_config(hw, GV_NET_CFG_SPEED, &speed, 4) == 0 && speed &&
		    speed != UINT32_MAX)
			hw->speed = speed;
	}
	/*
	 * The device's MAC, unless the app has set its own (kept across
	 * resets); one that is not a unicast address (multicast, zero) is
	 * refused and the port keeps the one it has.
	 */
	if (gv_has(hw, GV_NET_F_MAC) && !hw->mac_from_app) {
		struct rte_ether_addr mac;

		if (gv_ops(hw)->read_config(hw, GV_NET_CFG_MAC, &mac, RTE_ETHER_ADDR_LEN) == 0) {
			if (rte_is_valid_assigned_ether_addr(&mac)) {
				rte_ether_addr_copy(&mac, &hw->mac);
				rte_ether_addr_copy(&mac, &dev->data->mac_addrs[0]);
			} else {
				GV_LOG(WARNING, "%s: the device's MAC " RTE_ETHER_ADDR_PRT_FMT
				       " is not a unicast address: kept " RTE_ETHER_ADDR_PRT_FMT,
				       hw->name, RTE_ETHER_ADDR_BYTES(&mac),
				       RTE_ETHER_ADDR_BYTES(&hw->mac));
			}
		}
	}
	hw->negotiated = true;
	return 0;
}

static int gv_dev_configure(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	uint16_t pairs = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	int ret;

	if (pairs > hw->max_queue_pairs) {
		GV_LOG(ERR, "%s: %u queue pairs asked for, the device offers %u (queues= devarg)",
		       hw->name, pairs, hw->max_queue_pairs);
		return -EINVAL;
	}
	if (dev->data->mtu > hw->max_mtu) {
		GV_LOG(ERR, "%s: MTU %u above the device's maximum %u", hw->name, dev->data->mtu,
		       hw->max_mtu);
		return -EINVAL;
	}
	hw->nb_rxq_conf = dev->data->nb_rx_queues;
	hw->nb_txq_conf = dev->data->nb_tx_queues;
	pthread_mutex_lock(&hw->ctl_lock);
	ret = negotiate(dev);
	if (ret == 0)
		ret = gv_ctrl_setup(dev);
	if (ret == 0) {
		gv_rss_init(dev, hw->features);
		ret = gv_rss_configure(dev);
	}
	pthread_mutex_unlock(&hw->ctl_lock);
	if (ret == 0 && pairs > 1 && !gv_has(hw, GV_NET_F_MQ) && gv_ops(hw)->ctrl == NULL) {
		GV_LOG(ERR, "%s: %u queue pairs need multi-queue (MQ), which the device lacks",
		       hw->name, pairs);
		ret = -ENOTSUP;
	}
	return ret;
}

/* Primary and secondary processes (reads the transport only in the primary). */
int gv_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct gv_hw *hw = hw_of(dev);
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	uint16_t qmax = hw->desc_max;

	info->max_rx_queues = hw->max_queue_pairs;
	info->max_tx_queues = hw->max_queue_pairs;
	info->min_rx_bufsize = 64;
	info->max_rx_pktlen = (uint32_t)hw->max_mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = hw->max_mtu;
	info->max_mac_addrs = GV_MAX_MAC_ADDRS;
	uint64_t offered = hw->host_features;

	if (!hw->negotiated && primary)
		gv_ops(hw)->get_features(hw, &offered);
	info->rx_offload_capa = gv_rx_offload_capa(offered);
	info->tx_offload_capa = gv_tx_offload_capa(offered);
	if (!hw->negotiated && primary)
		gv_rss_init(dev, offered);
	gv_rss_infos(dev, info);
	info->rx_desc_lim.nb_max = qmax;
	info->rx_desc_lim.nb_min = 2;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxportconf.ring_size = hw->queue_size;
	info->default_txportconf.ring_size = hw->queue_size;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	/* speed=, or the device's: its bit (as DPDK's virtio PMD reports it), else 0. */
	info->speed_capa = hw->speed ? rte_eth_speed_bitflag(hw->speed, RTE_ETH_LINK_FULL_DUPLEX)
				     : RTE_ETH_LINK_SPEED_AUTONEG;
	info->dev_capa = 0;
	return 0;
}

/*
 * RX interrupts (intr_conf.rxq): each RX queue's call eventfd becomes an
 * efd of the port's interrupt handle, so rte_eth_dev_rx_intr_ctl_q() and
 * the epoll helpers work; enable/disable ask the device through the ring.
 */
static int rx_intr_setup(struct rte_eth_dev *dev)
{
	uint16_t n = dev->data->nb_rx_queues;
	struct rte_intr_handle *ih;

	if (!dev->data->dev_conf.intr_conf.rxq)
		return 0;
	if (!dev->intr_handle) {
		dev->intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
		if (!dev->intr_handle)
			return -ENOMEM;
	}
	ih = dev->intr_handle;
	rte_intr_vec_list_free(ih);
	if (rte_intr_type_set(ih, RTE_INTR_HANDLE_VDEV) || rte_intr_nb_efd_set(ih, n) ||
	    rte_intr_max_intr_set(ih, n + 1) || rte_intr_efd_counter_size_set(ih, 8) ||
	    rte_intr_vec_list_alloc(ih, "gv_rx_intr", n))
		return -ENOMEM;
	for (uint16_t i = 0; i < n; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		if (rxq->q.callfd < 0) {
			GV_LOG(ERR, "%s: rx queue %u has no interrupt fd", dev->data->name, i);
			return -ENOTSUP;
		}
		if (rte_intr_efds_index_set(ih, i, rxq->q.callfd) ||
		    rte_intr_vec_list_index_set(ih, i, RTE_INTR_VEC_RXTX_OFFSET + i))
			return -EINVAL;
	}
	return 0;
}

static int gv_rx_intr_enable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct gv_rxq *rxq = dev->data->rx_queues[qid];

	/* Pending packets are fine: the app polls once more after enabling. */
	gv_vq_enable_cb(rxq->q.vq);
	return 0;
}

static int gv_rx_intr_disable(struct rte_eth_dev *dev, uint16_t qid)
{
	struct gv_rxq *rxq = dev->data->rx_queues[qid];

	gv_vq_disable_cb(rxq->q.vq);
	return 0;
}

/* The device no longer touches the rings: take every mbuf back. */
static void drain_all(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);

	gv_ctrl_reset(hw);
	gv_queues_drain(dev);
}

/*
 * Hand every (reset) ring to the device and start it: queues, control
 * queue, DRIVER_OK, the control state, RX buffers. Shared by start and
 * by a restart under a running port; on an error the caller stops the
 * device and drains every queue (buffers already posted come back).
 */
static int rings_go(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	int ret = 0;

	for (uint16_t i = 0; ret == 0 && i < dev->data->nb_rx_queues; i++)
		ret = gv_ops(hw)->setup_queue(hw, &((struct gv_rxq *)dev->data->rx_queues[i])->q);
	for (uint16_t i = 0; ret == 0 && i < dev->data->nb_tx_queues; i++)
		ret = gv_ops(hw)->setup_queue(hw, &((struct gv_txq *)dev->data->tx_queues[i])->q);
	if (ret == 0 && gv_ctrl_queue(hw))
		ret = gv_ops(hw)->setup_queue(hw, gv_ctrl_queue(hw));
	if (ret == 0)
		ret = gv_ops(hw)->start(hw);
	if (ret)
		return ret;
	hw->started = true;
	ret = gv_ctrl_replay(dev);
	if (ret == 0)
		ret = rx_intr_setup(dev);
	if (ret) {
		hw->started = false;
		return ret;
	}
	ret = gv_queues_start(dev);
	if (ret)
		hw->started = false;
	return ret;
}

/* The largest frame of an MTU as a buffer holds it: VLAN tag, CRC and virtio-net header. */
static uint32_t rx_frame(const struct gv_hw *hw, uint16_t mtu)
{
	return (uint32_t)mtu + RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN + RTE_VLAN_HLEN + hw->hdr_size;
}

static int do_start(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	const struct rte_eth_conf *conf = &dev->data->dev_conf;
	uint32_t frame = rx_frame(hw, dev->data->mtu);
	uint32_t room = gv_rx_mbuf_room(dev);
	int ret;

	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++)
		if (!dev->data->rx_queues[i]) {
			GV_LOG(ERR, "%s: rx queue %u not set up", hw->name, i);
			return -EINVAL;
		}
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++)
		if (!dev->data->tx_queues[i]) {
			GV_LOG(ERR, "%s: tx queue %u not set up", hw->name, i);
			return -EINVAL;
		}
	ret = gv_path_select(hw, conf->rxmode.offloads, conf->txmode.offloads, frame, room);
	if (ret)
		return ret;
	/* Queues a NEEDS_RESET left paused (no burst runs on a stopped port). */
	gv_queues_each(dev, gv_queue_resume);
	ret = gv_queues_configure(dev, frame, room);
	if (ret)
		return ret;
	/* Held while the rings are built: no queue op (tx cleanup, monitor) sees them half-made. */
	gv_queues_each(dev, gv_queue_pause);
	ret = rings_go(dev);
	gv_queues_each(dev, gv_queue_resume);
	if (ret) {
		GV_LOG(ERR, "%s: start failed: %s", hw->name, strerror(-ret));
		gv_ops(hw)->stop(hw);
		drain_all(dev);
		return ret;
	}
	gv_path_install(dev, true);
	gv_queues_start_states(dev);
	dev->data->dev_started = 1;
	gv_link_refresh(dev);
	return 0;
}

static int do_stop(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);

	gv_path_install(dev, false);
	/* An lcore still in a burst finishes it before the rings go. */
	gv_queues_each(dev, gv_queue_pause);
	if (hw->started)
		gv_ops(hw)->stop(hw);
	hw->started = false;
	drain_all(dev);
	gv_queues_each(dev, gv_queue_resume);
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++)
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++)
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	dev->data->dev_started = 0;
	gv_link_refresh(dev);
	return 0;
}

int gv_port_rings_restart(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	int ret;

	if (!dev->data->dev_started)
		return 0;
	gv_queues_each(dev, gv_queue_pause);
	gv_ops(hw)->stop(hw);
	hw->started = false;
	drain_all(dev);
	ret = rings_go(dev);
	if (ret) {
		GV_LOG(ERR, "%s: could not restart the rings: %s", hw->name, strerror(-ret));
		gv_ops(hw)->stop(hw);
		drain_all(dev);
	}
	gv_queues_each(dev, gv_queue_resume);
	if (ret == 0)
		GV_LOG(NOTICE, "%s: rings restarted with the device: traffic resumes", hw->name);
	gv_link_refresh(dev);
	if (dev->data->dev_conf.intr_conf.lsc)
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	return ret;
}

void gv_port_needs_reset(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);

	GV_LOG(ERR, "%s: the device needs a reset: queues stopped, link down; recover with "
	       "rte_eth_dev_reset() and a new configure", hw->name);
	gv_queues_each(dev, gv_queue_pause);
	gv_config_changed(dev);
}

static int gv_dev_start(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	int ret;

	pthread_mutex_lock(&hw->ctl_lock);
	ret = do_start(dev);
	pthread_mutex_unlock(&hw->ctl_lock);
	return ret;
}

static int gv_dev_stop(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);
	int ret;

	pthread_mutex_lock(&hw->ctl_lock);
	ret = do_stop(dev);
	pthread_mutex_unlock(&hw->ctl_lock);
	return ret;
}

static int gv_dev_close(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	pthread_mutex_lock(&hw->ctl_lock);
	if (dev->data->dev_started)
		do_stop(dev);
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++)
		gv_rx_queue_release(dev, i);
	for (uint16_t i = 0; i < dev->data->nb_tx_queues; i++)
		gv_tx_queue_release(dev, i);
	gv_ctrl_release(hw);
	if (gv_ops(hw))
		gv_ops(hw)->close(hw);
	/* instance_free does not free the vector list. */
	rte_intr_vec_list_free(dev->intr_handle);
	rte_intr_instance_free(dev->intr_handle);
	dev->intr_handle = NULL;
	pthread_mutex_unlock(&hw->ctl_lock);
	hw->tp_id = GV_TP_NONE;
	return 0;
}

static int gv_dev_reset(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = hw_of(dev);

	if (dev->data->dev_started)
		gv_dev_stop(dev);
	hw->negotiated = false;
	return gv_ops(hw)->reset(hw);
}

static int gv_link_update(struct rte_eth_dev *dev, int wait)
{
	(void)wait;
	return gv_link_refresh(dev);
}


static int gv_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct gv_hw *hw = hw_of(dev);

	if (mtu > hw->max_mtu) {
		GV_LOG(ERR, "%s: MTU %u above the device's maximum %u", hw->name, mtu, hw->max_mtu);
		return -EINVAL;
	}
	if (dev->data->dev_started) {
		const uint32_t frame = rx_frame(hw, mtu);
		const uint32_t room = gv_rx_mbuf_room(dev);

		/* One-mbuf paths; with mergeable buffers the vector paths chain (gv_rx_vec.h). */
		if (gv_port_rx_path(hw)->p.one_mbuf && !gv_has(hw, GV_NET_F_MRG_RXBUF) &&
		    frame > room) {
			GV_LOG(ERR, "%s: MTU %u does not fit the running rx path; stop the port first",
			       hw->name, mtu);
			return -EBUSY;
		}
		/* Larger packets may take more buffers: the refill points again. */
		gv_queues_refill_points(dev, frame, room);
	}
	return 0;
}

static const struct eth_dev_ops gv_eth_ops = {
	.dev_configure = gv_dev_configure,
	.dev_infos_get = gv_dev_infos_get,
	.dev_start = gv_dev_start,
	.dev_stop = gv_dev_stop,
	.dev_close = gv_dev_close,
	.dev_reset = gv_dev_reset,
	.link_update = gv_link_update,
	.rx_queue_setup = gv_rx_queue_setup,
	.rx_queue_start = gv_rx_queue_start,
	.rx_queue_stop = gv_rx_queue_stop,
	.tx_queue_start = gv_tx_queue_start,
	.tx_queue_stop = gv_tx_queue_stop,
	.rx_queue_release = gv_rx_queue_release,
	.tx_queue_setup = gv_tx_queue_setup,
	.tx_queue_release = gv_tx_queue_release,
	.mtu_set = gv_mtu_set,
	.mac_addr_set = gv_mac_addr_set,
	.mac_addr_add = gv_mac_addr_add,
	.mac_addr_remove = gv_mac_addr_remove,
	.set_mc_addr_list = gv_set_mc_addr_list,
	.promiscuous_enable = gv_promiscuous_enable,
	.promiscuous_disable = gv_promiscuous_disable,
	.allmulticast_enable = gv_allmulticast_enable,
	.allmulticast_disable = gv_allmulticast_disable,
	.vlan_filter_set = gv_vlan_filter_set,
	.vlan_offload_set = gv_vlan_offload_set,
	.rss_hash_update = gv_rss_hash_update,
	.rss_hash_conf_get = gv_rss_hash_conf_get,
	.reta_update = gv_reta_update,
	.reta_query = gv_reta_query,
	.rx_queue_intr_enable = gv_rx_intr_enable,
	.rx_queue_intr_disable = gv_rx_intr_disable,
	.stats_get = gv_stats_get,
	.stats_reset = gv_stats_reset,
	.xstats_get = gv_xstats_get,
	.xstats_get_names = gv_xstats_get_names,
	.xstats_reset = gv_stats_reset,
	.rx_burst_mode_get = gv_rx_burst_mode_get,
	.tx_burst_mode_get = gv_tx_burst_mode_get,
	.rxq_info_get = gv_rxq_info_get,
	.tx_done_cleanup = gv_tx_done_cleanup,
	.get_monitor_addr = gv_get_monitor_addr,
	.txq_info_get = gv_txq_info_get,
};

bool gv_is_port(const struct rte_eth_dev *dev)
{
	return dev->dev_ops == &gv_eth_ops;
}

/* Common part of probing, after the transport found its device. */
int gv_ethdev_init(struct rte_eth_dev *dev, struct gv_hw *hw)
{
	dev->dev_ops = &gv_eth_ops;
	gv_path_install(dev, false);
	hw->port_id = dev->data->port_id;
	pthread_mutex_init(&hw->ctl_lock, NULL);
	hw->desc_max = gv_ops(hw)->queue_max(hw, 0);
	if (!hw->max_mtu)
		hw->max_mtu = GV_MAX_RX_PKTLEN - RTE_ETHER_HDR_LEN - RTE_ETHER_CRC_LEN;
	dev->data->mac_addrs = rte_zmalloc("gv_mac", RTE_ETHER_ADDR_LEN * GV_MAX_MAC_ADDRS, 0);
	if (!dev->data->mac_addrs)
		return -ENOMEM;
	rte_ether_addr_copy(&hw->mac, &dev->data->mac_addrs[0]);
	dev->data->mtu = RTE_MIN((uint16_t)RTE_ETHER_MTU, hw->max_mtu);
	return 0;
}
