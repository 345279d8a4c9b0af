/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vhost_user.h - the front-end ("master") side of the vhost-user
 * protocol: what a virtio driver sends to a vhost-user back-end (DPDK's
 * net_vhost, OVS-DPDK, ...) over a unix socket. Independent of ethdev.
 *
 * The library has three layers, all declared here:
 *
 *  1. A pure message codec (gv_vhu_enc_*, gv_vhu_check_reply_hdr,
 *     gv_vhu_parse_reply; in gv_vhost_user_msg.c): builds requests into a
 *     caller buffer and validates replies. No I/O, no allocation, no DPDK;
 *     a fuzzer links gv_vhost_user_msg.c alone.
 *     A reply is trusted for nothing: version, REPLY flag, echoed request
 *     code and the size field are all checked against the payload type
 *     the request expects and against the buffer length.
 *
 *  2. A connection (struct gv_vhu; in gv_vhost_user.c): client
 *     (gv_vhu_connect) or server (gv_vhu_listen + gv_vhu_accept, which can
 *     be polled again for a back-end that restarts). Every request is bounded by a timeout;
 *     SCM_RIGHTS carries fds; sends use MSG_NOSIGNAL. Errors:
 *       -ENOTCONN   the back-end closed / reset the socket (link down),
 *                   or the connection is unusable after an earlier fatal
 *                   error (timeout or protocol violation),
 *       -ETIMEDOUT  no (complete) reply within the timeout,
 *       -EPROTO     the reply violated the protocol,
 *       -EIO        the back-end answered REPLY_ACK with a failure,
 *       -ENOTSUP    the request needs a feature that is not negotiated,
 *       -EINVAL / -E2BIG / -ENOMEM: bad arguments / too much / no memory.
 *     After -ENOTCONN, -ETIMEDOUT or -EPROTO the connection is dead: the
 *     caller closes it and reconnects (or accepts again).
 *     gv_vhu_last_error() explains the last failure in words.
 *     A connection is not thread safe: one caller at a time.
 *
 *  3. The memory table from DPDK's EAL memory (gv_vhu_mem_table_from_eal,
 *     in gv_vhost_user.c), compiled unless GV_VHU_NO_EAL is defined.
 *     Regions carry the process virtual address as guest physical
 *     address (IOVA as VA).
 */
#ifndef GV_VHOST_USER_H
#define GV_VHOST_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Request codes (front-end to back-end), from the vhost-user spec. */
enum gv_vhu_request {
	GV_VHU_GET_FEATURES = 1,
	GV_VHU_SET_FEATURES = 2,
	GV_VHU_SET_OWNER = 3,
	GV_VHU_RESET_OWNER = 4,
	GV_VHU_SET_MEM_TABLE = 5,
	GV_VHU_SET_VRING_NUM = 8,
	GV_VHU_SET_VRING_ADDR = 9,
	GV_VHU_SET_VRING_BASE = 10,
	GV_VHU_GET_VRING_BASE = 11,
	GV_VHU_SET_VRING_KICK = 12,
	GV_VHU_SET_VRING_CALL = 13,
	GV_VHU_GET_PROTOCOL_FEATURES = 15,
	GV_VHU_SET_PROTOCOL_FEATURES = 16,
	GV_VHU_GET_QUEUE_NUM = 17,
	GV_VHU_SET_VRING_ENABLE = 18,
	GV_VHU_GET_CONFIG = 24,
	GV_VHU_SET_CONFIG = 25,
	GV_VHU_SET_STATUS = 39,
	GV_VHU_GET_STATUS = 40,
};

/* Header flags. */
#define GV_VHU_VERSION 0x1u
#define GV_VHU_VERSION_MASK 0x3u
#define GV_VHU_FLAG_REPLY 0x4u
#define GV_VHU_FLAG_NEED_REPLY 0x8u

/* Virtio feature bit that announces protocol features. */
#define GV_VHU_F_PROTOCOL_FEATURES 30

