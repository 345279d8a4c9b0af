/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/guest/gv_mig_frame.h - the frames of the live-migration cases,
 * shared by the host's sender (gv_mig_peer.c) and the guest's forwarder
 * (gv_guest_app.c fwd): Ethernet, ethertype GV_MIG_ETHERTYPE, this
 * header, then a pattern of the seq up to 60 bytes.
 */
#ifndef GV_MIG_FRAME_H
#define GV_MIG_FRAME_H

#include <stdint.h>

#define GV_MIG_ETHERTYPE 0x88b5 /* IEEE local experimental */
#define GV_MIG_MAGIC 0x47564d47u /* "GVMG" */
#define GV_MIG_DATA 0
#define GV_MIG_STOP 1 /* the guest's forwarder ends on it */

struct gv_mig_hdr {
	uint32_t magic;
	uint8_t stream;
	uint8_t kind;
	uint16_t pad;
	uint32_t seq;
} __attribute__((packed));

#endif
