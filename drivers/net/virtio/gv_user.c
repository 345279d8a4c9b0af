/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_user.c - the net_gvirtio_user vdev: devargs, probe/remove, and the
 * vhost-user transport ops (gv_transport.h) on top of the protocol layer
 * in gv_vhost_user.c. The "device" here is a vhost-user back-end; the
 * config space (MAC, link status) is emulated on this side, as the
 * back-end has none.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_kvargs.h>
#include <rte_malloc.h>
#include <rte_memory.h>
#include <rte_pause.h>

#include "gv_devargs.h"
#include "gv_names.h"
#include "gv_user.h"
#include "gv_pmd.h"
#include "gv_vhost_user.h"

#define GV_SERVER_WAIT_MS 30000

struct gv_user {
	char path[PATH_MAX];
	bool server;
	struct gv_vhu *conn;
	struct gv_vhu_listener *lis;
	uint64_t backend_features;
	bool running; /* rings handed to the back-end */
	/*
	 * The control path and EAL's memory-event callback (any allocating
	 * thread) share the connection. The callback only try-locks: EAL
	 * holds its memory lock around it and our start walks EAL memory
	 * under ours. If it loses, mem_dirty makes the holder re-send.
	 */
	pthread_mutex_t lock;
	bool mem_dirty;
	bool mem_cb;
	/* The connection's fd in EAL's interrupt thread: hang-up -> LSC. */
	struct rte_intr_handle *ih;
	bool ih_on;
	/* Server mode: the listening socket, for a back-end that comes back. */
	struct rte_intr_handle *lih;
	bool lih_on;
	char cb_name[64];
	struct gv_queue *vq[GV_USER_MAX_VQ];
	int kickfd[GV_USER_MAX_VQ];
	int callfd[GV_USER_MAX_VQ];
	bool filter_noted; /* "no packet filter" logged for this port */
};

/*
 * Features this side emulates and never passes to the back-end: the
 * config space is ours, and so is the control queue (the back-end has
 * none; user_ctrl() acts on the commands). The RX-mode, MAC-table and
 * VLAN classes are acknowledged as DPDK's virtio_user does: a vhost-user
 * back-end delivers every frame it is given, so they filter nothing.
 */
#define GV_USER_EMULATED                                                       \
	(GV_BIT(GV_NET_F_MAC) | GV_BIT(GV_NET_F_STATUS) | GV_BIT(GV_NET_F_CTRL_VQ) |  \
	 GV_BIT(GV_NET_F_CTRL_RX) | GV_BIT(GV_NET_F_CTRL_VLAN) |                      \
	 GV_BIT(GV_NET_F_CTRL_MAC_ADDR))
#define GV_USER_PROTOCOL                                                       \
	(GV_BIT(GV_VHU_PROTOCOL_F_MQ) | GV_BIT(GV_VHU_PROTOCOL_F_REPLY_ACK) |   \
	 GV_BIT(GV_VHU_PROTOCOL_F_STATUS) | GV_BIT(GV_VHU_PROTOCOL_F_CONFIG))

static struct gv_user *tp_of(struct gv_hw *hw)
{
	return hw->tp;
}

static void conn_event(void *arg);
static void user_lock(struct gv_hw *hw);
static void user_unlock(struct gv_hw *hw);

/* Watch the connection's fd so a vanishing back-end is noticed at once. */
static void watch_conn(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);

	if (!u->ih || !u->conn || u->ih_on)
		return;
	if (rte_intr_fd_set(u->ih, gv_vhu_fd(u->conn)) == 0 &&
	    rte_intr_callback_register(u->ih, conn_event, hw) == 0)
		u->ih_on = true;
}

static void unwatch_conn(struct gv_hw *hw, bool from_callback)
{
	struct gv_user *u = tp_of(hw);

	if (!u->ih_on)
		return;
	u->ih_on = false;
	/*
	 * -EAGAIN: the callback is running (possibly waiting for our lock):
	 * mark it for removal instead, which only works while it runs.
	 */
	while ((from_callback ? -EAGAIN : rte_intr_callback_unregister(u->ih, conn_event, hw)) ==
		       -EAGAIN &&
	       rte_intr_callback_unregister_pending(u->ih, conn_event, hw, NULL) == -EAGAIN)
		;
}

