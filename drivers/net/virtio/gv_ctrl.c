/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_ctrl.c - the control queue (driver side) and the ethdev ops that
 * speak through it: promiscuous / all-multicast, unicast and multicast
 * MAC tables, the MAC address, VLAN filters, the number of queue pairs.
 *
 * One command at a time under a lock; the answer is awaited with a
 * deadline. A command that times out leaves the queue "stuck": later
 * commands fail fast until the next configure (the buffer may still be
 * the device's, so it is never reused). Commands sent while the port is
 * stopped only record the wish; gv_ctrl_replay() applies it at start.
 */
#include <string.h>

#include <rte_cycles.h>
#include <rte_malloc.h>
#include <rte_memzone.h>
#include <rte_pause.h>
#include <rte_spinlock.h>

#include "gv_ctrl.h"
#include "gv_rss.h"

struct gv_ctrlq {
	struct gv_queue q;
	const struct rte_memzone *buf_mz; /* class/cmd, payload, ack */
	rte_spinlock_t lock;
	bool stuck;
};

#define ACK_OFF (2 + GV_CTRL_DATA_MAX)

int gv_ctrl_setup(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	/* After every queue pair the device has (MQ or RSS), else after one. */
	uint16_t idx = (uint16_t)(2 * (gv_has(hw, GV_NET_F_MQ) || gv_has(hw, GV_NET_F_RSS)
					       ? hw->max_queue_pairs
					       : 1));
	struct gv_ctrlq *c;
	char name[RTE_MEMZONE_NAMESIZE];
	int ret;

	gv_ctrl_release(hw);
	if (!gv_has(hw, GV_NET_F_CTRL_VQ) || gv_ops(hw)->ctrl)
		return 0;
	c = rte_zmalloc("gv_ctrlq", sizeof(*c), RTE_CACHE_LINE_SIZE);
	if (!c)
		return -ENOMEM;
	ret = gv_queue_alloc(dev, &c->q, idx, 0, 64, (unsigned int)rte_socket_id(), 0);
	if (ret) {
		rte_free(c);
		return ret;
	}
	snprintf(name, sizeof(name), "gv_p%u_ctrlbuf", dev->data->port_id);
	c->buf_mz = rte_memzone_reserve_aligned(name, ACK_OFF + 64, (int)rte_socket_id(),
						RTE_MEMZONE_IOVA_CONTIG, 64);
	if (!c->buf_mz) {
		gv_queue_free(&c->q);
		rte_free(c);
		return -ENOMEM;
	}
	rte_spinlock_init(&c->lock);
	hw->cvq = c;
	return 0;
}

void gv_ctrl_release(struct gv_hw *hw)
{
	struct gv_ctrlq *c = hw->cvq;

	if (!c)
		return;
	gv_queue_free(&c->q);
	rte_memzone_free(c->buf_mz);
	rte_free(c);
	hw->cvq = NULL;
}

struct gv_queue *gv_ctrl_queue(struct gv_hw *hw)
{
	return hw->cvq ? &hw->cvq->q : NULL;
}

void gv_ctrl_reset(struct gv_hw *hw)
{
	struct gv_ctrlq *c = hw->cvq;

	if (!c)
		return;
	while (gv_vq_detach(c->q.vq))
		;
	gv_vq_reset(c->q.vq);
	c->stuck = false;
}

static uint64_t buf_iova(struct gv_hw *hw, const struct rte_memzone *mz, uint32_t off)
{
	return (hw->use_va ? (uint64_t)(uintptr_t)mz->addr : mz->iova) + off;
}

static int ring_cmd(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const struct gv_ctrl_part *parts,
		    unsigned int n)
{
	struct gv_ctrlq *c = hw->cvq;
	uint8_t *buf = c->buf_mz->addr;
	struct gv_seg segs[8];
	uint16_t nseg = 0;
	uint32_t off = 2, len = 0;
	uint64_t deadline;
	void *cookie;
	int ret;

	if (c->stuck || gv_vq_broken(c->q.vq))
		return -EIO;
	buf[0] = cls;
	buf[1] = cmd;
	segs[nseg].addr = buf_iova(hw, c->buf_mz, 0);
	segs[nseg++].len = 2;
	for (unsigned int i = 0; i < n; i++) {
		if (parts[i].len == 0)
			continue;
		if (off + parts[i].len > ACK_OFF || nseg >= RTE_DIM(segs) - 1)
			return -E2BIG;
		memcpy(buf + off, parts[i].data, parts[i].len);
		segs[nseg].addr = buf_iova(hw, c->buf_mz, off);
		segs[nseg++].len = parts[i].len;
		off += parts[i].len;
	}
	buf[ACK_OFF] = 0xff; /* an ack the device never wrote reads as an error */
	segs[nseg].addr = buf_iova(hw, c->buf_mz, ACK_OFF);
	segs[nseg].len = 1;
	ret = gv_vq_add(c->q.vq, segs, nseg, 1, buf, false);
	if (ret)
		return ret;
	if (gv_vq_kick_prepare(c->q.vq))
		gv_ops(hw)->notify(hw, &c->q);
	deadline = rte_get_timer_cycles() + rte_get_timer_hz() * GV_CTRL_TIMEOUT_MS / 1000;
	while (gv_vq_get_used(c->q.vq, &cookie, &len, 1) == 0) {
		if (gv_vq_broken(c->q.vq))
			return -EIO;
		if (rte_get_timer_cycles() > deadline) {
			c->stuck = true;
			GV_LOG(ERR, "%s: control command %u.%u got no answer in %u ms; "
			       "the control queue is unusable until the next configure",
			       hw->name, cls, cmd, GV_CTRL_TIMEOUT_MS);
			return -ETIMEDOUT;
		}
		rte_pause();
	}
	if (len < 1 || buf[ACK_OFF] != GV_CTRL_OK)
		return -EIO;
	return 0;
}

int gv_ctrl_cmd(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const struct gv_ctrl_part *parts,
		unsigned int n)
{
	int ret;

	if (gv_ops(hw)->ctrl) {
		uint8_t flat[GV_CTRL_DATA_MAX];
		uint32_t len = 0;

		for (unsigned int i = 0; i < n; i++) {
			if (len + parts[i].len > sizeof(flat))
				return -E2BIG;
			memcpy(flat + len, parts[i].data, parts[i].len);
			len += parts[i].len;
		}
		return gv_ops(hw)->ctrl(hw, cls, cmd, flat, len);
	}
	if (!hw->cvq)
		return -ENOTSUP;
	rte_spinlock_lock(&hw->cvq->lock);
	ret = ring_cmd(hw, cls, cmd, parts, n);
	rte_spinlock_unlock(&hw->cvq->lock);
	if (ret)
		GV_LOG(ERR, "%s: control command %u.%u failed: %s", hw->name, cls, cmd,
		       strerror(-ret));
	return ret;
}

/* A command is only sent to a started device; before that it is a wish. */
static int maybe_cmd(struct rte_eth_dev *dev, unsigned int feature, uint8_t cls, uint8_t cmd,
		     const struct gv_ctrl_part *parts, unsigned int n)
{
	struct gv_hw *hw = dev->data->dev_private;

	if (hw->negotiated && !gv_has(hw, feature))
		return -ENOTSUP;
	if (!hw->started)
		return 0;
	return gv_ctrl_cmd(hw, cls, cmd, parts, n);
}

static int rx_mode(struct rte_eth_dev *dev, uint8_t cmd, uint8_t on)
{
	struct gv_ctrl_part p = { &on, 1 };

	return maybe_cmd(dev, GV_NET_F_CTRL_RX, GV_CTRL_RX, cmd, &p, 1);
}

int gv_promiscuous_enable(struct rte_eth_dev *dev)
{
	return rx_mode(dev, GV_CTRL_RX_PROMISC, 1);
}

int gv_promiscuous_disable(struct rte_eth_dev *dev)
{
	return rx_mode(dev, GV_CTRL_RX_PROMISC, 0);
}

int gv_allmulticast_enable(struct rte_eth_dev *dev)
{
	return rx_mode(dev, GV_CTRL_RX_ALLMULTI, 1);
}

int gv_allmulticast_disable(struct rte_eth_dev *dev)
{
	return rx_mode(dev, GV_CTRL_RX_ALLMULTI, 0);
}

/* MAC_TABLE_SET: the extra unicast addresses, then the multicast list. */
static int send_mac_tables(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct rte_ether_addr uc[GV_MAX_MAC_ADDRS];
	uint32_t n_uc = 0, n_mc = hw->n_mc;
	struct gv_ctrl_part p[4];

	for (uint32_t i = 1; i < GV_MAX_MAC_ADDRS; i++)
		if (!rte_is_zero_ether_addr(&dev->data->mac_addrs[i]))
			uc[n_uc++] = dev->data->mac_addrs[i];
	p[0] = (struct gv_ctrl_part){ &n_uc, 4 };
	p[1] = (struct gv_ctrl_part){ uc, n_uc * RTE_ETHER_ADDR_LEN };
	p[2] = (struct gv_ctrl_part){ &n_mc, 4 };
	p[3] = (struct gv_ctrl_part){ hw->mc, n_mc * RTE_ETHER_ADDR_LEN };
	return maybe_cmd(dev, GV_NET_F_CTRL_RX, GV_CTRL_MAC, GV_CTRL_MAC_TABLE_SET, p, 4);
}

int gv_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *mac, uint32_t index,
		    uint32_t vmdq)
{
	struct rte_ether_addr old = dev->data->mac_addrs[index];
	int ret;

	(void)vmdq;
	if (index == 0 || index >= GV_MAX_MAC_ADDRS)
		return -EINVAL;
	/* ethdev stores it after we succeed; the table needs it now. */
	dev->data->mac_addrs[index] = *mac;
	ret = send_mac_tables(dev);
	if (ret)
		dev->data->mac_addrs[index] = old;
	return ret;
}

