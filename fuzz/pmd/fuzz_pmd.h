/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fuzz_pmd.h - the hostile device of the fuzz_pmd target: a gvirtio
 * transport (gv_transport.h) whose features, queue limits and config
 * space come from the fuzz input, and which gives the fuzzer direct
 * access to the device end of every ring (fuzz_pmd_dev.c). The target
 * itself (fuzz_pmd.c) drives the port through ethdev.
 *
 * The device keeps up to FZD_HELD chains per queue that it took from the
 * avail ring (gv_vqd_take), so the script can fill them with any header
 * and frame bytes and return them with any length; besides that it can
 * write raw used entries (split) or descriptors (packed) anywhere in the
 * ring. Control commands are answered inside notify, as the input says.
 */
#ifndef GV_FUZZ_PMD_H
#define GV_FUZZ_PMD_H

#include <stdbool.h>
#include <stdint.h>

#include "fuzz_util.h"
#include "gv_path.h"
#include "gv_vqd.h"

#define FZD_MAX_VQ (2 * GV_MAX_QUEUE_PAIRS + 1)
#define FZD_HELD 8 /* chains a queue holds between script steps */
#define FZD_CFG_LEN 32 /* config space bytes (virtio_net_config up to hash types) */

struct fzd_vq {
	struct gv_queue *q; /* the driver's queue, from setup_queue */
	struct gv_vqd *d; /* device end, while running */
	bool up;
	uint16_t n_held;
	struct gv_chain *held; /* FZD_HELD chains, oldest first */
};

struct fzd {
	uint64_t offered; /* features offered */
	uint64_t features; /* accepted (FEATURES_OK) */
	uint16_t qmax; /* queue_max() */
	bool running;
	uint8_t cfg[FZD_CFG_LEN];
	struct fzd_vq vq[FZD_MAX_VQ];
	struct fz *in; /* the input: control answers are read from it */
	uint8_t ctrl_mode; /* < 128: how every command is answered; else from `in` */
	uint64_t ctrl_cmds; /* control commands the device saw */
};

extern const struct gv_transport_ops fzd_ops, fzd_ops_legacy;
/* vectorized= of the ports probed (fuzz_pmd.c; env FZ_VECTORIZED=0|1). */
extern enum gv_vec_mode fz_pmd_vec_mode;
/* rx_hdr_line= of the ports probed (fuzz_pmd.c; env FZ_RX_HDR=shared|own). */
extern enum gv_rx_hdr fz_pmd_rx_hdr;
/* Runs whose port started on a vector RX path. */
extern unsigned int fz_pmd_vec_runs;
/* Of those, runs whose RX queue 0 the device broke; and on a packed ring. */
extern unsigned int fz_pmd_vec_broken, fz_pmd_vec_packed_runs;
/* Runs whose port started; packets the RX bursts returned. */
extern unsigned int fz_pmd_started, fz_pmd_rx_pkts;
extern struct fzd g_fzd;

/* Allocate the per-queue device state once (EAL up). */
void fzd_init(void);
/* Segments that start in this pool must stay in one mbuf's buffer. */
void fzd_add_pool(struct rte_mempool *mp);
/* The queue with virtqueue index idx if it runs, else NULL. */
struct fzd_vq *fzd_vq(uint16_t idx);
/* Take up to n more chains into the queue's held list; returns how many. */
uint32_t fzd_take(struct fzd_vq *v, uint32_t n);
/* Drop held chain i from the list (returned or forgotten). */
void fzd_drop(struct fzd_vq *v, uint32_t i);
/* Virtio-net header size the device uses for its negotiated features. */
uint16_t fzd_hdr_size(void);

/* fuzz_pmd_pkt.c */
#define FZ_NB_MBUF 2048 /* per pool: RX rings of 2 x 1024 run short, as they may */
#define FZ_PRIV 8 /* mbuf private area: the pool check's stamp */
/* A frame template (Ethernet, VLAN, IPv4/IPv6, TCP/UDP) + input bytes. */
uint32_t fz_make_frame(struct fz *in, uint8_t *buf, uint32_t cap);
/* A TX packet of the shape the input says, from `pool` (NULL: none). */
struct rte_mbuf *fz_make_tx(struct fz *in, struct rte_mempool *pool);
/* Abort unless m is a sane mbuf of `mp` for `port`. */
void fz_check_rx(struct rte_mbuf *m, uint16_t port, const struct rte_mempool *mp);
/* Abort unless every mbuf of `mp` is back, each exactly once. */
void fz_check_pool(struct rte_mempool *mp);

#endif /* GV_FUZZ_PMD_H */