static void drop_conn(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);

	unwatch_conn(hw, false);
	if (u->conn) {
		GV_LOG(NOTICE, "%s: vhost-user back-end on %s gone", hw->name, u->path);
		gv_vhu_close(u->conn);
	}
	u->conn = NULL;
	u->running = false;
}

/* GET_FEATURES, protocol features, SET_OWNER on a fresh connection. */
static int handshake(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);
	uint64_t pf = 0, nq = 0;
	int ret;

	ret = gv_vhu_get_features(u->conn, &u->backend_features);
	if (ret == 0 && (u->backend_features & GV_BIT(GV_VHU_F_PROTOCOL_FEATURES))) {
		ret = gv_vhu_get_protocol_features(u->conn, &pf);
		if (ret == 0)
			ret = gv_vhu_set_protocol_features(u->conn, pf & GV_USER_PROTOCOL);
	}
	if (ret == 0)
		ret = gv_vhu_set_owner(u->conn);
	if (ret == 0 && (gv_vhu_protocol_features(u->conn) & GV_BIT(GV_VHU_PROTOCOL_F_MQ))) {
		ret = gv_vhu_get_queue_num(u->conn, &nq);
		if (ret == 0 && nq < hw->max_queue_pairs) {
			GV_LOG(NOTICE, "%s: back-end offers %" PRIu64 " queue pairs", hw->name, nq);
			hw->max_queue_pairs = nq ? (uint16_t)nq : 1;
		}
	} else if (ret == 0 && hw->max_queue_pairs > 1) {
		GV_LOG(NOTICE, "%s: back-end has no multi-queue: 1 queue pair", hw->name);
		hw->max_queue_pairs = 1;
	}
	if (ret) {
		GV_LOG(ERR, "%s: vhost-user handshake on %s failed: %s", hw->name, u->path,
		       gv_vhu_last_error(u->conn));
		drop_conn(hw);
	}
	return ret;
}

/* Connect (client) or accept (server; wait_ms 0: only if one is waiting). */
static int ensure_conn(struct gv_hw *hw, int wait_ms)
{
	struct gv_user *u = tp_of(hw);
	int ret;

	if (u->conn && !gv_vhu_dead(u->conn))
		return 0;
	if (u->conn)
		drop_conn(hw);
	if (u->server)
		ret = gv_vhu_accept(u->lis, wait_ms, 0, &u->conn);
	else
		ret = gv_vhu_connect(u->path, 0, &u->conn);
	if (ret) {
		u->conn = NULL;
		return ret == -EAGAIN ? -ENOTCONN : ret;
	}
	GV_LOG(INFO, "%s: vhost-user back-end connected on %s", hw->name, u->path);
	ret = handshake(hw);
	if (ret == 0)
		watch_conn(hw);
	return ret;
}

static int user_get_features(struct gv_hw *hw, uint64_t *features)
{
	int ret = ensure_conn(hw, 0);

	if (ret)
		return ret;
	*features = (tp_of(hw)->backend_features & ~GV_BIT(GV_VHU_F_PROTOCOL_FEATURES) &
		     ~GV_BIT(26) /* VHOST_F_LOG_ALL: ours to ask, not the driver's */) |
		    GV_USER_EMULATED;
	/*
	 * The MTU lives in the config space: without PROTOCOL_F_CONFIG we
	 * can neither read it nor tell it, so do not claim the feature.
	 */
	if (!(gv_vhu_protocol_features(tp_of(hw)->conn) & GV_BIT(GV_VHU_PROTOCOL_F_CONFIG)))
		*features &= ~GV_BIT(GV_NET_F_MTU);
	return 0;
}

static int user_set_features(struct gv_hw *hw, uint64_t features)
{
	struct gv_user *u = tp_of(hw);
	uint64_t f = features & u->backend_features & ~GV_USER_EMULATED;

	if (!u->conn)
		return -ENOTCONN;
	f |= u->backend_features & GV_BIT(GV_VHU_F_PROTOCOL_FEATURES);
	return gv_vhu_set_features(u->conn, f);
}

