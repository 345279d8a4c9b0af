/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_user.h - what the vhost-user vdev (gv_user.c) shares with its
 * secondary-process side (gv_user_mp.c).
 */
#ifndef GV_USER_H
#define GV_USER_H

#include "gv_queue.h"

#define GV_USER_MAX_VQ (2 * GV_MAX_QUEUE_PAIRS)

struct rte_eth_dev;
struct rte_vdev_device;

/* A port of this PMD on the vhost-user transport (primary). */
bool gv_user_is_port(struct rte_eth_dev *dev);
/* The kick eventfd of virtqueue `vq`, -1 if none yet (primary). */
int gv_user_kickfd(struct gv_hw *hw, unsigned int vq);
/* Primary: answer secondaries' requests for the kick fds (0 or -errno). */
int gv_user_mp_primary(void);
/* Secondary: attach to the primary's port `name`, kick fds fetched. */
int gv_user_attach_secondary(struct rte_vdev_device *vdev, const char *name);
int gv_user_remove_secondary(struct rte_eth_dev *dev);

#endif /* GV_USER_H */
