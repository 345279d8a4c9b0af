/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_loop_ctrl.c - the loopback device's control virtqueue (virtio 1.2
 * 5.1.6.5): receive modes, MAC tables and address, VLAN filter, announce
 * acknowledgement, queue pairs, RSS and hash configuration. Each command
 * is checked against the negotiated features and its exact layout; a
 * command that does not fit is answered VIRTIO_NET_ERR and changes
 * nothing.
 */
#include <string.h>

#include <rte_byteorder.h>

#include "gv_loop_priv.h"

#define NET_OK 0
#define NET_ERR 1

enum {
	CLS_RX = 0,
	CLS_MAC = 1,
	CLS_VLAN = 2,
	CLS_ANNOUNCE = 3,
	CLS_MQ = 4,
};

static uint16_t le16_at(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return rte_le_to_cpu_16(v);
}

static uint32_t le32_at(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return rte_le_to_cpu_32(v);
}

void gv_loop_filters_reset(struct gv_loop *lp)
{
	lp->promisc = false;
	lp->allmulti = false;
	lp->n_uc = lp->n_mc = 0;
	memset(lp->vlan, 0, sizeof(lp->vlan));
	lp->pairs = 1;
	lp->rss = false;
	lp->rss_mask = 0;
	lp->unclassified = 0;
	memset(lp->table, 0, sizeof(lp->table));
	memset(&lp->rss_hash, 0, sizeof(lp->rss_hash));
	memset(&lp->rep_hash, 0, sizeof(lp->rep_hash));
}

static bool rx_mode(struct gv_loop *lp, uint8_t cmd, const uint8_t *d, uint32_t n)
{
	if (!gv_loop_has(lp, GV_NET_F_CTRL_RX) || n != 1 || d[0] > 1)
		return false;
	if (cmd == 0)
		lp->promisc = d[0];
	else if (cmd == 1)
		lp->allmulti = d[0];
	else
		return false; /* ALLUNI, NOMULTI, ...: CTRL_RX_EXTRA is not offered */
	return true;
}

/* MAC_TABLE_SET: le32 n, n unicast MACs, le32 m, m multicast MACs. */
static bool mac_table_set(struct gv_loop *lp, const uint8_t *d, uint32_t n)
{
	uint32_t n_uc, n_mc, off;

	if (n < 8)
		return false;
	n_uc = le32_at(d);
	if (n_uc > GV_LOOP_MAX_UC || 4 + 6 * n_uc + 4 > n)
		return false;
	off = 4 + 6 * n_uc;
	n_mc = le32_at(d + off);
	if (n_mc > GV_LOOP_MAX_MC || off + 4 + 6 * n_mc != n)
		return false;
	for (uint32_t i = 0; i < n_uc; i++)
		if (d[4 + 6 * i] & 1)
			return false; /* the first table is for unicast addresses */
	for (uint32_t i = 0; i < n_mc; i++)
		if (!(d[off + 4 + 6 * i] & 1))
			return false;
	memcpy(lp->uc, d + 4, 6 * n_uc);
	memcpy(lp->mc, d + off + 4, 6 * n_mc);
	lp->n_uc = n_uc;
	lp->n_mc = n_mc;
	return true;
}

static bool mac_cmd(struct gv_loop *lp, uint8_t cmd, const uint8_t *d, uint32_t n)
{
	if (cmd == 0)
		return gv_loop_has(lp, GV_NET_F_CTRL_RX) && mac_table_set(lp, d, n);
	if (cmd != 1 || !gv_loop_has(lp, GV_NET_F_CTRL_MAC_ADDR) || n != 6 || (d[0] & 1))
		return false;
	/* ADDR_SET: the config space mac follows (spec 5.1.6.5.2). */
	memcpy(lp->mac, d, 6);
	return true;
}

static bool vlan_cmd(struct gv_loop *lp, uint8_t cmd, const uint8_t *d, uint32_t n)
{
	uint16_t vid;

	if (!gv_loop_has(lp, GV_NET_F_CTRL_VLAN) || n != 2 || cmd > 1)
		return false;
	vid = le16_at(d);
	if (vid >= 4096)
		return false;
	if (cmd == 0)
		lp->vlan[vid / 64] |= 1ull << (vid % 64);
	else
		lp->vlan[vid / 64] &= ~(1ull << (vid % 64));
	return true;
}

/*
 * virtio_net_rss_config: le32 hash_types, le16 indirection_table_mask,
 * le16 unclassified_queue, le16 indirection_table[mask + 1],
 * le16 max_tx_vq, u8 hash_key_length, u8 hash_key_data[].
 * virtio_net_hash_config has the same layout with the table fields zero
 * (reserved[4]), so one parser serves both.
 */