/* Stop every ring the back-end runs (it answers with where it stopped). */
static void user_stop(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);

	if (u->conn && u->running) {
		for (uint16_t i = 0; i < GV_USER_MAX_VQ; i++) {
			uint32_t base;

			if (!u->vq[i])
				continue;
			if (u->backend_features & GV_BIT(GV_VHU_F_PROTOCOL_FEATURES))
				gv_vhu_set_vring_enable(u->conn, i, false);
			if (gv_vhu_get_vring_base(u->conn, i, &base) == -ENOTCONN)
				break;
		}
		if (gv_vhu_dead(u->conn))
			drop_conn(hw);
	}
	u->running = false;
	memset(u->vq, 0, sizeof(u->vq));
}

static int user_read_config(struct gv_hw *hw, uint32_t off, void *dst, uint32_t len)
{
	if (off == GV_NET_CFG_MAC && len == RTE_ETHER_ADDR_LEN) {
		memcpy(dst, &hw->mac, len);
		return 0;
	}
	if (off == GV_NET_CFG_MAX_PAIRS && len == 2) {
		memcpy(dst, &hw->max_queue_pairs, 2);
		return 0;
	}
	if (off == GV_NET_CFG_STATUS && len == 2) {
		uint16_t st = gv_ops(hw)->link_up(hw) ? GV_NET_S_LINK_UP : 0;

		memcpy(dst, &st, 2);
		return 0;
	}
	/* The rest (MTU, speed, ...) from a back-end that has a config space. */
	{
		struct gv_user *u = tp_of(hw);
		int ret = -ENOTSUP;

		user_lock(hw);
		if (u->conn &&
		    (gv_vhu_protocol_features(u->conn) & GV_BIT(GV_VHU_PROTOCOL_F_CONFIG)))
			ret = gv_vhu_get_config(u->conn, off, dst, len);
		user_unlock(hw);
		return ret;
	}
}

static uint16_t user_queue_max(struct gv_hw *hw, uint16_t qidx)
{
	(void)hw;
	(void)qidx;
	return GV_USER_QUEUE_MAX;
}

static int new_eventfd(int *fd)
{
	if (*fd >= 0)
		return 0;
	*fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	return *fd < 0 ? -errno : 0;
}

static int user_setup_queue(struct gv_hw *hw, struct gv_queue *q)
{
	struct gv_user *u = tp_of(hw);
	int ret;

	if (q->vq_idx >= GV_USER_MAX_VQ)
		return -EINVAL;
	ret = new_eventfd(&u->kickfd[q->vq_idx]);
	if (ret == 0)
		ret = new_eventfd(&u->callfd[q->vq_idx]);
	if (ret)
		return ret;
	q->kickfd = u->kickfd[q->vq_idx];
	q->callfd = u->callfd[q->vq_idx];
	u->vq[q->vq_idx] = q;
	return 0;
}

static int start_ring(struct gv_user *u, struct gv_queue *q, enum gv_layout layout)
{
	struct gv_ring_addrs a;
	struct gv_vhu_vring_addr va = { 0 };
	uint32_t idx = q->vq_idx;
	/* Packed: bit 15 carries the wrap counter, which starts at 1. */
	uint32_t base = layout == GV_LAYOUT_PACKED ? (1u << 15) : 0;
	int ret;

	gv_vq_addrs(q->vq, &a);
	va.index = idx;
	va.desc = a.desc;
	va.avail = a.driver;
	va.used = a.device;
	ret = gv_vhu_set_vring_call(u->conn, idx, q->callfd);
	if (ret == 0)
		ret = gv_vhu_set_vring_num(u->conn, idx, q->size);
	if (ret == 0)
		ret = gv_vhu_set_vring_base(u->conn, idx, base);
	if (ret == 0)
		ret = gv_vhu_set_vring_addr(u->conn, &va);
	if (ret == 0)
		ret = gv_vhu_set_vring_kick(u->conn, idx, q->kickfd);
	return ret;
}

