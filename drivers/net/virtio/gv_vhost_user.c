/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_vhost_user.c - the vhost-user front-end connection: bounded-time
 * socket I/O (client or server mode, fds by SCM_RIGHTS), the requests a
 * virtio-net driver needs, and the memory table built from EAL memory.
 * The message codec is gv_vhost_user_msg.c. Contract: gv_vhost_user.h.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4, MSG_CMSG_CLOEXEC */
#endif
#include "gv_vhost_user.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef GV_VHU_NO_EAL
#include <rte_eal_memconfig.h>
#include <rte_errno.h>
#include <rte_memory.h>
#endif

/* ---- connection ----------------------------------------------------- */

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, sizeof(v)); }

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

struct gv_vhu {
	int fd;
	int timeout_ms;
	int dead; /* fatal error, 0 while usable */
	bool features_known, features_set, pf_known;
	uint64_t offered; /* GET_FEATURES */
	uint64_t features; /* SET_FEATURES */
	uint64_t pf_offered; /* GET_PROTOCOL_FEATURES */
	uint64_t pf; /* SET_PROTOCOL_FEATURES */
	char err[256];
};

struct gv_vhu_listener {
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* Record why rc happened; the fatal codes kill the connection. */
__attribute__((format(printf, 3, 4)))
static int fail(struct gv_vhu *c, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->err, sizeof(c->err), fmt, ap);
	va_end(ap);
	if (rc == -ENOTCONN || rc == -ETIMEDOUT || rc == -EPROTO)
		c->dead = rc;
	return rc;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 0 when fd is ready for ev (or hung up: the next I/O call says so). */
static int wait_fd(int fd, short ev, int64_t deadline)
{
	for (;;) {
		int64_t left = deadline - now_ms();
		struct pollfd p = { .fd = fd, .events = ev };
		int r;

		if (left <= 0)
			return -ETIMEDOUT;
		r = poll(&p, 1, left > INT_MAX ? INT_MAX : (int)left);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r > 0)
			return 0;
	}
}

/* After an I/O call failed with errno: wait for ev, or say why not. */
static int io_retry(struct gv_vhu *c, short ev, int64_t deadline,
		    const char *what, size_t done, size_t len)
{
	int e = errno, rc;

	if (e == EINTR)
		return 0;
	if (e != EAGAIN && e != EWOULDBLOCK)
		return fail(c, -ENOTCONN, "back-end connection lost (%s: %s)",
			    what, strerror(e));
	rc = wait_fd(c->fd, ev, deadline);
	if (rc == -ETIMEDOUT)
		return fail(c, rc, "%s: timed out after %d ms (%zu of %zu bytes)",
			    what, c->timeout_ms, done, len);
	if (rc < 0)
		return fail(c, -ENOTCONN, "poll: %s", strerror(-rc));
	return 0;
}

typedef union {
	char b[CMSG_SPACE(sizeof(int) * GV_VHU_MAX_REGIONS)];
	struct cmsghdr align;
} cmsg_buf;

static int send_all(struct gv_vhu *c, const uint8_t *buf, size_t len,
		    const int *fds, uint32_t nfds, int64_t deadline)
{
	cmsg_buf cm;
	size_t off = 0;
	int rc;

	while (off < len) {
		struct iovec iov = { (void *)(buf + off), len - off };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (nfds > 0) { /* the fds ride with the first byte */
			struct cmsghdr *h;

			memset(&cm, 0, sizeof(cm));
			m.msg_control = cm.b;
			m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			h = CMSG_FIRSTHDR(&m);
			h->cmsg_level = SOL_SOCKET;
			h->cmsg_type = SCM_RIGHTS;
			h->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(h), fds, sizeof(int) * nfds);
		}
		n = sendmsg(c->fd, &m, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			off += (size_t)n;
			nfds = 0;
		} else if ((rc = io_retry(c, POLLOUT, deadline, "send", off, len)) < 0) {
			return rc;
		}
	}
	return 0;
}