void gv_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index)
{
	if (index == 0 || index >= GV_MAX_MAC_ADDRS)
		return;
	memset(&dev->data->mac_addrs[index], 0, sizeof(struct rte_ether_addr));
	send_mac_tables(dev);
}

int gv_set_mc_addr_list(struct rte_eth_dev *dev, struct rte_ether_addr *mc, uint32_t n)
{
	struct gv_hw *hw = dev->data->dev_private;

	if (n > GV_MAX_MC_ADDRS) {
		GV_LOG(ERR, "%s: %u multicast addresses, at most %u", hw->name, n, GV_MAX_MC_ADDRS);
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!rte_is_multicast_ether_addr(&mc[i]))
			return -EINVAL;
		hw->mc[i] = mc[i];
	}
	hw->n_mc = n;
	return send_mac_tables(dev);
}

int gv_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_ctrl_part p = { mac->addr_bytes, RTE_ETHER_ADDR_LEN };
	int ret = 0;

	if (hw->started && gv_has(hw, GV_NET_F_CTRL_MAC_ADDR))
		ret = gv_ctrl_cmd(hw, GV_CTRL_MAC, GV_CTRL_MAC_ADDR_SET, &p, 1);
	if (ret)
		return ret;
	rte_ether_addr_copy(mac, &hw->mac);
	hw->mac_from_app = true;
	return 0;
}