static int user_start(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);
	int ret;

	if (!u->conn) {
		/* The back-end left and may be back: same features or nothing. */
		ret = ensure_conn(hw, 0);
		if (ret == 0 && (hw->features & ~(u->backend_features | GV_USER_EMULATED)))
			ret = -ENOTSUP;
		if (ret == 0)
			ret = user_set_features(hw, hw->features);
		if (ret) {
			GV_LOG(ERR, "%s: no usable vhost-user back-end on %s: %s", hw->name,
			       u->path, strerror(-ret));
			return ret;
		}
	}
	ret = gv_vhu_update_mem_table(u->conn, false);
	for (uint16_t i = 0; ret == 0 && i < GV_USER_MAX_VQ; i++)
		if (u->vq[i])
			ret = start_ring(u, u->vq[i], hw->layout);
	if (ret == 0 && (u->backend_features & GV_BIT(GV_VHU_F_PROTOCOL_FEATURES)))
		for (uint16_t i = 0; ret == 0 && i < GV_USER_MAX_VQ; i++)
			if (u->vq[i])
				ret = gv_vhu_set_vring_enable(u->conn, i, true);
	if (ret == 0 && (gv_vhu_protocol_features(u->conn) & GV_BIT(GV_VHU_PROTOCOL_F_STATUS)))
		ret = gv_vhu_set_status(u->conn, GV_STATUS_ACKNOWLEDGE | GV_STATUS_DRIVER |
							 GV_STATUS_FEATURES_OK | GV_STATUS_DRIVER_OK);
	if (ret) {
		GV_LOG(ERR, "%s: starting the vhost-user rings failed: %s", hw->name,
		       gv_vhu_last_error(u->conn));
		if (gv_vhu_dead(u->conn))
			drop_conn(hw);
		return ret;
	}
	u->running = true;
	return 0;
}

static void user_notify(struct gv_hw *hw, struct gv_queue *q)
{
	uint64_t one = 1;

	(void)hw;
	if (write(q->kickfd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is saturated, the back-end will look. */
	}
}

static bool user_link_up(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);
	struct pollfd p;

	if (!u->conn || gv_vhu_dead(u->conn))
		return false;
	p.fd = gv_vhu_fd(u->conn);
	p.events = POLLRDHUP;
	p.revents = 0;
	if (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR))) {
		drop_conn(hw);
		return false;
	}
	return u->running;
}

static void user_lock(struct gv_hw *hw)
{
	pthread_mutex_lock(&tp_of(hw)->lock);
}

static void user_unlock(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);

	if (u->mem_dirty && u->conn && u->running) {
		u->mem_dirty = false;
		if (gv_vhu_update_mem_table(u->conn, false))
			GV_LOG(ERR, "%s: could not send the grown memory table: %s", hw->name,
			       gv_vhu_last_error(u->conn));
	}
	pthread_mutex_unlock(&u->lock);
}

/* EAL memory grew: the back-end must map it before we post buffers in it. */
static void mem_event(enum rte_mem_event type, const void *addr, size_t len, void *arg)
{
	struct gv_hw *hw = arg;
	struct gv_user *u = tp_of(hw);

	(void)addr;
	(void)len;
	if (type != RTE_MEM_EVENT_ALLOC)
		return;
	if (pthread_mutex_trylock(&u->lock) != 0) {
		u->mem_dirty = true;
		return;
	}
	if (u->conn && u->running && gv_vhu_update_mem_table(u->conn, true))
		GV_LOG(ERR, "%s: could not send the grown memory table: %s", hw->name,
		       gv_vhu_last_error(u->conn));
	pthread_mutex_unlock(&u->lock);
}

/*
 * Control commands, acted on here. The back-end delivers everything it
 * gets, so only the states that match that are accepted: promiscuous and
 * all-multicast on, empty filter tables. Queue pairs become ring enables.
 */
bool gv_user_is_port(struct rte_eth_dev *dev)
{
	return gv_is_port(dev) && ((struct gv_hw *)dev->data->dev_private)->tp_id == GV_TP_USER;
}

int gv_user_kickfd(struct gv_hw *hw, unsigned int vq)
{
	struct gv_user *u = tp_of(hw);

	return u && vq < GV_USER_MAX_VQ ? u->kickfd[vq] : -1;
}