/* Close every fd the back-end passed with a reply; count them. */
static int drop_fds(struct msghdr *m)
{
	struct cmsghdr *h;
	int count = 0;

	for (h = CMSG_FIRSTHDR(m); h != NULL; h = CMSG_NXTHDR(m, h)) {
		size_t i, nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);

		if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
			continue;
		for (i = 0; i < nfd; i++, count++) {
			int fd;

			memcpy(&fd, CMSG_DATA(h) + i * sizeof(int), sizeof(fd));
			close(fd);
		}
	}
	return count;
}

static int recv_exact(struct gv_vhu *c, uint8_t *buf, size_t len,
		      int64_t deadline, const char *what)
{
	cmsg_buf cm;
	size_t got = 0;
	int rc;

	while (got < len) {
		struct iovec iov = { buf + got, len - got };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cm.b, .msg_controllen = sizeof(cm.b) };
		ssize_t n = recvmsg(c->fd, &m, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);

		if (n > 0 && (drop_fds(&m) > 0 || (m.msg_flags & MSG_CTRUNC)))
			return fail(c, -EPROTO, "back-end sent fds with the %s", what);
		if (n > 0)
			got += (size_t)n;
		else if (n == 0)
			return fail(c, -ENOTCONN, "back-end closed the connection "
				    "(EOF after %zu of %zu bytes of the %s)", got, len, what);
		else if ((rc = io_retry(c, POLLIN, deadline, what, got, len)) < 0)
			return rc;
	}
	return 0;
}

/* Nothing may be waiting before a request: EOF or stray bytes. */
static int check_idle(struct gv_vhu *c)
{
	for (;;) {
		char b;
		ssize_t n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);

		if (n == 0)
			return fail(c, -ENOTCONN, "back-end closed the connection");
		if (n > 0)
			return fail(c, -EPROTO, "unsolicited data from the back-end");
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno != EINTR)
			return fail(c, -ENOTCONN, "back-end connection lost (%s)",
				    strerror(errno));
	}
}

/*
 * Send one request of len bytes (built in msg) and, when e != NULL, read
 * and validate its reply into *r (the reply overwrites msg).
 */
static int transact(struct gv_vhu *c, uint8_t *msg, int len, const int *fds,
		    uint32_t nfds, const struct gv_vhu_expect *e,
		    struct gv_vhu_reply *r)
{
	const char *name, *why = NULL;
	uint32_t size = 0;
	int64_t deadline;
	int rc;

	if (len < 0)
		return fail(c, len, "cannot encode the request: %s", strerror(-len));
	if (c->dead)
		return -ENOTCONN; /* c->err still tells why */
	name = gv_vhu_request_name(get32(msg));
	deadline = now_ms() + c->timeout_ms;
	rc = check_idle(c);
	if (rc == 0)
		rc = send_all(c, msg, (size_t)len, fds, nfds, deadline);
	if (rc < 0 || e == NULL)
		return rc;
	rc = recv_exact(c, msg, GV_VHU_HDR_SIZE, deadline, "reply header");
	if (rc < 0)
		return rc;
	rc = gv_vhu_check_reply_hdr(msg, GV_VHU_HDR_SIZE, e, &size, &why);
	if (rc < 0)
		return fail(c, -EPROTO, "%s: bad reply: %s (request %u, flags 0x%x, size %u)",
			    name, why, get32(msg), get32(msg + 4), get32(msg + 8));
	rc = recv_exact(c, msg + GV_VHU_HDR_SIZE, size, deadline, "reply payload");
	if (rc == 0)
		rc = gv_vhu_parse_reply(msg, GV_VHU_HDR_SIZE + size, e, r, &why);
	if (rc < 0 && why != NULL)
		return fail(c, rc, "%s: bad reply: %s", name, why);
	return rc;
}

