/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/guest/gv_guest_ctrl.c - gv_guest_app's ctrl mode: port 0's
 * receive filter set through the device's control queue, the way testpmd's
 * "set promisc", "set allmulti", "mac_addr add" and "rx_vlan add" do:
 * promiscuous off, all-multicast on, a second unicast MAC, VLAN 100 in the
 * VLAN filter (the port configured with RTE_ETH_RX_OFFLOAD_VLAN_FILTER).
 * Every call must succeed (the device acked it). Then it prints
 * "GVAPP-WAIT rx-filter" and waits (60 s at most) for a line on ACK_DEV, a
 * serial port the host writes to once it has read QEMU's receive filter
 * of the NIC (QMP query-rx-filter): the host checks that QEMU applied each
 * command. Last it undoes them (each must succeed again).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <rte_ethdev.h>
#include <rte_ether.h>

#include "gv_guest_app.h"

#define CTRL_VLAN 100
static const struct rte_ether_addr extra_mac = { { 0x02, 0, 0, 0, 0, 0xaa } };

/* The serial port, raw, open before the host is asked (a tty nobody has
 * open drops what arrives); -1 if it cannot be opened. */
static int open_line(const char *dev)
{
	struct termios t;
	int fd = open(dev, O_RDWR | O_NOCTTY);

	if (fd >= 0 && tcgetattr(fd, &t) == 0) {
		cfmakeraw(&t);
		tcsetattr(fd, TCSANOW, &t);
	}
	return fd;
}

/* 0 once a line came on fd within ms, -1 else; closes fd. */
static int wait_line(int fd, unsigned int ms)
{
	char buf[64];
	int ret = -1;
	uint64_t end = now_ms() + ms;

	while (ret < 0 && now_ms() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&p, 1, 500) <= 0)
			continue;
		n = read(fd, buf, sizeof(buf));
		if (n > 0 && memchr(buf, '\n', (size_t)n))
			ret = 0;
	}
	close(fd);
	return ret;
}

int do_ctrl(const char *ack_dev)
{
	const char *mode = "ctrl";
	struct rte_eth_dev_info info;
	struct rte_ether_addr copy = extra_mac;
	int ret, fd;

	if (rte_eth_dev_info_get(0, &info))
		FAIL(mode, "port 0: no device info");
	if (!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_FILTER))
		FAIL(mode, "port 0 (%s) offers no VLAN filter offload", info.driver_name);
	rx_offloads = RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	if (ports_up(mode, false))
		return 1;
	if ((ret = rte_eth_promiscuous_disable(0)) != 0 || rte_eth_promiscuous_get(0) != 0)
		FAIL(mode, "promiscuous off: %s", strerror(-ret));
	if ((ret = rte_eth_allmulticast_enable(0)) != 0 || rte_eth_allmulticast_get(0) != 1)
		FAIL(mode, "all-multicast on: %s", strerror(-ret));
	if ((ret = rte_eth_dev_mac_addr_add(0, &copy, 0)) != 0)
		FAIL(mode, "mac_addr_add 02:00:00:00:00:aa: %s", strerror(-ret));
	if ((ret = rte_eth_dev_vlan_filter(0, CTRL_VLAN, 1)) != 0)
		FAIL(mode, "VLAN %d filter on: %s", CTRL_VLAN, strerror(-ret));
	fd = open_line(ack_dev);
	if (fd < 0)
		FAIL(mode, "cannot open %s: %s", ack_dev, strerror(errno));
	printf("GVAPP-WAIT rx-filter\n");
	fflush(stdout);
	if (wait_line(fd, 60000))
		FAIL(mode, "no answer from the host on %s within 60 s", ack_dev);
	if ((ret = rte_eth_dev_vlan_filter(0, CTRL_VLAN, 0)) != 0)
		FAIL(mode, "VLAN %d filter off: %s", CTRL_VLAN, strerror(-ret));
	if ((ret = rte_eth_dev_mac_addr_remove(0, &copy)) != 0)
		FAIL(mode, "mac_addr_remove: %s", strerror(-ret));
	if ((ret = rte_eth_allmulticast_disable(0)) != 0 || (ret = rte_eth_promiscuous_enable(0)) != 0)
		FAIL(mode, "all-multicast off, promiscuous on: %s", strerror(-ret));
	printf("GVAPP: PASS ctrl promiscuous off, all-multicast on, MAC 02:00:00:00:00:aa added, "
	       "VLAN %d filtered, the host read them from QEMU, all undone\n", CTRL_VLAN);
	return 0;
}
