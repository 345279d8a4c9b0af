/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_features.c - the feature-name table for readable negotiation logs.
 */
#include <stdio.h>
#include <string.h>

#include "gv_features.h"

static const char *const names[64] = {
	[GV_NET_F_CSUM] = "CSUM",
	[GV_NET_F_GUEST_CSUM] = "GUEST_CSUM",
	[GV_NET_F_CTRL_GUEST_OFFLOADS] = "CTRL_GUEST_OFFLOADS",
	[GV_NET_F_MTU] = "MTU",
	[GV_NET_F_MAC] = "MAC",
	[GV_NET_F_GUEST_TSO4] = "GUEST_TSO4",
	[GV_NET_F_GUEST_TSO6] = "GUEST_TSO6",
	[GV_NET_F_GUEST_ECN] = "GUEST_ECN",
	[GV_NET_F_GUEST_UFO] = "GUEST_UFO",
	[GV_NET_F_HOST_TSO4] = "HOST_TSO4",
	[GV_NET_F_HOST_TSO6] = "HOST_TSO6",
	[GV_NET_F_HOST_ECN] = "HOST_ECN",
	[GV_NET_F_HOST_UFO] = "HOST_UFO",
	[GV_NET_F_MRG_RXBUF] = "MRG_RXBUF",
	[GV_NET_F_STATUS] = "STATUS",
	[GV_NET_F_CTRL_VQ] = "CTRL_VQ",
	[GV_NET_F_CTRL_RX] = "CTRL_RX",
	[GV_NET_F_CTRL_VLAN] = "CTRL_VLAN",
	[GV_NET_F_CTRL_RX_EXTRA] = "CTRL_RX_EXTRA",
	[GV_NET_F_GUEST_ANNOUNCE] = "GUEST_ANNOUNCE",
	[GV_NET_F_MQ] = "MQ",
	[GV_NET_F_CTRL_MAC_ADDR] = "CTRL_MAC_ADDR",
	[GV_F_NOTIFY_ON_EMPTY] = "NOTIFY_ON_EMPTY",
	[GV_F_ANY_LAYOUT] = "ANY_LAYOUT",
	[GV_F_RING_INDIRECT_DESC] = "RING_INDIRECT_DESC",
	[GV_F_RING_EVENT_IDX] = "RING_EVENT_IDX",
	[GV_F_VHOST_USER_PROTOCOL] = "PROTOCOL_FEATURES|BAD_FEATURE",
	[GV_F_VERSION_1] = "VERSION_1",
	[GV_F_ACCESS_PLATFORM] = "ACCESS_PLATFORM",
	[GV_F_RING_PACKED] = "RING_PACKED",
	[GV_F_IN_ORDER] = "IN_ORDER",
	[GV_F_ORDER_PLATFORM] = "ORDER_PLATFORM",
	[GV_F_NOTIFICATION_DATA] = "NOTIFICATION_DATA",
	[GV_NET_F_HASH_REPORT] = "HASH_REPORT",
	[GV_NET_F_RSS] = "RSS",
	[GV_NET_F_SPEED_DUPLEX] = "SPEED_DUPLEX",
};

const char *gv_feature_name(unsigned int bit)
{
	return bit < 64 ? names[bit] : NULL;
}

char *gv_features_str(uint64_t features, char *buf, size_t len)
{
	size_t used = 0;

	if (len == 0)
		return buf;
	buf[0] = '\0';
	for (unsigned int bit = 0; bit < 64; bit++) {
		int n;

		if (!(features & GV_BIT(bit)))
			continue;
		n = names[bit] ? snprintf(buf + used, len - used, "%s%s", used ? "," : "", names[bit])
			       : snprintf(buf + used, len - used, "%sbit%u", used ? "," : "", bit);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}