/* A request without a reply of its own: ask for the ack if we can. */
static int send_acked(struct gv_vhu *c, uint8_t *msg, int len,
		      const int *fds, uint32_t nfds)
{
	struct gv_vhu_expect e = { .kind = GV_VHU_PL_U64 };
	struct gv_vhu_reply r;
	int rc;

	if (len < 0 || !(c->pf & (1ull << GV_VHU_PROTOCOL_F_REPLY_ACK)))
		return transact(c, msg, len, fds, nfds, NULL, NULL);
	e.request = get32(msg);
	put32(msg + 4, get32(msg + 4) | GV_VHU_FLAG_NEED_REPLY);
	rc = transact(c, msg, len, fds, nfds, &e, &r);
	if (rc == 0 && r.u64 != 0)
		return fail(c, -EIO, "%s: back-end failed the request (ack %llu)",
			    gv_vhu_request_name(e.request), (unsigned long long)r.u64);
	return rc;
}

static int new_conn(int fd, int timeout_ms, struct gv_vhu **out)
{
	struct gv_vhu *c = NULL;
	int fl = fcntl(fd, F_GETFL), rc = 0;

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		rc = -errno;
	else if ((c = calloc(1, sizeof(*c))) == NULL)
		rc = -ENOMEM;
	if (rc < 0) {
		close(fd);
		return rc;
	}
	c->fd = fd;
	gv_vhu_set_timeout(c, timeout_ms);
	*out = c;
	return 0;
}

int gv_vhu_attach_fd(int fd, int timeout_ms, struct gv_vhu **out)
{
	return fd < 0 || out == NULL ? -EINVAL : new_conn(fd, timeout_ms, out);
}

static int make_addr(const char *path, struct sockaddr_un *un)
{
	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (path == NULL || path[0] == '\0')
		return -EINVAL;
	if (strlen(path) >= sizeof(un->sun_path))
		return -ENAMETOOLONG;
	memcpy(un->sun_path, path, strlen(path));
	return 0;
}

