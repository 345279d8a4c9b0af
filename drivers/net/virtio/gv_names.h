/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_names.h - the bus drivers of the PMD and who takes which device
 * (gv_names.c): gvirtio's names, DPDK's virtio names it answers to, and
 * the order against DPDK's own virtio PMD when both are loaded.
 */
#ifndef GV_NAMES_H
#define GV_NAMES_H

#include <stdbool.h>

struct rte_vdev_driver;
struct rte_pci_driver;

/* The drivers, without names: gv_names.c names and registers them. */
extern struct rte_vdev_driver gv_user_driver; /* gv_user.c */
extern struct rte_pci_driver gv_pci_driver; /* gv_pci.c */

/*
 * GVIRTIO_PREFER=dpdk and DPDK's net_virtio PCI driver is registered: a
 * virtio PCI device is left to it (the probe returns 1, so the bus asks
 * the next driver).
 */
bool gv_names_pci_yields(void);

/* Log, once per process, which names this copy of gvirtio answers to. */
void gv_names_note(void);

#endif /* GV_NAMES_H */
