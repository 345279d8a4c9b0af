/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_ring_layout.h - the virtio 1.x ring formats as they sit in shared
 * memory (split: descriptor table, available ring, used ring; packed:
 * descriptor ring and the two event suppression structures), plus the size
 * and alignment helpers. Written from the virtio 1.2 specification,
 * sections 2.7 and 2.8. All fields are little-endian; gvirtio supports
 * little-endian hosts only (x86-64, AArch64), checked below.
 *
 * Nothing here knows about drivers or devices: both ends include it.
 */
#ifndef GV_RING_LAYOUT_H
#define GV_RING_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "gvirtio: ring fields are stored in host order; big-endian hosts are not supported"
#endif

/* Largest queue size the spec allows (split and packed). */
#define GV_RING_MAX_NUM 32768u

/* Descriptor flags, shared by both layouts. */
#define GV_DESC_F_NEXT 1u
#define GV_DESC_F_WRITE 2u
#define GV_DESC_F_INDIRECT 4u
/* Packed only: availability and use, compared with the wrap counters. */
#define GV_DESC_F_AVAIL (1u << 7)
#define GV_DESC_F_USED (1u << 15)

/* Split: avail->flags and used->flags (used when EVENT_IDX is off). */
#define GV_AVAIL_F_NO_INTERRUPT 1u
#define GV_USED_F_NO_NOTIFY 1u

/* Packed event suppression flags. */
#define GV_EVENT_F_ENABLE 0u
#define GV_EVENT_F_DISABLE 1u
#define GV_EVENT_F_DESC 2u

struct gv_split_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t flags;
	uint16_t next;
};

struct gv_split_avail {
	uint16_t flags;
	uint16_t idx;
	uint16_t ring[]; /* num entries, then used_event */
};

struct gv_split_used_elem {
	uint32_t id; /* head of the chain the device used */
	uint32_t len; /* bytes the device wrote */
};

struct gv_split_used {
	uint16_t flags;
	uint16_t idx;
	struct gv_split_used_elem ring[]; /* num entries, then avail_event */
};

struct gv_packed_desc {
	uint64_t addr;
	uint32_t len;
	uint16_t id;
	uint16_t flags;
};

struct gv_packed_event {
	uint16_t off_wrap; /* bit 15: wrap counter, bits 0-14: offset */
	uint16_t flags;
};

#ifdef __cplusplus
#define _Static_assert static_assert
#endif
_Static_assert(sizeof(struct gv_split_desc) == 16, "split desc is 16 bytes");
_Static_assert(sizeof(struct gv_packed_desc) == 16, "packed desc is 16 bytes");
_Static_assert(sizeof(struct gv_split_used_elem) == 8, "used elem is 8 bytes");

/*
 * Event index rule (spec 2.7.10): the other side asked to be told once the
 * index passes `event`; tell it if `event` lies in [old, new). All in
 * 16-bit arithmetic, so it holds across the wrap at 65536.
 */
static inline int gv_need_event(uint16_t event, uint16_t new_idx, uint16_t old)
{
	return (uint16_t)(new_idx - event - 1) < (uint16_t)(new_idx - old);
}

/* Byte sizes of the split ring parts for `num` entries. */
static inline size_t gv_split_desc_bytes(uint32_t num) { return 16u * num; }
static inline size_t gv_split_avail_bytes(uint32_t num) { return 6u + 2u * num; }
static inline size_t gv_split_used_bytes(uint32_t num) { return 6u + 8u * num; }

static inline size_t gv_align_up(size_t v, size_t a) { return (v + a - 1) & ~(a - 1); }

#endif /* GV_RING_LAYOUT_H */