int gv_vhu_connect(const char *path, int timeout_ms, struct gv_vhu **out)
{
	struct sockaddr_un un;
	int fd, rc = make_addr(path, &un);

	if (rc < 0 || out == NULL)
		return rc < 0 ? rc : -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	while ((rc = connect(fd, (struct sockaddr *)&un, sizeof(un))) < 0 && errno == EINTR)
		;
	if (rc < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return new_conn(fd, timeout_ms, out);
}

void gv_vhu_close(struct gv_vhu *c)
{
	if (c != NULL) {
		close(c->fd);
		free(c);
	}
}

/*
 * A socket file nobody is bound to any more (left by a process that died).
 * The probe is a datagram connect: a live stream listener answers it with
 * EPROTOTYPE and never sees a connection; a dead path gives ECONNREFUSED.
 */
static bool stale_socket(const struct sockaddr_un *un)
{
	struct stat st;
	int fd, rc;

	if (lstat(un->sun_path, &st) < 0 || !S_ISSOCK(st.st_mode))
		return false;
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	rc = connect(fd, (const struct sockaddr *)un, sizeof(*un)) < 0 &&
	     errno == ECONNREFUSED;
	close(fd);
	return rc;
}

int gv_vhu_listen(const char *path, struct gv_vhu_listener **out)
{
	struct gv_vhu_listener *l = NULL;
	struct sockaddr_un un;
	int fd, rc = make_addr(path, &un);
	bool bound;

	if (rc < 0 || out == NULL)
		return rc < 0 ? rc : -EINVAL;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	rc = bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0 ? -errno : 0;
	if (rc == -EADDRINUSE && stale_socket(&un) && unlink(un.sun_path) == 0)
		rc = bind(fd, (struct sockaddr *)&un, sizeof(un)) < 0 ? -errno : 0;
	bound = rc == 0;
	if (rc == 0 && listen(fd, 1) < 0)
		rc = -errno;
	if (rc == 0 && (l = calloc(1, sizeof(*l))) == NULL)
		rc = -ENOMEM;
	if (rc < 0) {
		if (bound) /* only ever remove the file we created */
			unlink(un.sun_path);
		close(fd);
		return rc;
	}
	l->fd = fd;
	memcpy(l->path, un.sun_path, sizeof(l->path));
	*out = l;
	return 0;
}

int gv_vhu_accept(struct gv_vhu_listener *l, int wait_ms, int timeout_ms,
		  struct gv_vhu **out)
{
	int64_t deadline = now_ms() + (wait_ms > 0 ? wait_ms : 0);

	if (l == NULL || out == NULL)
		return -EINVAL;
	for (;;) {
		int rc, fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

		if (fd >= 0)
			return new_conn(fd, timeout_ms, out);
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -errno;
		if (wait_ms == 0)
			return -EAGAIN;
		rc = wait_fd(l->fd, POLLIN, wait_ms < 0 ? INT64_MAX : deadline);
		if (rc < 0)
			return rc == -ETIMEDOUT ? -EAGAIN : rc;
	}
}

int gv_vhu_listener_fd(const struct gv_vhu_listener *l)
{
	return l != NULL ? l->fd : -EINVAL;
}

void gv_vhu_listener_close(struct gv_vhu_listener *l)
{
	if (l != NULL) {
		close(l->fd);
		unlink(l->path);
		free(l);
	}
}

int gv_vhu_fd(const struct gv_vhu *c) { return c->fd; }
int gv_vhu_dead(const struct gv_vhu *c) { return c->dead; }
const char *gv_vhu_last_error(const struct gv_vhu *c) { return c->err; }
uint64_t gv_vhu_protocol_features(const struct gv_vhu *c) { return c->pf; }

void gv_vhu_set_timeout(struct gv_vhu *c, int timeout_ms)
{
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : GV_VHU_DEFAULT_TIMEOUT_MS;
}

static int need_pf(struct gv_vhu *c, unsigned int bit, uint32_t req)
{
	if (c->pf & (1ull << bit))
		return 0;
	return fail(c, -ENOTSUP, "%s needs protocol feature %u, not negotiated",
		    gv_vhu_request_name(req), bit);
}

static int get_u64(struct gv_vhu *c, uint32_t req, uint64_t *v)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	struct gv_vhu_expect e = { .request = req, .kind = GV_VHU_PL_U64 };
	struct gv_vhu_reply r;
	int rc;

	if (v == NULL)
		return fail(c, -EINVAL, "%s: no result pointer", gv_vhu_request_name(req));
	rc = transact(c, msg, gv_vhu_enc_none(msg, sizeof(msg), req, 0), NULL, 0, &e, &r);
	if (rc == 0)
		*v = r.u64;
	return rc;
}

static int set_u64(struct gv_vhu *c, uint32_t req, uint64_t v)
{
	uint8_t msg[GV_VHU_MSG_MAX];

	return send_acked(c, msg, gv_vhu_enc_u64(msg, sizeof(msg), req, 0, v), NULL, 0);
}

static int set_state(struct gv_vhu *c, uint32_t req, uint32_t index, uint32_t num)
{
	uint8_t msg[GV_VHU_MSG_MAX];

	return send_acked(c, msg, gv_vhu_enc_state(msg, sizeof(msg), req, 0, index, num),
			  NULL, 0);
}

static int set_none(struct gv_vhu *c, uint32_t req)
{
	uint8_t msg[GV_VHU_MSG_MAX];

	return send_acked(c, msg, gv_vhu_enc_none(msg, sizeof(msg), req, 0), NULL, 0);
}

int gv_vhu_get_features(struct gv_vhu *c, uint64_t *features)
{
	int rc = get_u64(c, GV_VHU_GET_FEATURES, features);

	if (rc == 0) {
		c->offered = *features;
		c->features_known = true;
	}
	return rc;
}

int gv_vhu_set_features(struct gv_vhu *c, uint64_t features)
{
	int rc;

	if (c->features_known && (features & ~c->offered))
		return fail(c, -EINVAL, "SET_FEATURES: 0x%llx not offered by the back-end",
			    (unsigned long long)(features & ~c->offered));
	rc = set_u64(c, GV_VHU_SET_FEATURES, features);
	if (rc == 0) {
		c->features = features;
		c->features_set = true;
	}
	return rc;
}

