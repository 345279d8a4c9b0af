/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_fake_vhu.c - the scripted fake vhost-user back-end of the front-end tests
 * (see gv_fake_vhu.h).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gv_fake_vhu.h"

bool be_fail(struct be *b, int line, const char *what)
{
	if (!b->failed++)
		snprintf(b->why, sizeof(b->why), "back-end check at line %d: %s", line, what);
	return false;
}


static bool be_read(int fd, uint8_t *p, size_t len, struct be_msg *m)
{
	size_t got = 0;

	while (got < len) {
		union { char c[CMSG_SPACE(sizeof(int) * 16)]; struct cmsghdr a; } cm;
		struct iovec iov = { p + got, len - got };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cm.c, .msg_controllen = sizeof(cm.c) };
		ssize_t n = recvmsg(fd, &h, MSG_CMSG_CLOEXEC);
		struct cmsghdr *c;

		if (n <= 0)
			return false;
		for (c = CMSG_FIRSTHDR(&h); c; c = CMSG_NXTHDR(&h, c)) {
			size_t i, k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (i = 0; i < k && m->nfds < 16; i++)
				memcpy(&m->fds[m->nfds++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
		}
		got += (size_t)n;
	}
	return true;
}

/* One request (blocking); false on EOF or garbage. */
bool be_recv(struct be *b, struct be_msg *m)
{
	uint8_t h[12];

	memset(m, 0, sizeof(*m));
	if (!be_read(b->fd, h, 12, m))
		return false;
	m->req = get32(h);
	m->flags = get32(h + 4);
	m->size = get32(h + 8);
	return m->size <= sizeof(m->pl) && be_read(b->fd, m->pl, m->size, m);
}

void be_close_fds(struct be_msg *m)
{
	for (int i = 0; i < m->nfds; i++)
		close(m->fds[i]);
	m->nfds = 0;
}

void be_send_raw(struct be *b, const void *p, size_t len)
{
	ssize_t n = send(b->fd, p, len, MSG_NOSIGNAL);

	if (n != (ssize_t)len)
		be_fail(b, __LINE__, "send");
}

void be_reply(struct be *b, uint32_t req, uint32_t flags, const void *pl, uint32_t size)
{
	uint8_t m[12 + 512];

	put32(m, req);
	put32(m + 4, flags);
	put32(m + 8, size);
	memcpy(m + 12, pl, size);
	be_send_raw(b, m, 12 + size);
}

void be_u64(struct be *b, uint32_t req, uint64_t v)
{
	be_reply(b, req, RFLAGS, &v, 8);
}

/* Read until the front-end closes. */
void be_wait_eof(struct be *b)
{
	char c[64];

	while (recv(b->fd, c, sizeof(c), 0) > 0)
		;
}

void *be_main(void *arg)
{
	struct be *b = arg;

	if (b->lfd >= 0) {
		b->fd = accept4(b->lfd, NULL, NULL, SOCK_CLOEXEC);
		if (b->fd < 0) {
			be_fail(b, __LINE__, "accept");
			return NULL;
		}
	}
	b->script(b);
	return NULL;
}

/* Socketpair: the front-end gets a connection with timeout tmo ms. */
struct gv_vhu *be_start_pair(struct be *b, be_script s, void *arg, int tmo)
{
	struct gv_vhu *c = NULL;
	int sv[2];

	memset(b, 0, sizeof(*b));
	b->lfd = -1;
	b->script = s;
	b->arg = arg;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	b->fd = sv[1];
	assert_int_equal(gv_vhu_attach_fd(sv[0], tmo, &c), 0);
	assert_int_equal(pthread_create(&b->th, NULL, be_main, b), 0);
	return c;
}

void be_join(struct be *b)
{
	assert_int_equal(pthread_join(b->th, NULL), 0);
	if (b->fd >= 0)
		close(b->fd);
	if (b->failed)
		fail_msg("%s (%d failures)", b->why, b->failed);
}

void mk_tmpdir(char *dir, size_t len)
{
	snprintf(dir, len, "/tmp/gvtest_vhu_XXXXXX");
	assert_non_null(mkdtemp(dir));
}