int gv_vlan_filter_set(struct rte_eth_dev *dev, uint16_t vid, int on)
{
	struct gv_ctrl_part p = { &vid, 2 };

	if (vid > RTE_ETHER_MAX_VLAN_ID)
		return -EINVAL;
	return maybe_cmd(dev, GV_NET_F_CTRL_VLAN, GV_CTRL_VLAN,
			 on ? GV_CTRL_VLAN_ADD : GV_CTRL_VLAN_DEL, &p, 1);
}

int gv_ctrl_set_pairs(struct rte_eth_dev *dev, uint16_t pairs)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_ctrl_part p = { &pairs, 2 };

	if (!gv_has(hw, GV_NET_F_MQ) && !gv_has(hw, GV_NET_F_RSS))
		return pairs == 1 ? 0 : -ENOTSUP;
	/* With RSS, RSS_CONFIG (its max_tx_vq) replaces VQ_PAIRS_SET. */
	if (hw->rss.enabled)
		return 0;
	return gv_ctrl_cmd(hw, GV_CTRL_MQ, GV_CTRL_MQ_VQ_PAIRS_SET, &p, 1);
}

/* At start: tell the device everything the app asked for while stopped. */
int gv_ctrl_replay(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	uint16_t pairs = RTE_MAX(dev->data->nb_rx_queues, dev->data->nb_tx_queues);
	int ret;

	ret = gv_ctrl_set_pairs(dev, pairs);
	if (ret == 0)
		ret = gv_rss_apply(dev);
	if (ret)
		return ret;
	if (!gv_has(hw, GV_NET_F_CTRL_RX))
		return 0;
	/* A device that cannot filter refuses "off" states (-ENOTSUP): fine. */
	ret = rx_mode(dev, GV_CTRL_RX_PROMISC, dev->data->promiscuous);
	if (ret == 0 || ret == -ENOTSUP)
		ret = rx_mode(dev, GV_CTRL_RX_ALLMULTI, dev->data->all_multicast);
	if ((ret == 0 || ret == -ENOTSUP) && gv_has(hw, GV_NET_F_CTRL_MAC_ADDR)) {
		struct gv_ctrl_part p = { hw->mac.addr_bytes, RTE_ETHER_ADDR_LEN };

		ret = gv_ctrl_cmd(hw, GV_CTRL_MAC, GV_CTRL_MAC_ADDR_SET, &p, 1);
	}
	if (ret == 0 || ret == -ENOTSUP)
		ret = send_mac_tables(dev);
	if (ret == -ENOTSUP)
		ret = 0;
	if (ret == 0 && gv_has(hw, GV_NET_F_CTRL_VLAN) &&
	    (dev->data->dev_conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_VLAN_FILTER)) {
		const struct rte_vlan_filter_conf *vf = &dev->data->vlan_filter_conf;

		for (uint16_t vid = 0; ret == 0 && vid <= RTE_ETHER_MAX_VLAN_ID; vid++)
			if (vf->ids[vid / 64] & (1ull << (vid % 64)))
				ret = gv_vlan_filter_set(dev, vid, 1);
	}
	return ret;
}