int gv_vhu_get_protocol_features(struct gv_vhu *c, uint64_t *pf)
{
	int rc;

	if (!c->features_known || !(c->offered & (1ull << GV_VHU_F_PROTOCOL_FEATURES)))
		return fail(c, -ENOTSUP, "GET_PROTOCOL_FEATURES: PROTOCOL_FEATURES not "
			    "offered by GET_FEATURES (or GET_FEATURES not sent yet)");
	rc = get_u64(c, GV_VHU_GET_PROTOCOL_FEATURES, pf);
	if (rc == 0) {
		c->pf_offered = *pf;
		c->pf_known = true;
	}
	return rc;
}

int gv_vhu_set_protocol_features(struct gv_vhu *c, uint64_t pf)
{
	int rc;

	if (!c->pf_known)
		return fail(c, -ENOTSUP, "SET_PROTOCOL_FEATURES before GET_PROTOCOL_FEATURES");
	if (pf & ~c->pf_offered)
		return fail(c, -EINVAL, "SET_PROTOCOL_FEATURES: 0x%llx not offered",
			    (unsigned long long)(pf & ~c->pf_offered));
	rc = set_u64(c, GV_VHU_SET_PROTOCOL_FEATURES, pf);
	if (rc == 0)
		c->pf = pf; /* REPLY_ACK applies from the next request on */
	return rc;
}

int gv_vhu_set_owner(struct gv_vhu *c) { return set_none(c, GV_VHU_SET_OWNER); }
int gv_vhu_reset_owner(struct gv_vhu *c) { return set_none(c, GV_VHU_RESET_OWNER); }

int gv_vhu_set_mem_table(struct gv_vhu *c, const struct gv_vhu_mem_table *mt)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	uint32_t i;

	if (mt == NULL || mt->n == 0 || mt->n > GV_VHU_MAX_REGIONS)
		return fail(c, -EINVAL, "SET_MEM_TABLE: %u regions (1..%u)",
			    mt != NULL ? mt->n : 0, GV_VHU_MAX_REGIONS);
	for (i = 0; i < mt->n; i++)
		if (mt->fd[i] < 0)
			return fail(c, -EINVAL, "SET_MEM_TABLE: region %u has no fd", i);
	return send_acked(c, msg, gv_vhu_enc_mem(msg, sizeof(msg), 0, mt->r, mt->n),
			  mt->fd, mt->n);
}

int gv_vhu_set_vring_num(struct gv_vhu *c, uint32_t index, uint32_t num)
{
	return set_state(c, GV_VHU_SET_VRING_NUM, index, num);
}

int gv_vhu_set_vring_addr(struct gv_vhu *c, const struct gv_vhu_vring_addr *a)
{
	uint8_t msg[GV_VHU_MSG_MAX];

	return send_acked(c, msg, gv_vhu_enc_addr(msg, sizeof(msg), 0, a), NULL, 0);
}

int gv_vhu_set_vring_base(struct gv_vhu *c, uint32_t index, uint32_t base)
{
	return set_state(c, GV_VHU_SET_VRING_BASE, index, base);
}

int gv_vhu_get_vring_base(struct gv_vhu *c, uint32_t index, uint32_t *base)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	struct gv_vhu_expect e = { GV_VHU_GET_VRING_BASE, GV_VHU_PL_STATE, 0, 0 };
	struct gv_vhu_reply r;
	int rc;

	if (base == NULL)
		return fail(c, -EINVAL, "GET_VRING_BASE: no result pointer");
	rc = transact(c, msg, gv_vhu_enc_state(msg, sizeof(msg), GV_VHU_GET_VRING_BASE,
					       0, index, 0), NULL, 0, &e, &r);
	if (rc == 0 && r.index != index)
		return fail(c, -EPROTO, "GET_VRING_BASE: reply for ring %u, asked for %u",
			    r.index, index);
	if (rc == 0)
		*base = r.num;
	return rc;
}