/* Protocol feature bits. */
#define GV_VHU_PROTOCOL_F_MQ 0
#define GV_VHU_PROTOCOL_F_LOG_SHMFD 1
#define GV_VHU_PROTOCOL_F_RARP 2
#define GV_VHU_PROTOCOL_F_REPLY_ACK 3
#define GV_VHU_PROTOCOL_F_NET_MTU 4
#define GV_VHU_PROTOCOL_F_CONFIG 9
#define GV_VHU_PROTOCOL_F_STATUS 16

/* SET_VRING_KICK/CALL u64 payload: ring index, and "no fd" (polling). */
#define GV_VHU_VRING_IDX_MASK 0xffu
#define GV_VHU_VRING_NOFD (1u << 8)
/* SET_VRING_ADDR flags: log writes to the used ring. */
#define GV_VHU_VRING_F_LOG (1u << 0)

#define GV_VHU_HDR_SIZE 12u
#define GV_VHU_MAX_REGIONS 8u
#define GV_VHU_MAX_CONFIG 256u
#define GV_VHU_CONFIG_HDR 12u /* offset, size, flags */
#define GV_VHU_REGION_SIZE 32u
#define GV_VHU_MEM_HDR 8u /* nregions, padding */
/* Largest payload sent or accepted (config >= memory table). */
#define GV_VHU_PAYLOAD_MAX (GV_VHU_CONFIG_HDR + GV_VHU_MAX_CONFIG)
#define GV_VHU_MSG_MAX (GV_VHU_HDR_SIZE + GV_VHU_PAYLOAD_MAX)

#define GV_VHU_DEFAULT_TIMEOUT_MS 5000

struct gv_vhu_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct gv_vhu_vring_addr {
	uint32_t index;
	uint32_t flags; /* GV_VHU_VRING_F_LOG */
	uint64_t desc; /* user (process virtual) addresses */
	uint64_t used;
	uint64_t avail;
	uint64_t log; /* guest physical address of the used-ring log */
};

/* A memory table with one fd per region (fds are not owned). */
struct gv_vhu_mem_table {
	uint32_t n;
	struct gv_vhu_region r[GV_VHU_MAX_REGIONS];
	int fd[GV_VHU_MAX_REGIONS];
};

/* ---- 1. codec ---------------------------------------------------------- */

/*
 * Encoders: write one request (header + payload) into buf[cap]. `flags`
 * holds extra header flags (GV_VHU_FLAG_NEED_REPLY); the version is added.
 * Return the message length, or -ENOSPC (cap too small) / -EINVAL.
 */
int gv_vhu_enc_none(void *buf, size_t cap, uint32_t req, uint32_t flags);
int gv_vhu_enc_u64(void *buf, size_t cap, uint32_t req, uint32_t flags,
		   uint64_t v);
int gv_vhu_enc_state(void *buf, size_t cap, uint32_t req, uint32_t flags,
		     uint32_t index, uint32_t num);
int gv_vhu_enc_addr(void *buf, size_t cap, uint32_t flags,
		    const struct gv_vhu_vring_addr *a);
/* nregions 1..8; size field = 8 + 32 * n. */
int gv_vhu_enc_mem(void *buf, size_t cap, uint32_t flags,
		   const struct gv_vhu_region *r, uint32_t n);
/* data == NULL sends zeros (GET_CONFIG). size <= GV_VHU_MAX_CONFIG. */
int gv_vhu_enc_config(void *buf, size_t cap, uint32_t req, uint32_t flags,
		      uint32_t offset, uint32_t size, uint32_t cfg_flags,
		      const void *data);

/* What a reply must look like. */
enum gv_vhu_payload {
	GV_VHU_PL_U64 = 0, /* GET_FEATURES & co., and every REPLY_ACK */
	GV_VHU_PL_STATE, /* GET_VRING_BASE */
	GV_VHU_PL_CONFIG, /* GET_CONFIG: 12 + cfg_size bytes, or 0 = failure */
};

