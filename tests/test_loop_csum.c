/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_loop_csum.c - checksum and VLAN offloads on real packets, through
 * the loopback software device: TCP and UDP over IPv4 and IPv6, with and
 * without VLAN (inserted by the TX offload, stripped by the RX offload).
 * The sender leaves the L4 checksum to the device (pseudo-header only, by
 * tx_prepare) and the IPv4 header checksum to the PMD; the frame that
 * comes back must carry correct checksums, be flagged good, and have its
 * tag stripped into vlan_tci. Both ring layouts.
 */
#define ALLOW_EXPERIMENTAL_API /* rte_ipv*_udptcp_cksum_verify */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <rte_ip.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "gv_test_loop.h"

#define PAYLOAD 200
#define VID 100

struct csum_case {
	bool v6, udp, vlan, packed;
};

/* A frame with its L4 checksum left to the offload (field zeroed). */
static struct rte_mbuf *offload_frame(const struct rte_ether_addr *dst, const struct csum_case *c)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint32_t l3 = c->v6 ? sizeof(struct rte_ipv6_hdr) : sizeof(struct rte_ipv4_hdr);
	uint32_t l4 = c->udp ? sizeof(struct rte_udp_hdr) : sizeof(struct rte_tcp_hdr);
	uint32_t len = RTE_ETHER_HDR_LEN + l3 + l4 + PAYLOAD;
	uint8_t *b;

	assert_non_null(m);
	b = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)len);
	assert_non_null(b);
	memset(b, 0, len);
	for (int i = 0; i < 6; i++) {
		b[i] = dst->addr_bytes[i];
		b[6 + i] = (uint8_t)(0x02 + i);
	}
	b[12] = c->v6 ? 0x86 : 0x08;
	b[13] = c->v6 ? 0xdd : 0x00;
	if (c->v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(b + 14);

		ip->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(l4 + PAYLOAD));
		ip->proto = c->udp ? IPPROTO_UDP : IPPROTO_TCP;
		ip->hop_limits = 64;
		ip->src_addr[15] = 1;
		ip->dst_addr[15] = 2;
		m->ol_flags |= RTE_MBUF_F_TX_IPV6;
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(b + 14);

		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(l3 + l4 + PAYLOAD));
		ip->time_to_live = 64;
		ip->next_proto_id = c->udp ? IPPROTO_UDP : IPPROTO_TCP;
		ip->src_addr = rte_cpu_to_be_32(0x0a000001);
		ip->dst_addr = rte_cpu_to_be_32(0x0a000002);
		ip->hdr_checksum = 0xbeef; /* wrong on purpose: IP_CKSUM fixes it */
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	}
	if (c->udp) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)(b + 14 + l3);

		u->src_port = rte_cpu_to_be_16(1234);
		u->dst_port = rte_cpu_to_be_16(5678);
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(l4 + PAYLOAD));
		m->ol_flags |= RTE_MBUF_F_TX_UDP_CKSUM;
	} else {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)(b + 14 + l3);

		t->src_port = rte_cpu_to_be_16(1234);
		t->dst_port = rte_cpu_to_be_16(5678);
		t->sent_seq = rte_cpu_to_be_32(1);
		t->data_off = 5 << 4;
		t->tcp_flags = RTE_TCP_ACK_FLAG;
		t->rx_win = rte_cpu_to_be_16(1000);
		m->ol_flags |= RTE_MBUF_F_TX_TCP_CKSUM;
	}
	for (uint32_t i = len - PAYLOAD; i < len; i++)
		b[i] = (uint8_t)(i * 13);
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = l3;
	m->l4_len = l4;
	if (c->vlan) {
		m->ol_flags |= RTE_MBUF_F_TX_VLAN;
		m->vlan_tci = VID;
	}
	return m;
}

/* The L4 checksum of a received (untagged) frame is right. */
static bool l4_ok(const uint8_t *b, bool v6)
{
	if (v6) {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(b + 14);

		return rte_ipv6_udptcp_cksum_verify(ip, ip + 1) == 0;
	}
	{
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(b + 14);

		return rte_ipv4_udptcp_cksum_verify(ip, ip + 1) == 0 && rte_ipv4_cksum(ip) == 0;
	}
}

static void run_case(const struct csum_case *c)
{
	struct port_cfg cfg = {
		.txo = RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
		       RTE_ETH_TX_OFFLOAD_IPV4_CKSUM | RTE_ETH_TX_OFFLOAD_VLAN_INSERT,
		.rxo = RTE_ETH_RX_OFFLOAD_TCP_CKSUM | RTE_ETH_RX_OFFLOAD_UDP_CKSUM |
		       RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
	};
	struct rte_ether_addr mac;
	struct rte_mbuf *m, *r[4];
	struct port p;
	uint8_t b[2048];
	uint32_t len;

	assert_int_equal(port_probe(&p, c->packed ? "packed_vq=1" : ""), 0);
	port_start(&p, &cfg);
	rte_eth_macaddr_get(p.id, &mac);
	m = offload_frame(&mac, c);
	len = m->pkt_len;
	assert_int_equal(rte_eth_tx_prepare(p.id, 0, &m, 1), 1);
	if (c->vlan) /* the tag went into the frame */
		assert_int_equal(m->pkt_len, len + 4);
	send_all(&p, 0, &m, 1);
	assert_int_equal(recv_all(&p, 0, r, 4), 1);
	assert_int_equal(r[0]->pkt_len, len); /* stripped again if it had one */
	pkt_copy(r[0], len, b);
	assert_true(l4_ok(b, c->v6));
	assert_int_equal(r[0]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK, RTE_MBUF_F_RX_L4_CKSUM_GOOD);
	if (c->vlan) {
		assert_true(r[0]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED);
		assert_int_equal(r[0]->vlan_tci & 0xfff, VID);
	} else {
		assert_false(r[0]->ol_flags & RTE_MBUF_F_RX_VLAN_STRIPPED);
	}
	assert_int_equal(stats(&p).tx_csum, 1);
	free_all(r, 1);
	port_remove(&p);
}

static void test_case(void **state)
{
	run_case(*state);
}

int main(int argc, char **argv)
{
	static struct csum_case cases[16];
	struct CMUnitTest tests[16];
	int n = 0;

	(void)argc;
	if (gvl_eal_init(argv[0]) < 0)
		return 1;
	for (int i = 0; i < 16; i++) {
		cases[i] = (struct csum_case){ i & 1, (i >> 1) & 1, (i >> 2) & 1, (i >> 3) & 1 };
		tests[n++] = (struct CMUnitTest)cmocka_unit_test_prestate(test_case, &cases[i]);
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
