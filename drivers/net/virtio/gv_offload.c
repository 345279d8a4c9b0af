/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_offload.c - the virtio-net header and offloads on the full paths:
 *   TX: tx_pkt_prepare (pseudo-header checksums, IPv4 header checksum in
 *       software, VLAN insertion, refusing what the device cannot do) and
 *       the header fill (NEEDS_CSUM, GSO fields);
 *   RX: checksum status from the header (DATA_VALID: good; NEEDS_CSUM at
 *       the L4 header: none, the partial sum left in place, as DPDK's
 *       net_virtio; elsewhere: completed here; offsets outside the packet:
 *       bad), LRO (gso_type/gso_size), VLAN strip, packet type;
 *   the runtime VLAN offload switch (vlan_offload_set).
 * Nothing here trusts the header the device wrote: it is copied once
 * (rx_hdr_copy) and offsets are checked against the packet before
 * anything is read or written.
 */
#include <string.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_net.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gv_offload.h"
#include "gv_path.h"

uint64_t gv_tx_offload_capa(uint64_t features)
{
	uint64_t capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS | RTE_ETH_TX_OFFLOAD_VLAN_INSERT |
			RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;

	if (features & GV_BIT(GV_NET_F_CSUM))
		capa |= RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
	if ((features & GV_BIT(GV_NET_F_CSUM)) &&
	    (features & (GV_BIT(GV_NET_F_HOST_TSO4) | GV_BIT(GV_NET_F_HOST_TSO6))))
		capa |= RTE_ETH_TX_OFFLOAD_TCP_TSO;
	return capa;
}

uint64_t gv_rx_offload_capa(uint64_t features)
{
	uint64_t capa = RTE_ETH_RX_OFFLOAD_SCATTER | RTE_ETH_RX_OFFLOAD_VLAN_STRIP;

	if (features & GV_BIT(GV_NET_F_CTRL_VLAN))
		capa |= RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	if (features & GV_BIT(GV_NET_F_GUEST_CSUM))
		capa |= RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM;
	if ((features & GV_BIT(GV_NET_F_GUEST_CSUM)) &&
	    (features & (GV_BIT(GV_NET_F_GUEST_TSO4) | GV_BIT(GV_NET_F_GUEST_TSO6))))
		capa |= RTE_ETH_RX_OFFLOAD_TCP_LRO;
	if (features & GV_BIT(GV_NET_F_HASH_REPORT))
		capa |= RTE_ETH_RX_OFFLOAD_RSS_HASH;
	return capa;
}

/*
 * rte_eth_dev_set_vlan_offload: ethdev has already written the new rx
 * offloads into dev_conf (and puts them back if we fail). Filtering
 * needs CTRL_VLAN, which is negotiated only when VLAN_FILTER was among
 * the offloads at configure. Strip is a flag of the queues, read by the
 * paths that do offloads: on a started port whose path does not strip,
 * it needs a stop and a start (the path is chosen at start).
 */
int gv_vlan_offload_set(struct rte_eth_dev *dev, int mask)
{
	struct gv_hw *hw = dev->data->dev_private;
	uint64_t rxo = dev->data->dev_conf.rxmode.offloads;
	bool strip = rxo & RTE_ETH_RX_OFFLOAD_VLAN_STRIP;

	if ((mask & RTE_ETH_VLAN_FILTER_MASK) && (rxo & RTE_ETH_RX_OFFLOAD_VLAN_FILTER) &&
	    !gv_has(hw, GV_NET_F_CTRL_VLAN)) {
		GV_LOG(ERR, "%s: VLAN filtering was not negotiated: "
		       "put it in the port's rx offloads at configure", hw->name);
		return -ENOTSUP;
	}
	if (!(mask & RTE_ETH_VLAN_STRIP_MASK))
		return 0;
	if (strip && hw->started && !(gv_port_rx_path(hw)->p.offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP)) {
		GV_LOG(ERR, "%s: the %s rx path does not strip VLAN tags: "
		       "stop the port, turn strip on, start it again", hw->name,
		       gv_port_rx_path(hw)->p.name);
		return -ENOTSUP;
	}
	for (uint16_t i = 0; i < dev->data->nb_rx_queues; i++) {
		struct gv_rxq *rxq = dev->data->rx_queues[i];

		if (!rxq)
			continue;
		rxq->ol_vlan_strip = strip;
		gv_rxq_ol_sum(rxq);
	}
	return 0;
}