static int user_ctrl_locked(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const uint8_t *data,
			    uint32_t len)
{
	struct gv_user *u = tp_of(hw);
	uint16_t pairs;
	int ret = 0;

	switch (cls) {
	case 0: /* RX: PROMISC, ALLMULTI */
	case 1: /* MAC: ADDR_SET (the MAC is ours), TABLE_SET */
	case 2: /* VLAN: ADD, DEL */
		/*
		 * The "on" states and the MAC address are what the back-end
		 * does anyway; a filter it cannot apply is acknowledged as
		 * DPDK's virtio_user does, and said once.
		 */
		if ((cls == 0 && len == 1 && data[0] == 1) || (cls == 1 && cmd == 1) ||
		    (cls == 1 && len == 8 && !memcmp(data, "\0\0\0\0\0\0\0\0", 8)))
			return 0;
		if (!u->filter_noted) {
			u->filter_noted = true;
			GV_LOG(NOTICE,
			       "%s: the vhost-user back-end has no packet filter: promiscuous/all-multicast off, "
			       "MAC tables and VLAN filters are accepted, every frame is still delivered",
			       hw->name);
		}
		return 0;
	case 4: /* MQ */
		if (cmd != 0 || len != 2)
			return -ENOTSUP;
		memcpy(&pairs, data, 2);
		if (pairs == 0 || pairs > hw->max_queue_pairs)
			return -EINVAL;
		if (!u->conn)
			return -ENOTCONN;
		if (!(u->backend_features & GV_BIT(GV_VHU_F_PROTOCOL_FEATURES)))
			return 0;
		for (uint16_t i = 0; ret == 0 && i < GV_USER_MAX_VQ; i++)
			if (u->vq[i])
				ret = gv_vhu_set_vring_enable(u->conn, i, i < 2u * pairs);
		return ret;
	default:
		return -ENOTSUP;
	}
}

static int user_ctrl(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const uint8_t *data,
		     uint32_t len)
{
	int ret;

	user_lock(hw);
	ret = user_ctrl_locked(hw, cls, cmd, data, len);
	user_unlock(hw);
	return ret;
}

/*
 * EAL interrupt thread: the connection's fd is readable or hung up. A
 * reply the control path is waiting for also wakes us: we take the lock
 * (so the control path has finished with the socket) and only act on a
 * hang-up.
 */
static void conn_event(void *arg)
{
	struct gv_hw *hw = arg;
	struct gv_user *u = tp_of(hw);
	struct rte_eth_dev *dev = &rte_eth_devices[hw->port_id];
	struct pollfd p = { .events = POLLRDHUP };
	bool gone = false;

	/* Never block the interrupt thread: busy now, called again (level). */
	if (pthread_mutex_trylock(&u->lock) != 0)
		return;
	if (u->conn && u->ih_on) {
		p.fd = gv_vhu_fd(u->conn);
		if (gv_vhu_dead(u->conn) ||
		    (poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)))) {
			unwatch_conn(hw, true);
			gone = true;
			gv_vhu_close(u->conn);
			u->conn = NULL;
			u->running = false;
			GV_LOG(NOTICE, "%s: vhost-user back-end on %s gone: link down", hw->name,
			       u->path);
		}
	}
	user_unlock(hw);
	if (gone && dev->data->dev_private == hw) {
		gv_link_refresh(dev);
		if (dev->data->dev_conf.intr_conf.lsc)
			rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	}
}

/*
 * Server mode, EAL interrupt thread: someone connects to our socket. With
 * no back-end, accept it, negotiate the features the port already runs
 * with, and if the port is started hand it fresh rings: traffic resumes.
 * A second back-end while one is connected is turned away.
 */
static void listen_event(void *arg)
{
	struct gv_hw *hw = arg;
	struct gv_user *u = tp_of(hw);
	struct rte_eth_dev *dev = &rte_eth_devices[hw->port_id];
	bool restart = false;
	int ret;

	if (pthread_mutex_trylock(&hw->ctl_lock) != 0)
		return; /* the control path is busy: we are called again */
	if (pthread_mutex_trylock(&u->lock) != 0) {
		pthread_mutex_unlock(&hw->ctl_lock);
		return;
	}
	if (u->conn && !gv_vhu_dead(u->conn)) {
		struct gv_vhu *extra;

		if (gv_vhu_accept(u->lis, 0, 0, &extra) == 0) {
			GV_LOG(WARNING, "%s: a second back-end connected to %s: refused", hw->name,
			       u->path);
			gv_vhu_close(extra);
		}
	} else {
		ret = ensure_conn(hw, 0);
		if (ret == 0 && hw->negotiated) {
			if (hw->features & ~(u->backend_features | GV_USER_EMULATED))
				ret = -ENOTSUP;
			else
				ret = user_set_features(hw, hw->features);
			if (ret)
				GV_LOG(ERR, "%s: the returning back-end lacks features the port "
				       "runs with (%s): restart the port", hw->name, strerror(-ret));
		}
		restart = ret == 0 && dev->data->dev_started;
	}
	user_unlock(hw);
	if (restart)
		gv_port_rings_restart(dev);
	pthread_mutex_unlock(&hw->ctl_lock);
}

