/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_transport.h - the boundary between the PMD and a transport
 * (vhost-user, the loopback device, virtio-pci). The RX/TX paths and
 * ethdev ops only see this table; a transport implements it and nothing
 * else changes.
 *
 * The port (struct gv_hw) lives in memory every process of the application
 * shares, so it names its transport by id (enum gv_tp_id), never by a
 * pointer: each process maps this library at its own address, and
 * gv_ops() looks the id up in that process's own table. A secondary
 * process's probe may install other ops under the same id (what only the
 * primary can do, such as writing the primary's eventfds, it must not).
 *
 * Order of calls for a start: reset -> get_features -> set_features ->
 * setup_queue (each queue) -> start (DRIVER_OK). For a stop: stop ->
 * (queues released or set up again).
 */
#ifndef GV_TRANSPORT_H
#define GV_TRANSPORT_H

#include <stdbool.h>
#include <stdint.h>

#include "gv_vq.h"

struct gv_hw;
struct gv_queue;

struct gv_transport_ops {
	const char *name;
	/*
	 * Transport feature bits this transport implements, asked for on top
	 * of what the PMD wants (e.g. NOTIFICATION_DATA for virtio-pci).
	 */
	uint64_t tp_features;
	/*
	 * The device takes rings of exactly queue_max() entries (legacy
	 * virtio-pci): the app's ring size is not used.
	 */
	bool fixed_queue_size;
	/* Features the device offers (transport bits included). */
	int (*get_features)(struct gv_hw *hw, uint64_t *features);
	/* Tell the device what the driver accepted (FEATURES_OK). */
	int (*set_features)(struct gv_hw *hw, uint64_t features);
	/* Device reset: all queues stop; the device forgets them. */
	int (*reset)(struct gv_hw *hw);
	/* Read device config space (virtio-net layout, gv_features.h). */
	int (*read_config)(struct gv_hw *hw, uint32_t off, void *dst, uint32_t len);
	/* Largest ring the device accepts for queue `qidx`. */
	uint16_t (*queue_max)(struct gv_hw *hw, uint16_t qidx);
	/* Hand a queue's ring addresses to the device. */
	int (*setup_queue)(struct gv_hw *hw, struct gv_queue *q);
	/* Start the device with the set-up queues (DRIVER_OK). */
	int (*start)(struct gv_hw *hw);
	/* Stop every queue (rings may be re-initialised afterwards). */
	void (*stop)(struct gv_hw *hw);
	/* Available-buffer notification. Hot path: once per burst at most. */
	void (*notify)(struct gv_hw *hw, struct gv_queue *q);
	/* Is the device (backend) there and its link up? */
	bool (*link_up)(struct gv_hw *hw);
	/* Free transport state (port close). */
	void (*close)(struct gv_hw *hw);
	/*
	 * Optional: the transport acts on control commands itself (no
	 * control virtqueue is set up). 0 (OK), -ENOTSUP, or -errno.
	 */
	int (*ctrl)(struct gv_hw *hw, uint8_t cls, uint8_t cmd, const uint8_t *data,
		    uint32_t len);
};

/* The transports, as the shared port names them. */
enum gv_tp_id {
	GV_TP_NONE, /* no transport (released port): gv_ops() is NULL */
	GV_TP_USER, /* vhost-user (gv_user.c) */
	GV_TP_LOOP, /* the loopback test device (gv_loop.c) */
	GV_TP_PCI_MODERN, /* virtio-pci modern (gv_pci.c) */
	GV_TP_PCI_LEGACY, /* virtio-pci legacy */
	GV_TP_TEST, /* a test's or fuzzer's own transport */
	GV_TP_MAX,
};

/* This process's ops for each id (gv_ethdev.c), filled by the probes. */
extern const struct gv_transport_ops *gv_tp_table[GV_TP_MAX];

#endif /* GV_TRANSPORT_H */