uint64_t gv_offload_features(uint64_t rx_offloads, uint64_t tx_offloads)
{
	uint64_t f = 0;

	if (tx_offloads & (RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
			   RTE_ETH_TX_OFFLOAD_TCP_TSO))
		f |= GV_BIT(GV_NET_F_CSUM);
	if (tx_offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO)
		f |= GV_BIT(GV_NET_F_HOST_TSO4) | GV_BIT(GV_NET_F_HOST_TSO6);
	if (rx_offloads & (RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
			   RTE_ETH_RX_OFFLOAD_TCP_LRO))
		f |= GV_BIT(GV_NET_F_GUEST_CSUM);
	if (rx_offloads & RTE_ETH_RX_OFFLOAD_TCP_LRO)
		f |= GV_BIT(GV_NET_F_GUEST_TSO4) | GV_BIT(GV_NET_F_GUEST_TSO6);
	if (rx_offloads & RTE_ETH_RX_OFFLOAD_RSS_HASH)
		f |= GV_BIT(GV_NET_F_HASH_REPORT);
	return f;
}

/* --------------------------------------------------------------- TX -- */

#define GV_TX_OL_FLAGS                                                         \
	(RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IP_CKSUM |  \
	 RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IPV6 | RTE_MBUF_F_TX_VLAN)

/*
 * A GSO packet's partial sum: the Intel-style prepare leaves the TCP
 * length out of the pseudo-header; virtio devices (Linux's segmentation,
 * and DPDK's own net_virtio) expect it in, as for any NEEDS_CSUM packet.
 * The length is the packet's, not the IP header's (which may not hold it).
 */
static bool tso_phdr_add_len(struct rte_mbuf *m)
{
	uint32_t l4len = m->pkt_len - m->l2_len - m->l3_len, acc;
	uint16_t *ck;

	if (m->pkt_len < (uint32_t)m->l2_len + m->l3_len + m->l4_len ||
	    rte_pktmbuf_data_len(m) < m->l2_len + m->l3_len + sizeof(struct rte_tcp_hdr))
		return false;
	ck = rte_pktmbuf_mtod_offset(m, uint16_t *,
				     m->l2_len + m->l3_len + offsetof(struct rte_tcp_hdr, cksum));
	acc = (uint32_t)rte_be_to_cpu_16(*ck) + (l4len >> 16) + (l4len & 0xffff);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	*ck = rte_cpu_to_be_16((uint16_t)acc);
	return true;
}

uint16_t gv_tx_prepare(void *q, struct rte_mbuf **pkts, uint16_t n)
{
	const struct gv_txq *txq = q;
	uint16_t i;

	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		uint64_t f = m->ol_flags;
		int ret;

		if ((f & ~GV_TX_OL_FLAGS & RTE_MBUF_F_TX_OFFLOAD_MASK) ||
		    ((f & RTE_MBUF_F_TX_L4_MASK) == RTE_MBUF_F_TX_SCTP_CKSUM) ||
		    ((f & (RTE_MBUF_F_TX_L4_MASK | RTE_MBUF_F_TX_TCP_SEG)) && !txq->csum) ||
		    ((f & RTE_MBUF_F_TX_TCP_SEG) && !txq->tso)) {
			rte_errno = ENOTSUP;
			return i;
		}
		if (m->nb_segs > GV_MAX_TX_SEGS) {
			rte_errno = EINVAL;
			return i;
		}
		if ((f & RTE_MBUF_F_TX_TCP_SEG) && (m->tso_segsz == 0 || m->l4_len == 0)) {
			rte_errno = EINVAL;
			return i;
		}
		if (f & RTE_MBUF_F_TX_VLAN) {
			ret = rte_vlan_insert(&pkts[i]);
			if (ret) {
				rte_errno = -ret;
				return i;
			}
			/* rte_vlan_insert clears TX_VLAN and grows l2_len itself. */
			m = pkts[i];
		}
		/* Pseudo-header checksums in the L4 field, as the device expects. */
		ret = rte_net_intel_cksum_prepare(m);
		if (ret) {
			rte_errno = -ret;
			return i;
		}
		if ((m->ol_flags & RTE_MBUF_F_TX_TCP_SEG) && !tso_phdr_add_len(m)) {
			rte_errno = EINVAL;
			return i;
		}
		if (m->ol_flags & RTE_MBUF_F_TX_IP_CKSUM) {
			/* virtio has no IPv4 header checksum offload: do it here. */
			struct rte_ipv4_hdr *ip;

			if (rte_pktmbuf_data_len(m) < m->l2_len + m->l3_len) {
				rte_errno = EINVAL;
				return i;
			}
			ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, m->l2_len);
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		}
	}
	return i;
}