struct gv_vhu_expect {
	uint32_t request; /* must be echoed */
	enum gv_vhu_payload kind;
	uint32_t cfg_offset; /* GV_VHU_PL_CONFIG: what was asked for */
	uint32_t cfg_size;
};

struct gv_vhu_reply {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	uint64_t u64; /* GV_VHU_PL_U64 */
	uint32_t index, num; /* GV_VHU_PL_STATE */
	/* GV_VHU_PL_CONFIG; cfg_data points into the parsed buffer */
	uint32_t cfg_offset, cfg_size, cfg_flags;
	const uint8_t *cfg_data;
};

/*
 * Validate the GV_VHU_HDR_SIZE-byte header of a reply and return in
 * *payload_size how many payload bytes follow (always <=
 * GV_VHU_PAYLOAD_MAX on success). 0 or -EPROTO; *why says what is wrong.
 */
int gv_vhu_check_reply_hdr(const void *buf, size_t len,
			   const struct gv_vhu_expect *e,
			   uint32_t *payload_size, const char **why);
/*
 * Validate and decode a whole reply of len bytes. 0, -EPROTO (malformed,
 * truncated, trailing bytes), or -EIO (GET_CONFIG answered with an empty
 * payload: the back-end failed).
 */
int gv_vhu_parse_reply(const void *buf, size_t len,
		       const struct gv_vhu_expect *e, struct gv_vhu_reply *out,
		       const char **why);

/* Name of a request code ("SET_MEM_TABLE"), "UNKNOWN" if not ours. */
const char *gv_vhu_request_name(uint32_t req);

/* ---- 2. connection ----------------------------------------------------- */

struct gv_vhu;
struct gv_vhu_listener;

/* Client mode: connect to a back-end listening on path. timeout_ms <= 0:
 * GV_VHU_DEFAULT_TIMEOUT_MS. */
int gv_vhu_connect(const char *path, int timeout_ms, struct gv_vhu **out);
/* Wrap an already connected stream socket (takes ownership of fd). */
int gv_vhu_attach_fd(int fd, int timeout_ms, struct gv_vhu **out);
void gv_vhu_close(struct gv_vhu *c);

/*
 * Server mode: listen on path (a stale socket file nobody listens on is
 * replaced; anything else there is -EADDRINUSE). The listener fd is
 * non-blocking; poll it (gv_vhu_listener_fd) and gv_vhu_accept() when it
 * is readable, again after a back-end went away.
 */
int gv_vhu_listen(const char *path, struct gv_vhu_listener **out);
/* wait_ms 0: do not wait (-EAGAIN if nobody is connecting); < 0: forever.
 * timeout_ms: as gv_vhu_connect for the new connection. */
int gv_vhu_accept(struct gv_vhu_listener *l, int wait_ms, int timeout_ms,
		  struct gv_vhu **out);
int gv_vhu_listener_fd(const struct gv_vhu_listener *l);
/* Closes the socket and removes the path. */
void gv_vhu_listener_close(struct gv_vhu_listener *l);

int gv_vhu_fd(const struct gv_vhu *c);
void gv_vhu_set_timeout(struct gv_vhu *c, int timeout_ms);
/* 0 while usable, else the fatal error that killed the connection. */
int gv_vhu_dead(const struct gv_vhu *c);
const char *gv_vhu_last_error(const struct gv_vhu *c);
/* Negotiated protocol features (after gv_vhu_set_protocol_features). */
uint64_t gv_vhu_protocol_features(const struct gv_vhu *c);

/*
 * Requests. Those without a reply of their own get NEED_REPLY and wait
 * for the ack when REPLY_ACK was negotiated. Each returns 0 or -errno.
 */
