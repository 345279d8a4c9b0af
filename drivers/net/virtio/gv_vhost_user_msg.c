/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vhost_user_msg.c - the pure vhost-user message codec of the
 * front-end: request encoders and reply validation (gv_vhu_enc_*,
 * gv_vhu_check_reply_hdr, gv_vhu_parse_reply). No I/O, no allocation, no
 * DPDK: a fuzzer links this file alone. Every reply byte is untrusted.
 */
#include "gv_vhost_user.h"

#include <errno.h>
#include <string.h>

/* Unaligned host-endian loads and stores (the wire is host-endian). */
static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }
static void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, sizeof(v)); }

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static const char *const req_names[] = {
	[GV_VHU_GET_FEATURES] = "GET_FEATURES", [GV_VHU_SET_FEATURES] = "SET_FEATURES",
	[GV_VHU_SET_OWNER] = "SET_OWNER", [GV_VHU_RESET_OWNER] = "RESET_OWNER",
	[GV_VHU_SET_MEM_TABLE] = "SET_MEM_TABLE", [GV_VHU_SET_VRING_NUM] = "SET_VRING_NUM",
	[GV_VHU_SET_VRING_ADDR] = "SET_VRING_ADDR", [GV_VHU_SET_VRING_BASE] = "SET_VRING_BASE",
	[GV_VHU_GET_VRING_BASE] = "GET_VRING_BASE", [GV_VHU_SET_VRING_KICK] = "SET_VRING_KICK",
	[GV_VHU_SET_VRING_CALL] = "SET_VRING_CALL",
	[GV_VHU_GET_PROTOCOL_FEATURES] = "GET_PROTOCOL_FEATURES",
	[GV_VHU_SET_PROTOCOL_FEATURES] = "SET_PROTOCOL_FEATURES",
	[GV_VHU_GET_QUEUE_NUM] = "GET_QUEUE_NUM", [GV_VHU_SET_VRING_ENABLE] = "SET_VRING_ENABLE",
	[GV_VHU_GET_CONFIG] = "GET_CONFIG", [GV_VHU_SET_CONFIG] = "SET_CONFIG",
	[GV_VHU_SET_STATUS] = "SET_STATUS", [GV_VHU_GET_STATUS] = "GET_STATUS",
};

const char *gv_vhu_request_name(uint32_t req)
{
	if (req < sizeof(req_names) / sizeof(req_names[0]) && req_names[req])
		return req_names[req];
	return "UNKNOWN";
}

/* Header of a request with `size` payload bytes; returns the total. */
static int enc_hdr(void *buf, size_t cap, uint32_t req, uint32_t flags,
		   uint32_t size)
{
	if (buf == NULL || size > GV_VHU_PAYLOAD_MAX ||
	    (flags & ~GV_VHU_FLAG_NEED_REPLY) != 0)
		return -EINVAL;
	if (cap < GV_VHU_HDR_SIZE + (size_t)size)
		return -ENOSPC;
	put32(buf, req);
	put32((uint8_t *)buf + 4, GV_VHU_VERSION | flags);
	put32((uint8_t *)buf + 8, size);
	return (int)(GV_VHU_HDR_SIZE + size);
}

int gv_vhu_enc_none(void *buf, size_t cap, uint32_t req, uint32_t flags)
{
	return enc_hdr(buf, cap, req, flags, 0);
}

int gv_vhu_enc_u64(void *buf, size_t cap, uint32_t req, uint32_t flags,
		   uint64_t v)
{
	int n = enc_hdr(buf, cap, req, flags, 8);

	if (n > 0)
		put64((uint8_t *)buf + GV_VHU_HDR_SIZE, v);
	return n;
}

int gv_vhu_enc_state(void *buf, size_t cap, uint32_t req, uint32_t flags,
		     uint32_t index, uint32_t num)
{
	int n = enc_hdr(buf, cap, req, flags, 8);

	if (n > 0) {
		put32((uint8_t *)buf + GV_VHU_HDR_SIZE, index);
		put32((uint8_t *)buf + GV_VHU_HDR_SIZE + 4, num);
	}
	return n;
}

int gv_vhu_enc_addr(void *buf, size_t cap, uint32_t flags,
		    const struct gv_vhu_vring_addr *a)
{
	uint8_t *p = (uint8_t *)buf + GV_VHU_HDR_SIZE;
	int n;

	if (a == NULL || (a->flags & ~GV_VHU_VRING_F_LOG) != 0)
		return -EINVAL;
	n = enc_hdr(buf, cap, GV_VHU_SET_VRING_ADDR, flags, 40);
	if (n > 0) {
		put32(p, a->index);
		put32(p + 4, a->flags);
		put64(p + 8, a->desc);
		put64(p + 16, a->used);
		put64(p + 24, a->avail);
		put64(p + 32, a->log);
	}
	return n;
}