void gv_tx_fill_hdr(struct gv_net_hdr *h, const struct rte_mbuf *m)
{
	uint64_t f = m->ol_flags;

	memset(h, 0, sizeof(*h));
	if (f & RTE_MBUF_F_TX_TCP_SEG) {
		h->flags = GV_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)(m->l2_len + m->l3_len);
		h->csum_offset = offsetof(struct rte_tcp_hdr, cksum);
		h->gso_type = (f & RTE_MBUF_F_TX_IPV6) ? GV_NET_HDR_GSO_TCPV6 : GV_NET_HDR_GSO_TCPV4;
		h->gso_size = m->tso_segsz;
		h->hdr_len = (uint16_t)(m->l2_len + m->l3_len + m->l4_len);
		return;
	}
	switch (f & RTE_MBUF_F_TX_L4_MASK) {
	case RTE_MBUF_F_TX_TCP_CKSUM:
		h->flags = GV_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)(m->l2_len + m->l3_len);
		h->csum_offset = offsetof(struct rte_tcp_hdr, cksum);
		break;
	case RTE_MBUF_F_TX_UDP_CKSUM:
		h->flags = GV_NET_HDR_F_NEEDS_CSUM;
		h->csum_start = (uint16_t)(m->l2_len + m->l3_len);
		h->csum_offset = offsetof(struct rte_udp_hdr, dgram_cksum);
		break;
	default:
		break;
	}
}

/* --------------------------------------------------------------- RX -- */

/*
 * NEEDS_CSUM (virtio 5.1.6.4): the device validated the data, but the
 * checksum at csum_start + csum_offset is partial (the pseudo-header sum).
 * Where that field is the parsed TCP or UDP header's own, the packet is in
 * exactly the state of RTE_MBUF_F_RX_L4_CKSUM_NONE ("not correct in the
 * packet, data integrity verified"), as DPDK's net_virtio reports it: the
 * bytes stay as they came, for an app that trusts the data or hands the
 * checksum to its own TX offload. This also holds for a GSO (LRO) packet,
 * whose partial sum may or may not carry the length term (Linux puts it
 * in, DPDK's vhost library leaves it out), so no completion here could be
 * trusted for it.
 */
static bool rx_csum_at_l4(const struct rte_mbuf *m, const struct rte_net_hdr_lens *lens,
			  uint16_t start, uint16_t off)
{
	if (start != lens->l2_len + lens->l3_len)
		return false;
	switch (m->packet_type & RTE_PTYPE_L4_MASK) {
	case RTE_PTYPE_L4_TCP:
		return off == offsetof(struct rte_tcp_hdr, cksum);
	case RTE_PTYPE_L4_UDP:
		return off == offsetof(struct rte_udp_hdr, dgram_cksum);
	default:
		return false;
	}
}

/*
 * NEEDS_CSUM anywhere else (an inner header, a protocol not parsed here):
 * finish the partial sum over [csum_start, end) as the spec tells a driver
 * to. The caller checked that the field lies in the first segment.
 */
static bool rx_complete_csum(struct rte_mbuf *m, uint32_t start, uint32_t at)
{
	uint16_t sum = 0, csum;

	if (rte_raw_cksum_mbuf(m, start, m->pkt_len - start, &sum))
		return false;
	csum = (uint16_t)~sum;
	if (csum == 0)
		csum = 0xffff; /* UDP: 0 means "no checksum" */
	/* csum_start + csum_offset is the device's: may be odd (no u16 store). */
	memcpy(rte_pktmbuf_mtod_offset(m, char *, at), &csum, sizeof(csum));
	return true;
}

