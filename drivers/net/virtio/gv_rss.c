/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_rss.c - receive-side scaling by the device (VIRTIO_NET_F_RSS): the
 * hash key, hash types and indirection table the app sets through
 * rte_eth_dev_rss_hash_update / rss_reta_update, sent with the control
 * queue's MQ RSS_CONFIG command; and the hash report (HASH_REPORT) into
 * mbuf->hash.rss. Limits come from the device's config space.
 */
#include <string.h>

#include <rte_ethdev.h>

#include "gv_ctrl.h"
#include "gv_rss.h"

/* ethdev RSS flow types <-> virtio hash types. */
static const struct {
	uint64_t eth;
	uint32_t vio;
} type_map[] = {
	{ RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_OTHER, GV_HASH_IPV4 },
	{ RTE_ETH_RSS_NONFRAG_IPV4_TCP, GV_HASH_TCPV4 },
	{ RTE_ETH_RSS_NONFRAG_IPV4_UDP, GV_HASH_UDPV4 },
	{ RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | RTE_ETH_RSS_NONFRAG_IPV6_OTHER, GV_HASH_IPV6 },
	{ RTE_ETH_RSS_NONFRAG_IPV6_TCP, GV_HASH_TCPV6 },
	{ RTE_ETH_RSS_NONFRAG_IPV6_UDP, GV_HASH_UDPV6 },
	{ RTE_ETH_RSS_IPV6_EX, GV_HASH_IP_EX },
	{ RTE_ETH_RSS_IPV6_TCP_EX, GV_HASH_TCP_EX },
	{ RTE_ETH_RSS_IPV6_UDP_EX, GV_HASH_UDP_EX },
};

static uint32_t to_virtio(uint64_t hf)
{
	uint32_t t = 0;

	for (size_t i = 0; i < RTE_DIM(type_map); i++)
		if (hf & type_map[i].eth)
			t |= type_map[i].vio;
	return t;
}

static uint64_t to_ethdev(uint32_t t)
{
	uint64_t hf = 0;

	for (size_t i = 0; i < RTE_DIM(type_map); i++)
		if (t & type_map[i].vio)
			hf |= type_map[i].eth;
	return hf;
}

/* A default key (any fixed pattern spreads well; apps set their own). */
static void default_key(uint8_t *key, uint8_t len)
{
	for (uint8_t i = 0; i < len; i++)
		key[i] = (uint8_t)(0x6d + 0x5a * i);
}

void gv_rss_init(struct rte_eth_dev *dev, uint64_t features)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_rss *r = &hw->rss;
	uint8_t key_size = 0;
	uint16_t tbl = 0;
	uint32_t types = 0;

	memset(r, 0, sizeof(*r));
	if (!(features & GV_BIT(GV_NET_F_RSS)))
		return;
	if (gv_ops(hw)->read_config(hw, GV_NET_CFG_RSS_KEY_SIZE, &key_size, 1) ||
	    gv_ops(hw)->read_config(hw, GV_NET_CFG_RSS_TABLE_LEN, &tbl, 2) ||
	    gv_ops(hw)->read_config(hw, GV_NET_CFG_HASH_TYPES, &types, 4) || key_size == 0 ||
	    tbl == 0 || (tbl & (tbl - 1))) {
		GV_LOG(WARNING, "%s: RSS offered with unusable limits (key %u, table %u): off",
		       hw->name, key_size, tbl);
		return;
	}
	r->key_size = RTE_MIN(key_size, (uint8_t)GV_RSS_KEY_MAX);
	r->reta_size = RTE_MIN(tbl, (uint16_t)GV_RSS_RETA_MAX);
	r->supported = types;
	r->types = types;
	default_key(r->key, r->key_size);
	r->usable = true;
}

/* The app's rte_eth_conf asks for RSS: start from it. */
int gv_rss_configure(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_rss *r = &hw->rss;
	const struct rte_eth_rss_conf *c = &dev->data->dev_conf.rx_adv_conf.rss_conf;
	uint16_t nq = RTE_MAX(dev->data->nb_rx_queues, (uint16_t)1);

	r->enabled = (dev->data->dev_conf.rxmode.mq_mode & RTE_ETH_MQ_RX_RSS_FLAG) && r->usable;
	if (!r->enabled)
		return 0;
	if (c->rss_hf)
		r->types = to_virtio(c->rss_hf) & r->supported;
	if (c->rss_key && c->rss_key_len) {
		if (c->rss_key_len != r->key_size) {
			GV_LOG(ERR, "%s: RSS key of %u bytes, the device takes %u", hw->name,
			       c->rss_key_len, r->key_size);
			return -EINVAL;
		}
		memcpy(r->key, c->rss_key, r->key_size);
	}
	for (uint16_t i = 0; i < r->reta_size; i++)
		r->reta[i] = i % nq;
	return 0;
}