int gv_vhu_get_features(struct gv_vhu *c, uint64_t *features);
/* features must be a subset of what GET_FEATURES offered. */
int gv_vhu_set_features(struct gv_vhu *c, uint64_t features);
/* Needs GV_VHU_F_PROTOCOL_FEATURES offered by GET_FEATURES. */
int gv_vhu_get_protocol_features(struct gv_vhu *c, uint64_t *pf);
/* pf must be a subset of what GET_PROTOCOL_FEATURES offered. */
int gv_vhu_set_protocol_features(struct gv_vhu *c, uint64_t pf);
int gv_vhu_set_owner(struct gv_vhu *c);
int gv_vhu_reset_owner(struct gv_vhu *c);
int gv_vhu_set_mem_table(struct gv_vhu *c, const struct gv_vhu_mem_table *mt);
int gv_vhu_set_vring_num(struct gv_vhu *c, uint32_t index, uint32_t num);
int gv_vhu_set_vring_addr(struct gv_vhu *c, const struct gv_vhu_vring_addr *a);
int gv_vhu_set_vring_base(struct gv_vhu *c, uint32_t index, uint32_t base);
/* Stops the ring and returns where the back-end got to. */
int gv_vhu_get_vring_base(struct gv_vhu *c, uint32_t index, uint32_t *base);
/* fd < 0: no fd (GV_VHU_VRING_NOFD: the back-end polls / never calls). */
int gv_vhu_set_vring_kick(struct gv_vhu *c, uint32_t index, int fd);
int gv_vhu_set_vring_call(struct gv_vhu *c, uint32_t index, int fd);
/* Needs GV_VHU_F_PROTOCOL_FEATURES negotiated by SET_FEATURES. */
int gv_vhu_set_vring_enable(struct gv_vhu *c, uint32_t index, bool enable);
/* Needs PROTOCOL_F_MQ. */
int gv_vhu_get_queue_num(struct gv_vhu *c, uint64_t *num);
/* Need PROTOCOL_F_CONFIG. len <= GV_VHU_MAX_CONFIG. */
int gv_vhu_get_config(struct gv_vhu *c, uint32_t offset, void *buf,
		      uint32_t len);
int gv_vhu_set_config(struct gv_vhu *c, uint32_t offset, const void *buf,
		      uint32_t len, uint32_t cfg_flags);
/* Need PROTOCOL_F_STATUS. */
int gv_vhu_set_status(struct gv_vhu *c, uint8_t status);
int gv_vhu_get_status(struct gv_vhu *c, uint8_t *status);

/* ---- 3. memory table from EAL ------------------------------------------ */

#ifndef GV_VHU_NO_EAL
/*
 * Build the table from every allocated EAL memseg (external memory is
 * skipped): segments contiguous in address and file offset that share an
 * fd are merged; more than GV_VHU_MAX_REGIONS is -E2BIG. fds stay EAL's.
 * lock_held: the caller already holds the memory hotplug lock (inside an
 * rte_mem_event callback); otherwise the read lock is taken here.
 * Errors from EAL (no fd for a segment) come back as -errno; *why (may be
 * NULL) then says which.
 * EAL modes (DPDK 22.11, checked against net_vhost): --no-huge (one memfd)
 * and hugepages with --single-file-segments (also with --in-memory) give
 * one region per memseg list. One file per hugepage (the default,
 * --in-memory alone, --legacy-mem) soon needs more than 8: -E2BIG.
 * --legacy-mem --single-file-segments keeps no fds: -ENODEV.
 */
int gv_vhu_mem_table_from_eal(struct gv_vhu_mem_table *mt, bool lock_held,
			      const char **why);
/* Build from EAL and send SET_MEM_TABLE: initial set-up and re-send
 * after EAL memory grew (call it from the rte_mem_event callback with
 * lock_held = true). */
int gv_vhu_update_mem_table(struct gv_vhu *c, bool lock_held);
#endif

#ifdef __cplusplus
}
#endif

#endif /* GV_VHOST_USER_H */