/*
 * The L4 checksum state of a received packet:
 *  - NEEDS_CSUM at the L4 header's checksum field: NONE, bytes untouched;
 *  - NEEDS_CSUM elsewhere: completed in software, then UNKNOWN (the L4
 *    flag says nothing about a checksum that is not the L4 header's); a
 *    GSO packet is left as it is (UNKNOWN), see above;
 *  - NEEDS_CSUM with offsets outside the packet: BAD (the device lied);
 *  - DATA_VALID: GOOD (for an LRO packet too, as NICs report coalesced
 *    packets whose segments they verified);
 *  - nothing: UNKNOWN.
 */
static uint64_t rx_csum_flags(struct rte_mbuf *m, const struct rte_net_hdr_lens *lens,
			      const struct gv_net_hdr *h, bool gso)
{
	uint32_t start = h->csum_start, at = start + h->csum_offset;

	if (h->flags & GV_NET_HDR_F_NEEDS_CSUM) {
		if (start >= m->pkt_len || at + 2 > m->pkt_len || at + 2 > m->data_len)
			return RTE_MBUF_F_RX_L4_CKSUM_BAD;
		if (rx_csum_at_l4(m, lens, h->csum_start, h->csum_offset))
			return RTE_MBUF_F_RX_L4_CKSUM_NONE;
		if (gso)
			return RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
		return rx_complete_csum(m, start, at)
			       ? RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN
			       : RTE_MBUF_F_RX_L4_CKSUM_BAD;
	}
	if (h->flags & GV_NET_HDR_F_DATA_VALID)
		return RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	return RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
}

/*
 * The header the device wrote, copied once: each 16-bit word read once
 * through a volatile load, so the compiler can neither read a field again
 * after its check (the device may have changed it by then) nor widen the
 * loads (the header is only 2-byte aligned). Every decision below is taken
 * on the copy. 12 bytes (a legacy 10-byte header: its 2 bytes past are the
 * frame's), 20 with the hash report.
 */
union rx_hdr_copy {
	uint16_t w[sizeof(struct gv_net_hdr_hash) / 2];
	struct gv_net_hdr_hash h;
};

static inline void rx_hdr_copy(union rx_hdr_copy *c, const struct gv_net_hdr *shared, bool hash)
{
	const volatile uint16_t *src = (const volatile uint16_t *)shared;
	const size_t n = (hash ? sizeof(c->h) : sizeof(c->h.hdr)) / 2;

	for (size_t i = 0; i < n; i++)
		c->w[i] = src[i];
}

void gv_rx_offload(const struct gv_rxq *rxq, struct rte_mbuf *m, const struct gv_net_hdr *shared)
{
	union rx_hdr_copy copy;
	const struct gv_net_hdr *h = &copy.h.hdr;
	struct rte_net_hdr_lens lens;
	bool gso;

	rx_hdr_copy(&copy, shared, rxq->ol_rss_hash);
	gso = (h->gso_type & ~GV_NET_HDR_GSO_ECN) != GV_NET_HDR_GSO_NONE;

	m->packet_type = rte_net_get_ptype(m, &lens, RTE_PTYPE_ALL_MASK);
	/*
	 * LRO alone also negotiates GUEST_CSUM, so the device may leave
	 * partial sums then too: the state is reported for either offload.
	 */
	if (rxq->ol_csum || rxq->ol_lro)
		m->ol_flags |= rx_csum_flags(m, &lens, h, gso);
	if (rxq->ol_lro && gso && h->gso_size) {
		m->ol_flags |= RTE_MBUF_F_RX_LRO;
		m->tso_segsz = h->gso_size;
	}
	if (rxq->ol_rss_hash && copy.h.hash_report) {
		m->hash.rss = copy.h.hash_value;
		m->ol_flags |= RTE_MBUF_F_RX_RSS_HASH;
	}
	/*
	 * rte_vlan_strip reads the Ethernet header and moves data_off without
	 * looking at data_len (a runt makes it memmove to NULL): only a first
	 * segment holding the whole tagged header is stripped.
	 */
	if (rxq->ol_vlan_strip &&
	    m->data_len >= sizeof(struct rte_ether_hdr) + sizeof(struct rte_vlan_hdr))
		rte_vlan_strip(m);
}
