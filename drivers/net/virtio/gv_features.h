/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_features.h - virtio and virtio-net feature bits, status bits, the
 * virtio-net header and config space layout (virtio 1.2 sections 2.1,
 * 5.1, 6), and the feature-name table used for readable negotiation logs.
 */
#ifndef GV_FEATURES_H
#define GV_FEATURES_H

#include <stddef.h>
#include <stdint.h>

#define GV_BIT(n) (1ull << (n))

/* virtio-net device features */
#define GV_NET_F_CSUM 0
#define GV_NET_F_GUEST_CSUM 1
#define GV_NET_F_CTRL_GUEST_OFFLOADS 2
#define GV_NET_F_MTU 3
#define GV_NET_F_MAC 5
#define GV_NET_F_GUEST_TSO4 7
#define GV_NET_F_GUEST_TSO6 8
#define GV_NET_F_GUEST_ECN 9
#define GV_NET_F_GUEST_UFO 10
#define GV_NET_F_HOST_TSO4 11
#define GV_NET_F_HOST_TSO6 12
#define GV_NET_F_HOST_ECN 13
#define GV_NET_F_HOST_UFO 14
#define GV_NET_F_MRG_RXBUF 15
#define GV_NET_F_STATUS 16
#define GV_NET_F_CTRL_VQ 17
#define GV_NET_F_CTRL_RX 18
#define GV_NET_F_CTRL_VLAN 19
#define GV_NET_F_CTRL_RX_EXTRA 20
#define GV_NET_F_GUEST_ANNOUNCE 21
#define GV_NET_F_MQ 22
#define GV_NET_F_CTRL_MAC_ADDR 23
#define GV_NET_F_HASH_REPORT 57
#define GV_NET_F_RSS 60
#define GV_NET_F_SPEED_DUPLEX 63

/* transport / ring features */
#define GV_F_NOTIFY_ON_EMPTY 24
#define GV_F_ANY_LAYOUT 27
#define GV_F_RING_INDIRECT_DESC 28
#define GV_F_RING_EVENT_IDX 29
/* Bit 30 means PROTOCOL_FEATURES on vhost-user; legacy PCI devices (QEMU)
 * offer it as BAD_FEATURE, which a driver must never accept. */
#define GV_F_VHOST_USER_PROTOCOL 30
#define GV_F_VERSION_1 32
#define GV_F_ACCESS_PLATFORM 33
#define GV_F_RING_PACKED 34
#define GV_F_IN_ORDER 35
#define GV_F_ORDER_PLATFORM 36
#define GV_F_NOTIFICATION_DATA 38

/* device status */
#define GV_STATUS_ACKNOWLEDGE 1
#define GV_STATUS_DRIVER 2
#define GV_STATUS_DRIVER_OK 4
#define GV_STATUS_FEATURES_OK 8
#define GV_STATUS_NEEDS_RESET 64
#define GV_STATUS_FAILED 128

/* virtio-net config space */
#define GV_NET_CFG_MAC 0
#define GV_NET_CFG_STATUS 6
#define GV_NET_CFG_MAX_PAIRS 8
#define GV_NET_CFG_MTU 10
#define GV_NET_CFG_SPEED 12
#define GV_NET_CFG_DUPLEX 16
#define GV_NET_CFG_RSS_KEY_SIZE 17 /* u8: largest hash key */
#define GV_NET_CFG_RSS_TABLE_LEN 18 /* u16: largest indirection table */
#define GV_NET_CFG_HASH_TYPES 20 /* u32: supported hash types */

/* Hash types (RSS config, supported_hash_types) and hash report values. */
#define GV_HASH_IPV4 (1u << 0)
#define GV_HASH_TCPV4 (1u << 1)
#define GV_HASH_UDPV4 (1u << 2)
#define GV_HASH_IPV6 (1u << 3)
#define GV_HASH_TCPV6 (1u << 4)
#define GV_HASH_UDPV6 (1u << 5)
#define GV_HASH_IP_EX (1u << 6)
#define GV_HASH_TCP_EX (1u << 7)
#define GV_HASH_UDP_EX (1u << 8)
#define GV_NET_S_LINK_UP 1
#define GV_NET_S_ANNOUNCE 2

/* The virtio-net header in front of every packet. */
struct gv_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len;
	uint16_t gso_size;
	uint16_t csum_start;
	uint16_t csum_offset;
	uint16_t num_buffers; /* VERSION_1 or MRG_RXBUF only */
};

#define GV_NET_HDR_F_NEEDS_CSUM 1
#define GV_NET_HDR_F_DATA_VALID 2
#define GV_NET_HDR_GSO_NONE 0
#define GV_NET_HDR_GSO_TCPV4 1
#define GV_NET_HDR_GSO_UDP 3
#define GV_NET_HDR_GSO_TCPV6 4
#define GV_NET_HDR_GSO_ECN 0x80

/* With HASH_REPORT the header grows by the hash value and its type. */
struct gv_net_hdr_hash {
	struct gv_net_hdr hdr;
	uint32_t hash_value;
	uint16_t hash_report; /* 0: none, else the type that was hashed */
	uint16_t padding;
};

/* Header size for negotiated features (10 bytes only for legacy, no MRG). */
static inline uint16_t gv_net_hdr_size(uint64_t features)
{
	if (features & GV_BIT(GV_NET_F_HASH_REPORT))
		return sizeof(struct gv_net_hdr_hash);
	return (features & (GV_BIT(GV_F_VERSION_1) | GV_BIT(GV_NET_F_MRG_RXBUF))) ? 12 : 10;
}

/* Name of a feature bit, or NULL. */
const char *gv_feature_name(unsigned int bit);

/* "MRG_RXBUF,STATUS,VERSION_1,..." into buf; returns buf. */
char *gv_features_str(uint64_t features, char *buf, size_t len);

#endif /* GV_FEATURES_H */