static int set_vring_fd(struct gv_vhu *c, uint32_t req, uint32_t index, int fd)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	uint64_t v = index | (fd < 0 ? GV_VHU_VRING_NOFD : 0);

	if (index > GV_VHU_VRING_IDX_MASK)
		return fail(c, -EINVAL, "%s: ring index %u > %u",
			    gv_vhu_request_name(req), index, GV_VHU_VRING_IDX_MASK);
	return send_acked(c, msg, gv_vhu_enc_u64(msg, sizeof(msg), req, 0, v),
			  fd >= 0 ? &fd : NULL, fd >= 0 ? 1 : 0);
}

int gv_vhu_set_vring_kick(struct gv_vhu *c, uint32_t index, int fd)
{
	return set_vring_fd(c, GV_VHU_SET_VRING_KICK, index, fd);
}

int gv_vhu_set_vring_call(struct gv_vhu *c, uint32_t index, int fd)
{
	return set_vring_fd(c, GV_VHU_SET_VRING_CALL, index, fd);
}

int gv_vhu_set_vring_enable(struct gv_vhu *c, uint32_t index, bool enable)
{
	if (!c->features_set || !(c->features & (1ull << GV_VHU_F_PROTOCOL_FEATURES)))
		return fail(c, -ENOTSUP, "SET_VRING_ENABLE needs PROTOCOL_FEATURES "
			    "negotiated by SET_FEATURES");
	return set_state(c, GV_VHU_SET_VRING_ENABLE, index, enable ? 1 : 0);
}

int gv_vhu_get_queue_num(struct gv_vhu *c, uint64_t *num)
{
	int rc = need_pf(c, GV_VHU_PROTOCOL_F_MQ, GV_VHU_GET_QUEUE_NUM);

	return rc < 0 ? rc : get_u64(c, GV_VHU_GET_QUEUE_NUM, num);
}

int gv_vhu_get_config(struct gv_vhu *c, uint32_t offset, void *buf, uint32_t len)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	struct gv_vhu_expect e = { GV_VHU_GET_CONFIG, GV_VHU_PL_CONFIG, offset, len };
	struct gv_vhu_reply r;
	int rc = need_pf(c, GV_VHU_PROTOCOL_F_CONFIG, GV_VHU_GET_CONFIG);

	if (rc < 0)
		return rc;
	if (buf == NULL || len == 0 || len > GV_VHU_MAX_CONFIG)
		return fail(c, -EINVAL, "GET_CONFIG: length %u (1..%u)", len, GV_VHU_MAX_CONFIG);
	rc = transact(c, msg, gv_vhu_enc_config(msg, sizeof(msg), GV_VHU_GET_CONFIG, 0,
						offset, len, 0, NULL), NULL, 0, &e, &r);
	if (rc == 0)
		memcpy(buf, r.cfg_data, len);
	return rc;
}

int gv_vhu_set_config(struct gv_vhu *c, uint32_t offset, const void *buf,
		      uint32_t len, uint32_t cfg_flags)
{
	uint8_t msg[GV_VHU_MSG_MAX];
	int rc = need_pf(c, GV_VHU_PROTOCOL_F_CONFIG, GV_VHU_SET_CONFIG);

	if (rc < 0)
		return rc;
	if (buf == NULL || len == 0 || len > GV_VHU_MAX_CONFIG)
		return fail(c, -EINVAL, "SET_CONFIG: length %u (1..%u)", len, GV_VHU_MAX_CONFIG);
	return send_acked(c, msg, gv_vhu_enc_config(msg, sizeof(msg), GV_VHU_SET_CONFIG, 0,
						    offset, len, cfg_flags, buf), NULL, 0);
}

int gv_vhu_set_status(struct gv_vhu *c, uint8_t status)
{
	int rc = need_pf(c, GV_VHU_PROTOCOL_F_STATUS, GV_VHU_SET_STATUS);

	return rc < 0 ? rc : set_u64(c, GV_VHU_SET_STATUS, status);
}

