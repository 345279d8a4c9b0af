/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_user_mp.c - a vhost-user port in a secondary process. The primary
 * owns the connection; a secondary's bursts only need to kick the
 * back-end, and the kick eventfds are the primary's file descriptors.
 * The primary answers a multi-process request ("gv_user_kickfds") with
 * them (file descriptors cross processes in the reply, 8 at a time); the
 * secondary keeps its own copies per port and queue and kicks through
 * them (its transport ops: notify and nothing else is called from here).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bus_vdev_driver.h>
#include <ethdev_driver.h>
#include <rte_eal.h>
#include <rte_errno.h>

#include "gv_pmd.h"
#include "gv_user.h"

#define MP_NAME "gv_user_kickfds"
#define MP_TIMEOUT_S 2

struct mp_req {
	char name[RTE_ETH_NAME_MAX_LEN];
	uint16_t first; /* virtqueue index of the reply's first fd */
};

struct mp_reply {
	int32_t status; /* 0, or -errno */
	uint16_t nb; /* fds in the reply */
	uint16_t vq[RTE_MP_MAX_FD_NUM]; /* the virtqueue of each fd */
};

/* This process's copies, +1 (0: none). A secondary's only. */
static int sec_kick[RTE_MAX_ETHPORTS][GV_USER_MAX_VQ];

/* Primary: answer with the kick fds from virtqueue `first` on. */
static int mp_action(const struct rte_mp_msg *msg, const void *peer)
{
	const struct mp_req *req = (const void *)msg->param;
	struct mp_reply *rep;
	struct rte_mp_msg out;
	struct rte_eth_dev *dev;

	memset(&out, 0, sizeof(out));
	snprintf(out.name, sizeof(out.name), "%s", MP_NAME);
	out.len_param = sizeof(*rep);
	rep = (void *)out.param;
	if (msg->len_param != sizeof(*req) || memchr(req->name, 0, sizeof(req->name)) == NULL) {
		rep->status = -EINVAL;
		return rte_mp_reply(&out, peer);
	}
	dev = rte_eth_dev_allocated(req->name);
	if (!dev || !gv_user_is_port(dev)) {
		rep->status = -ENODEV;
		return rte_mp_reply(&out, peer);
	}
	for (unsigned int i = req->first; i < GV_USER_MAX_VQ && rep->nb < RTE_MP_MAX_FD_NUM; i++) {
		int fd = gv_user_kickfd(dev->data->dev_private, i);

		if (fd < 0)
			continue;
		rep->vq[rep->nb++] = (uint16_t)i;
		out.fds[out.num_fds++] = fd;
	}
	return rte_mp_reply(&out, peer);
}

int gv_user_mp_primary(void)
{
	int ret = rte_mp_action_register(MP_NAME, mp_action);

	return ret && rte_errno == EEXIST ? 0 : ret;
}

static void sec_notify(struct gv_hw *hw, struct gv_queue *q)
{
	int fd = sec_kick[hw->port_id][q->vq_idx] - 1;
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* EAGAIN: the counter is saturated, the back-end will look. */
	}
}

static const struct gv_transport_ops sec_ops = {
	.name = "vhost-user (secondary process)",
	.notify = sec_notify,
};

/* Ask the primary for its kick fds, 8 at a time; returns how many came. */
static unsigned int fetch_kickfds(struct rte_eth_dev *dev)
{
	unsigned int got = 0, first = 0;
	int *mine = sec_kick[dev->data->port_id];

	for (unsigned int i = 0; i < GV_USER_MAX_VQ; i++) {
		if (mine[i] > 0)
			close(mine[i] - 1);
		mine[i] = 0;
	}
	while (first < GV_USER_MAX_VQ) {
		struct timespec ts = { .tv_sec = MP_TIMEOUT_S };
		struct rte_mp_reply r = { 0 };
		struct rte_mp_msg msg = { 0 };
		struct mp_req *req = (void *)msg.param;
		const struct mp_reply *rep;
		const struct rte_mp_msg *m;
		unsigned int next = GV_USER_MAX_VQ;

		snprintf(msg.name, sizeof(msg.name), "%s", MP_NAME);
		msg.len_param = sizeof(*req);
		snprintf(req->name, sizeof(req->name), "%s", dev->data->name);
		req->first = (uint16_t)first;
		if (rte_mp_request_sync(&msg, &r, &ts) || r.nb_received != 1) {
			free(r.msgs);
			break;
		}
		m = &r.msgs[0];
		rep = (const void *)m->param;
		if (m->len_param == sizeof(*rep) && rep->status == 0 && rep->nb == m->num_fds &&
		    rep->nb <= RTE_MP_MAX_FD_NUM) {
			for (unsigned int k = 0; k < rep->nb; k++) {
				if (rep->vq[k] < GV_USER_MAX_VQ && rep->vq[k] >= first &&
				    mine[rep->vq[k]] == 0) {
					mine[rep->vq[k]] = m->fds[k] + 1;
					got++;
				} else {
					close(m->fds[k]);
				}
				next = rep->vq[k] + 1u;
			}
			if (rep->nb < RTE_MP_MAX_FD_NUM)
				next = GV_USER_MAX_VQ;
		} else {
			for (int k = 0; k < m->num_fds; k++)
				close(m->fds[k]);
		}
		free(r.msgs);
		if (next <= first)
			break;
		first = next;
	}
	return got;
}

int gv_user_attach_secondary(struct rte_vdev_device *vdev, const char *name)
{
	struct rte_eth_dev *dev = rte_eth_dev_attach_secondary(name);
	unsigned int n;

	if (!dev) {
		GV_LOG(ERR, "%s: no such port in the primary process", name);
		return -ENODEV;
	}
	/* Process-local: ethdev reads the driver's name through it (info_get). */
	dev->device = &vdev->device;
	gv_tp_table[GV_TP_USER] = &sec_ops;
	n = fetch_kickfds(dev);
	GV_LOG(INFO, "%s: %u kick fd(s) from the primary", name, n);
	return gv_secondary_attach(dev, true);
}

int gv_user_remove_secondary(struct rte_eth_dev *dev)
{
	int *mine = sec_kick[dev->data->port_id];

	for (unsigned int i = 0; i < GV_USER_MAX_VQ; i++) {
		if (mine[i] > 0)
			close(mine[i] - 1);
		mine[i] = 0;
	}
	return gv_secondary_remove(dev);
}