/* MQ RSS_CONFIG with the current state (virtio 1.2 5.1.6.5.7.1). */
int gv_rss_apply(struct rte_eth_dev *dev)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_rss *r = &hw->rss;
	struct {
		uint32_t hash_types;
		uint16_t mask;
		uint16_t unclassified;
	} __rte_packed head = { r->types, (uint16_t)(r->reta_size - 1), 0 };
	struct {
		uint16_t max_tx_vq;
		uint8_t key_len;
	} __rte_packed tail = { RTE_MAX(dev->data->nb_tx_queues, (uint16_t)1), r->key_size };
	struct gv_ctrl_part p[4] = {
		{ &head, sizeof(head) },
		{ r->reta, (uint32_t)r->reta_size * 2 },
		{ &tail, sizeof(tail) },
		{ r->key, r->key_size },
	};

	if (!r->enabled || !hw->started)
		return 0;
	return gv_ctrl_cmd(hw, GV_CTRL_MQ, GV_CTRL_MQ_RSS_CONFIG, p, RTE_DIM(p));
}

int gv_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *c)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_rss *r = &hw->rss;
	struct gv_rss old = *r;
	int ret;

	if (!r->enabled)
		return -ENOTSUP;
	if (c->rss_key && c->rss_key_len != r->key_size)
		return -EINVAL;
	if (to_virtio(c->rss_hf) & ~r->supported || (c->rss_hf && !to_virtio(c->rss_hf)))
		return -EINVAL;
	r->types = to_virtio(c->rss_hf);
	if (c->rss_key)
		memcpy(r->key, c->rss_key, r->key_size);
	ret = gv_rss_apply(dev);
	if (ret)
		*r = old;
	return ret;
}

int gv_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *c)
{
	struct gv_rss *r = &((struct gv_hw *)dev->data->dev_private)->rss;

	if (!r->enabled)
		return -ENOTSUP;
	c->rss_hf = to_ethdev(r->types);
	if (c->rss_key) {
		if (c->rss_key_len < r->key_size)
			return -EINVAL;
		memcpy(c->rss_key, r->key, r->key_size);
	}
	c->rss_key_len = r->key_size;
	return 0;
}

int gv_reta_update(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf,
		   uint16_t size)
{
	struct gv_hw *hw = dev->data->dev_private;
	struct gv_rss *r = &hw->rss;
	uint16_t old[GV_RSS_RETA_MAX];
	int ret;

	if (!r->enabled)
		return -ENOTSUP;
	if (size != r->reta_size)
		return -EINVAL;
	memcpy(old, r->reta, sizeof(old));
	for (uint16_t i = 0; i < size; i++) {
		const struct rte_eth_rss_reta_entry64 *e = &conf[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int k = i % RTE_ETH_RETA_GROUP_SIZE;

		if (!(e->mask & (1ull << k)))
			continue;
		if (e->reta[k] >= dev->data->nb_rx_queues) {
			memcpy(r->reta, old, sizeof(old));
			return -EINVAL;
		}
		r->reta[i] = e->reta[k];
	}
	ret = gv_rss_apply(dev);
	if (ret)
		memcpy(r->reta, old, sizeof(old));
	return ret;
}

int gv_reta_query(struct rte_eth_dev *dev, struct rte_eth_rss_reta_entry64 *conf, uint16_t size)
{
	struct gv_rss *r = &((struct gv_hw *)dev->data->dev_private)->rss;

	if (!r->enabled)
		return -ENOTSUP;
	if (size != r->reta_size)
		return -EINVAL;
	for (uint16_t i = 0; i < size; i++) {
		struct rte_eth_rss_reta_entry64 *e = &conf[i / RTE_ETH_RETA_GROUP_SIZE];
		unsigned int k = i % RTE_ETH_RETA_GROUP_SIZE;

		if (e->mask & (1ull << k))
			e->reta[k] = r->reta[i];
	}
	return 0;
}

void gv_rss_infos(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct gv_rss *r = &((struct gv_hw *)dev->data->dev_private)->rss;

	if (!r->usable)
		return;
	info->reta_size = r->reta_size;
	info->hash_key_size = r->key_size;
	info->flow_type_rss_offloads = to_ethdev(r->supported);
}