int gv_vhu_get_status(struct gv_vhu *c, uint8_t *status)
{
	uint64_t v = 0;
	int rc = need_pf(c, GV_VHU_PROTOCOL_F_STATUS, GV_VHU_GET_STATUS);

	if (rc == 0 && status == NULL)
		rc = fail(c, -EINVAL, "GET_STATUS: no result pointer");
	if (rc == 0)
		rc = get_u64(c, GV_VHU_GET_STATUS, &v);
	if (rc == 0 && v > UINT8_MAX)
		return fail(c, -EPROTO, "GET_STATUS: status 0x%llx does not fit 8 bits",
			    (unsigned long long)v);
	if (rc == 0)
		*status = (uint8_t)v;
	return rc;
}

/* ---- memory table from EAL ------------------------------------------ */

#ifndef GV_VHU_NO_EAL
struct walk {
	struct gv_vhu_mem_table *mt;
	const char *why;
	int rc;
};

static int walk_seg(const struct rte_memseg_list *msl,
		    const struct rte_memseg *ms, void *arg)
{
	struct walk *w = arg;
	struct gv_vhu_mem_table *mt = w->mt;
	uint64_t va = (uintptr_t)ms->addr, len = ms->len;
	size_t off = 0;
	uint32_t i;
	int fd;

	if (msl->external || len == 0)
		return 0; /* no fd to share; the back-end cannot see it */
	fd = rte_memseg_get_fd_thread_unsafe(ms);
	if (fd < 0 || rte_memseg_get_fd_offset_thread_unsafe(ms, &off) < 0) {
		w->rc = rte_errno > 0 ? -rte_errno : -ENODEV;
		w->why = fd < 0 ? "rte_memseg_get_fd failed for a segment" :
			 "rte_memseg_get_fd_offset failed for a segment";
		return -1;
	}
	for (i = 0; i < mt->n; i++) {
		struct gv_vhu_region *r = &mt->r[i];

		if (mt->fd[i] == fd && r->userspace_addr + r->memory_size == va &&
		    r->mmap_offset + r->memory_size == off) {
			r->memory_size += len;
			return 0;
		}
	}
	if (mt->n == GV_VHU_MAX_REGIONS) {
		w->rc = -E2BIG;
		w->why = "EAL memory needs more than 8 regions (hugepages with one fd "
			 "per page: use --single-file-segments, or --no-huge)";
		return -1;
	}
	mt->r[mt->n] = (struct gv_vhu_region){
		.guest_phys_addr = va, /* IOVA as VA: descriptors carry VAs */
		.memory_size = len,
		.userspace_addr = va,
		.mmap_offset = off,
	};
	mt->fd[mt->n++] = fd;
	return 0;
}

int gv_vhu_mem_table_from_eal(struct gv_vhu_mem_table *mt, bool lock_held,
			      const char **why)
{
	struct walk w = { .mt = mt };

	if (mt == NULL)
		return -EINVAL;
	memset(mt, 0, sizeof(*mt));
	if (!lock_held)
		rte_mcfg_mem_read_lock();
	rte_memseg_walk_thread_unsafe(walk_seg, &w);
	if (!lock_held)
		rte_mcfg_mem_read_unlock();
	if (w.rc == 0 && mt->n == 0) {
		w.rc = -ENOENT;
		w.why = "no EAL memory segment with an fd";
	}
	if (why != NULL)
		*why = w.why;
	return w.rc;
}

int gv_vhu_update_mem_table(struct gv_vhu *c, bool lock_held)
{
	struct gv_vhu_mem_table mt;
	const char *why = NULL;
	int rc = gv_vhu_mem_table_from_eal(&mt, lock_held, &why);

	if (rc < 0)
		return fail(c, rc, "memory table from EAL: %s: %s", why, strerror(-rc));
	return gv_vhu_set_mem_table(c, &mt);
}
#endif