/* The ops the control path calls, serialised against each other. */
static int locked_get_features(struct gv_hw *hw, uint64_t *f)
{
	int ret;

	user_lock(hw);
	ret = user_get_features(hw, f);
	user_unlock(hw);
	return ret;
}

static int locked_set_features(struct gv_hw *hw, uint64_t f)
{
	int ret;

	user_lock(hw);
	ret = user_set_features(hw, f);
	user_unlock(hw);
	return ret;
}

static int locked_reset(struct gv_hw *hw)
{
	user_lock(hw);
	user_stop(hw);
	user_unlock(hw);
	return 0;
}

static void locked_stop(struct gv_hw *hw)
{
	user_lock(hw);
	user_stop(hw);
	user_unlock(hw);
}

static int locked_start(struct gv_hw *hw)
{
	int ret;

	user_lock(hw);
	ret = user_start(hw);
	user_unlock(hw);
	return ret;
}

static bool locked_link_up(struct gv_hw *hw)
{
	bool up;

	user_lock(hw);
	up = user_link_up(hw);
	user_unlock(hw);
	return up;
}

static void user_close(struct gv_hw *hw)
{
	struct gv_user *u = tp_of(hw);

	if (!u)
		return;
	if (u->mem_cb)
		rte_mem_event_callback_unregister(u->cb_name, hw);
	/*
	 * conn_event must be over before u and hw go: marking it for removal
	 * (unwatch_conn) does not stop a call for an event EAL has already
	 * picked up (every reply the control path waited for is one), nor one
	 * running since it dropped the connection itself. Wait for it; it
	 * never waits for ctl_lock, which our caller holds.
	 */
	u->ih_on = false;
	if (u->ih)
		while (rte_intr_callback_unregister(u->ih, conn_event, hw) == -EAGAIN)
			rte_pause();
	rte_intr_instance_free(u->ih);
	u->ih = NULL;
	if (u->lih_on)
		while (rte_intr_callback_unregister(u->lih, listen_event, hw) == -EAGAIN)
			;
	u->lih_on = false;
	rte_intr_instance_free(u->lih);
	u->lih = NULL;
	user_stop(hw);
	/*
	 * The listener goes first: a client back-end (OVS's
	 * dpdkvhostuserclient) reconnects the moment the connection closes,
	 * and a connection left in a closing listener's backlog is reset
	 * (the back-end logs it as an error). With the path gone first, its
	 * reconnect finds no socket and it simply retries later.
	 */
	if (u->lis)
		gv_vhu_listener_close(u->lis);
	if (u->conn)
		gv_vhu_close(u->conn);
	for (int i = 0; i < GV_USER_MAX_VQ; i++) {
		if (u->kickfd[i] >= 0)
			close(u->kickfd[i]);
		if (u->callfd[i] >= 0)
			close(u->callfd[i]);
	}
	pthread_mutex_destroy(&u->lock);
	rte_free(u);
	hw->tp = NULL;
}

static const struct gv_transport_ops user_ops = {
	.name = "vhost-user",
	.get_features = locked_get_features,
	.set_features = locked_set_features,
	.reset = locked_reset,
	.read_config = user_read_config,
	.queue_max = user_queue_max,
	.setup_queue = user_setup_queue,
	.start = locked_start,
	.stop = locked_stop,
	.notify = user_notify,
	.link_up = locked_link_up,
	.close = user_close,
	.ctrl = user_ctrl,
};

/* -------------------------------------------------------- probe/remove -- */