static bool rss_config(struct gv_loop *lp, const uint8_t *d, uint32_t n, bool rss)
{
	uint16_t table[GV_LOOP_TABLE_MAX];
	struct gv_loop_hash h;
	uint32_t entries, off;
	uint16_t mask, uncl, max_tx;

	if (n < 8)
		return false;
	memset(&h, 0, sizeof(h));
	h.types = le32_at(d);
	mask = le16_at(d + 4);
	uncl = le16_at(d + 6);
	entries = (uint32_t)mask + 1;
	if ((h.types & ~GV_LOOP_HASH_TYPES) || (entries & (entries - 1)) ||
	    entries > GV_LOOP_TABLE_MAX)
		return false;
	off = 8 + 2 * entries;
	if (off + 3 > n)
		return false;
	for (uint32_t i = 0; i < entries; i++)
		table[i] = le16_at(d + 8 + 2 * i);
	max_tx = le16_at(d + off);
	h.key_len = d[off + 2];
	if (h.key_len > GV_LOOP_KEY_MAX || off + 3 + h.key_len != n)
		return false;
	memcpy(h.key, d + off + 3, h.key_len);
	if (!rss) {
		/* HASH_CONFIG: the reserved fields must be zero. */
		if (mask || uncl || table[0] || max_tx)
			return false;
		lp->rep_hash = h;
		return true;
	}
	if (uncl >= lp->max_pairs || max_tx == 0 || max_tx > lp->max_pairs)
		return false;
	for (uint32_t i = 0; i < entries; i++)
		if (table[i] >= lp->max_pairs)
			return false; /* also catches the reserved top bit */
	memcpy(lp->table, table, 2 * entries);
	lp->rss_mask = mask;
	lp->unclassified = uncl;
	lp->rss_hash = h;
	lp->pairs = max_tx;
	lp->rss = true;
	return true;
}

static bool mq_cmd(struct gv_loop *lp, uint8_t cmd, const uint8_t *d, uint32_t n)
{
	uint16_t pairs;

	switch (cmd) {
	case 0: /* VQ_PAIRS_SET: automatic steering, the last mode asked wins */
		if (!gv_loop_has(lp, GV_NET_F_MQ) || n != 2)
			return false;
		pairs = le16_at(d);
		if (pairs == 0 || pairs > lp->max_pairs)
			return false;
		lp->pairs = pairs;
		lp->rss = false;
		return true;
	case 1:
		return gv_loop_has(lp, GV_NET_F_RSS) && rss_config(lp, d, n, true);
	case 2:
		return gv_loop_has(lp, GV_NET_F_HASH_REPORT) && rss_config(lp, d, n, false);
	default:
		return false;
	}
}

static bool apply(struct gv_loop *lp, uint8_t cls, uint8_t cmd, const uint8_t *d, uint32_t n)
{
	switch (cls) {
	case CLS_RX:
		return rx_mode(lp, cmd, d, n);
	case CLS_MAC:
		return mac_cmd(lp, cmd, d, n);
	case CLS_VLAN:
		return vlan_cmd(lp, cmd, d, n);
	case CLS_ANNOUNCE:
		if (cmd != 0 || n != 0 || !gv_loop_has(lp, GV_NET_F_GUEST_ANNOUNCE))
			return false;
		lp->status &= (uint16_t)~GV_NET_S_ANNOUNCE;
		return true;
	case CLS_MQ:
		return mq_cmd(lp, cmd, d, n);
	default:
		return false;
	}
}

/* Notify on the control queue: answer every command waiting. */
void gv_loop_ctrl(struct gv_loop *lp, uint16_t idx)
{
	struct gv_vqd *d = lp->vq[idx].d;
	struct gv_chain *c = lp->chain;
	int ret;

	while ((ret = gv_vqd_take(d, c)) == 1) {
		uint8_t ack = NET_ERR, head[2];
		uint32_t n, written = 0;

		/* class, command, data (readable); ack (first writable byte). */
		if (c->out_len >= 2 && c->out_len - 2 <= GV_LOOP_CTRL_MAX && c->in_len >= 1) {
			n = c->out_len - 2;
			gv_vqd_read(d, c, 0, head, 2);
			gv_vqd_read(d, c, 2, lp->cmd, n);
			if (apply(lp, head[0], head[1], lp->cmd, n))
				ack = NET_OK;
		}
		if (c->in_len >= 1)
			written = gv_vqd_write(d, c, 0, &ack, 1);
		if (ack == NET_OK)
			lp->st.ctrl_ok++;
		else
			lp->st.ctrl_err++;
		gv_vqd_push(d, c->id, c->ndesc, written);
	}
	if (ret < 0)
		gv_loop_queue_broken(lp, idx);
	gv_vqd_publish(d);
}