int gv_vhu_enc_mem(void *buf, size_t cap, uint32_t flags,
		   const struct gv_vhu_region *r, uint32_t n)
{
	uint8_t *p = (uint8_t *)buf + GV_VHU_HDR_SIZE;
	uint32_t i;
	int len;

	if (r == NULL || n == 0 || n > GV_VHU_MAX_REGIONS)
		return -EINVAL;
	for (i = 0; i < n; i++) /* non-empty, and no end wraps around */
		if (r[i].memory_size == 0 ||
		    r[i].guest_phys_addr + r[i].memory_size < r[i].guest_phys_addr ||
		    r[i].userspace_addr + r[i].memory_size < r[i].userspace_addr ||
		    r[i].mmap_offset + r[i].memory_size < r[i].mmap_offset)
			return -EINVAL;
	len = enc_hdr(buf, cap, GV_VHU_SET_MEM_TABLE, flags,
		      GV_VHU_MEM_HDR + n * GV_VHU_REGION_SIZE);
	if (len < 0)
		return len;
	put32(p, n);
	put32(p + 4, 0);
	for (i = 0, p += GV_VHU_MEM_HDR; i < n; i++, p += GV_VHU_REGION_SIZE) {
		put64(p, r[i].guest_phys_addr);
		put64(p + 8, r[i].memory_size);
		put64(p + 16, r[i].userspace_addr);
		put64(p + 24, r[i].mmap_offset);
	}
	return len;
}

int gv_vhu_enc_config(void *buf, size_t cap, uint32_t req, uint32_t flags,
		      uint32_t offset, uint32_t size, uint32_t cfg_flags,
		      const void *data)
{
	uint8_t *p = (uint8_t *)buf + GV_VHU_HDR_SIZE;
	int n = size > GV_VHU_MAX_CONFIG ? -EINVAL :
		enc_hdr(buf, cap, req, flags, GV_VHU_CONFIG_HDR + size);

	if (n < 0)
		return n;
	put32(p, offset);
	put32(p + 4, size);
	put32(p + 8, cfg_flags);
	if (data != NULL)
		memcpy(p + GV_VHU_CONFIG_HDR, data, size);
	else
		memset(p + GV_VHU_CONFIG_HDR, 0, size);
	return n;
}

#define BAD(rc, text) do { *why = (text); return (rc); } while (0)

int gv_vhu_check_reply_hdr(const void *buf, size_t len,
			   const struct gv_vhu_expect *e,
			   uint32_t *payload_size, const char **why)
{
	const uint8_t *p = buf;
	const char *dummy;
	uint32_t flags, size;

	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (buf == NULL || e == NULL || payload_size == NULL)
		BAD(-EINVAL, "bad arguments");
	if (len < GV_VHU_HDR_SIZE)
		BAD(-EPROTO, "truncated header");
	flags = get32(p + 4);
	size = get32(p + 8);
	if ((flags & GV_VHU_VERSION_MASK) != GV_VHU_VERSION)
		BAD(-EPROTO, "unsupported version");
	if (!(flags & GV_VHU_FLAG_REPLY))
		BAD(-EPROTO, "REPLY flag missing");
	if (get32(p) != e->request)
		BAD(-EPROTO, "reply to another request");
	switch (e->kind) {
	case GV_VHU_PL_U64:
	case GV_VHU_PL_STATE:
		if (size != 8)
			BAD(-EPROTO, "size field does not match the payload type");
		break;
	case GV_VHU_PL_CONFIG:
		if (e->cfg_size > GV_VHU_MAX_CONFIG)
			BAD(-EINVAL, "bad arguments");
		if (size != 0 && size != GV_VHU_CONFIG_HDR + e->cfg_size)
			BAD(-EPROTO, "size field does not match the config asked for");
		break;
	default:
		BAD(-EINVAL, "bad arguments");
	}
	*payload_size = size;
	return 0;
}

int gv_vhu_parse_reply(const void *buf, size_t len,
		       const struct gv_vhu_expect *e, struct gv_vhu_reply *out,
		       const char **why)
{
	const uint8_t *p = buf, *pl = p + GV_VHU_HDR_SIZE;
	const char *dummy;
	uint32_t size;
	int rc;

	if (why == NULL)
		why = &dummy;
	if (out == NULL)
		BAD(-EINVAL, "bad arguments");
	rc = gv_vhu_check_reply_hdr(buf, len, e, &size, why);
	if (rc < 0)
		return rc;
	if (len < GV_VHU_HDR_SIZE + (size_t)size)
		BAD(-EPROTO, "truncated payload");
	if (len > GV_VHU_HDR_SIZE + (size_t)size)
		BAD(-EPROTO, "trailing bytes after the payload");
	memset(out, 0, sizeof(*out));
	out->request = get32(p);
	out->flags = get32(p + 4);
	out->size = size;
	if (e->kind == GV_VHU_PL_U64) {
		out->u64 = get64(pl);
	} else if (e->kind == GV_VHU_PL_STATE) {
		out->index = get32(pl);
		out->num = get32(pl + 4);
	} else {
		if (size == 0)
			BAD(-EIO, "back-end failed the request (empty payload)");
		out->cfg_offset = get32(pl);
		out->cfg_size = get32(pl + 4);
		out->cfg_flags = get32(pl + 8);
		if (out->cfg_offset != e->cfg_offset || out->cfg_size != e->cfg_size)
			BAD(-EPROTO, "config offset/size not the ones asked for");
		out->cfg_data = pl + GV_VHU_CONFIG_HDR;
	}
	return 0;
}