static int user_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	struct rte_eth_dev *dev;
	struct gv_user_args a;
	struct gv_user *u;
	struct gv_hw *hw;
	struct stat st;
	int ret;

	gv_names_note();
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return gv_user_attach_secondary(vdev, name);
	ret = gv_user_parse_args(name, rte_vdev_device_args(vdev), &a);
	if (ret)
		return ret;
	if (stat(a.path, &st) == 0 && S_ISCHR(st.st_mode)) {
		GV_LOG(ERR, "%s: path=%s is a character device (vhost-kernel, vhost-vdpa): gvirtio "
		       "has only the vhost-user transport; DPDK's net_virtio_user has those "
		       "(GVIRTIO_PREFER=dpdk)", name, a.path);
		return -ENOTSUP;
	}
	ret = gv_user_mp_primary();
	if (ret)
		GV_LOG(WARNING, "%s: cannot serve secondary processes (%s): they get no kick fds",
		       name, rte_strerror(rte_errno));
	dev = rte_eth_vdev_allocate(vdev, sizeof(struct gv_hw));
	if (!dev)
		return -ENOMEM;
	hw = dev->data->dev_private;
	u = rte_zmalloc("gv_user", sizeof(*u), 0);
	if (!u) {
		rte_eth_dev_release_port(dev);
		return -ENOMEM;
	}
	for (int i = 0; i < GV_USER_MAX_VQ; i++)
		u->kickfd[i] = u->callfd[i] = -1;
	pthread_mutex_init(&u->lock, NULL);
	u->ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (u->ih)
		rte_intr_type_set(u->ih, RTE_INTR_HANDLE_EXT);
	snprintf(u->path, sizeof(u->path), "%s", a.path);
	u->server = a.server;
	hw->tp = u;
	gv_set_transport(hw, GV_TP_USER, &user_ops);
	snprintf(hw->name, sizeof(hw->name), "%s", name);
	hw->port_id = dev->data->port_id;
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	hw->req_queue_pairs = hw->max_queue_pairs = (uint16_t)a.queues;
	hw->queue_size = (uint16_t)a.queue_size;
	gv_ring_args_apply(hw, &a.ring);
	hw->speed = a.speed;
	hw->use_va = true;
	if (a.have_mac)
		hw->mac = a.mac;
	else
		rte_eth_random_addr(hw->mac.addr_bytes);

	if (u->server) {
		ret = gv_vhu_listen(u->path, &u->lis);
		if (ret == 0) {
			GV_LOG(NOTICE, "%s: waiting for a vhost-user back-end on %s", name, u->path);
			ret = ensure_conn(hw, GV_SERVER_WAIT_MS);
		}
	} else {
		ret = ensure_conn(hw, 0);
	}
	if (ret) {
		GV_LOG(ERR, "%s: no vhost-user back-end on %s (%s mode): %s", name, u->path,
		       u->server ? "server" : "client", strerror(-ret));
		goto fail;
	}
	snprintf(u->cb_name, sizeof(u->cb_name), "gv_user_%s", name);
	if (rte_mem_event_callback_register(u->cb_name, mem_event, hw) == 0)
		u->mem_cb = true;
	ret = gv_ethdev_init(dev, hw);
	if (ret)
		goto fail;
	if (u->server) {
		u->lih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
		if (u->lih && rte_intr_type_set(u->lih, RTE_INTR_HANDLE_EXT) == 0 &&
		    rte_intr_fd_set(u->lih, gv_vhu_listener_fd(u->lis)) == 0 &&
		    rte_intr_callback_register(u->lih, listen_event, hw) == 0)
			u->lih_on = true;
		else
			GV_LOG(WARNING, "%s: cannot watch %s: a back-end that restarts needs a port "
			       "restart", name, u->path);
	}
	rte_eth_dev_probing_finish(dev);
	GV_LOG(INFO, "%s: port %u on %s, %u queue pair(s)", name, dev->data->port_id, u->path,
	       hw->max_queue_pairs);
	return 0;
fail:
	user_close(hw);
	hw->tp_id = GV_TP_NONE;
	rte_eth_dev_release_port(dev);
	return ret;
}

static int user_remove(struct rte_vdev_device *vdev)
{
	struct rte_eth_dev *dev = rte_eth_dev_allocated(rte_vdev_device_name(vdev));

	if (!dev)
		return 0;
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return gv_user_remove_secondary(dev);
	/* Hot-unplug of a running port: ethdev will not close it started. */
	if (dev->data->dev_started)
		rte_eth_dev_stop(dev->data->port_id);
	return rte_eth_dev_close(dev->data->port_id);
}

/* Registered under its names by gv_names.c. */
struct rte_vdev_driver gv_user_driver = {
	.probe = user_probe,
	.remove = user_remove,
};
