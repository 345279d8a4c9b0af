/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_vhost_user.c - the vhost-user front-end (drivers/net/virtio/
 * gv_vhost_user*.c) against a fake back-end (the codec alone:
 * test_vhost_user_codec.c).
 *
 *  - the fake back-end (gv_fake_vhu.c) is a thread on one end of a socketpair (or of a
 *    unix socket in a mkdtemp directory under /tmp) that runs a script:
 *    it reads each request, checks header, payload and passed fds, and
 *    answers as scripted. Its checks are recorded and asserted by the
 *    main thread after the join (cmocka asserts are not thread safe);
 *  - happy path: client mode, full negotiation with REPLY_ACK, SET_MEM_TABLE
 *    with two memfds the back-end maps and reads, two vrings with kick/call
 *    eventfds the back-end signals, GET_VRING_BASE, config and status;
 *  - hostile replies: wrong size, huge size, wrong request, no REPLY flag,
 *    bad version, truncated then EOF, truncated then silence, no reply
 *    (timeout bounded, 200 ms), peer closes, peer stops reading (EPIPE, no
 *    SIGPIPE), fds in a reply, wrong ring index, unsolicited bytes, NACK;
 *  - server mode: listen/accept, a back-end that restarts, stale socket;
 *  - EAL (last, --no-huge): the memory table from the memsegs, checked by
 *    mapping the fds it names, and sent to a fake back-end that reads a
 *    pattern written through rte_malloc memory.
 * No sleeps are used for synchronisation.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "gv_fake_vhu.h"

/* =========================================================== happy path */

struct happy {
	struct gv_vhu_mem_table mt;
	struct gv_vhu_vring_addr addr[2];
};

static bool expect(struct be *b, struct be_msg *m, uint32_t req, uint32_t flags, uint32_t size)
{
	if (!be_recv(b, m))
		return be_fail(b, __LINE__, "EOF/garbage instead of a request");
	if (m->req != req || m->flags != flags || m->size != size) {
		snprintf(b->why, sizeof(b->why), "got req %u flags 0x%x size %u, want %u 0x%x %u",
			 m->req, m->flags, m->size, req, flags, size);
		b->failed++;
		return false;
	}
	return true;
}

#define EXPECT(req, flags, size) do { if (!expect(b, &m, (req), (flags), (size))) return; } while (0)
#define ACKED (GV_VHU_VERSION | GV_VHU_FLAG_NEED_REPLY)

static void script_happy(struct be *b)
{
	const struct happy *h = b->arg;
	struct be_msg m;
	uint64_t one = 1;
	int q;

	EXPECT(GV_VHU_GET_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_FEATURES, F_VERSION_1 | F_MRG_RXBUF | F_PROTO);
	EXPECT(GV_VHU_SET_FEATURES, 1, 8);
	BE_CHECK(b, get64(m.pl) == (F_VERSION_1 | F_PROTO));
	EXPECT(GV_VHU_GET_PROTOCOL_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_PROTOCOL_FEATURES,
	       PF(MQ) | PF(LOG_SHMFD) | PF(REPLY_ACK) | PF(CONFIG) | PF(STATUS));
	EXPECT(GV_VHU_SET_PROTOCOL_FEATURES, 1, 8); /* no ack before it is on */
	BE_CHECK(b, get64(m.pl) == (PF(MQ) | PF(REPLY_ACK) | PF(CONFIG) | PF(STATUS)));
	EXPECT(GV_VHU_SET_OWNER, ACKED, 0);
	be_u64(b, GV_VHU_SET_OWNER, 0);
	EXPECT(GV_VHU_GET_QUEUE_NUM, 1, 0);
	be_u64(b, GV_VHU_GET_QUEUE_NUM, 4);

	EXPECT(GV_VHU_SET_MEM_TABLE, ACKED, 8 + 2 * 32);
	BE_CHECK(b, get32(m.pl) == 2 && m.nfds == 2);
	for (int i = 0; i < 2; i++) {
		const uint8_t *r = m.pl + 8 + 32 * i;
		uint64_t size = get64(r + 8), off = get64(r + 24);
		uint8_t *map;

		BE_CHECK(b, get64(r) == h->mt.r[i].guest_phys_addr && size == h->mt.r[i].memory_size &&
			    get64(r + 16) == h->mt.r[i].userspace_addr && off == h->mt.r[i].mmap_offset);
		map = mmap(NULL, size + off, PROT_READ, MAP_SHARED, m.fds[i], 0);
		BE_CHECK(b, map != MAP_FAILED);
		BE_CHECK(b, memcmp(map + off, i ? "region-1" : "region-0", 8) == 0);
		munmap(map, size + off);
	}
	be_close_fds(&m);
	be_u64(b, GV_VHU_SET_MEM_TABLE, 0);

	for (q = 0; q < 2; q++) {
		EXPECT(GV_VHU_SET_VRING_NUM, ACKED, 8);
		BE_CHECK(b, get32(m.pl) == (uint32_t)q && get32(m.pl + 4) == 256);
		be_u64(b, GV_VHU_SET_VRING_NUM, 0);
		EXPECT(GV_VHU_SET_VRING_ADDR, ACKED, 40);
		BE_CHECK(b, get32(m.pl) == (uint32_t)q && get32(m.pl + 4) == 0 &&
			    get64(m.pl + 8) == h->addr[q].desc && get64(m.pl + 16) == h->addr[q].used &&
			    get64(m.pl + 24) == h->addr[q].avail && get64(m.pl + 32) == 0);
		be_u64(b, GV_VHU_SET_VRING_ADDR, 0);
		EXPECT(GV_VHU_SET_VRING_BASE, ACKED, 8);
		BE_CHECK(b, get32(m.pl) == (uint32_t)q && get32(m.pl + 4) == 0);
		be_u64(b, GV_VHU_SET_VRING_BASE, 0);
		EXPECT(GV_VHU_SET_VRING_KICK, ACKED, 8);
		BE_CHECK(b, get64(m.pl) == (uint64_t)q && m.nfds == 1);
		BE_CHECK(b, write(m.fds[0], &one, 8) == 8); /* the front-end reads it */
		be_close_fds(&m);
		be_u64(b, GV_VHU_SET_VRING_KICK, 0);
		EXPECT(GV_VHU_SET_VRING_CALL, ACKED, 8);
		BE_CHECK(b, get64(m.pl) == (uint64_t)q && m.nfds == 1);
		BE_CHECK(b, write(m.fds[0], &one, 8) == 8);
		be_close_fds(&m);
		be_u64(b, GV_VHU_SET_VRING_CALL, 0);
		EXPECT(GV_VHU_SET_VRING_ENABLE, ACKED, 8);
		BE_CHECK(b, get32(m.pl) == (uint32_t)q && get32(m.pl + 4) == 1);
		be_u64(b, GV_VHU_SET_VRING_ENABLE, 0);
	}
	EXPECT(GV_VHU_SET_VRING_CALL, ACKED, 8); /* fd < 0: NOFD, no fd */
	BE_CHECK(b, get64(m.pl) == (1 | GV_VHU_VRING_NOFD) && m.nfds == 0);
	be_u64(b, GV_VHU_SET_VRING_CALL, 0);
	EXPECT(GV_VHU_GET_CONFIG, 1, 12 + 6);
	BE_CHECK(b, get32(m.pl) == 0 && get32(m.pl + 4) == 6);
	memcpy(m.pl + 12, "\x02\x00\x00\x00\x00\x01", 6);
	be_reply(b, GV_VHU_GET_CONFIG, RFLAGS, m.pl, 18);
	EXPECT(GV_VHU_SET_CONFIG, ACKED, 12 + 2);
	BE_CHECK(b, get32(m.pl) == 6 && get32(m.pl + 4) == 2 && memcmp(m.pl + 12, "\xdc\x05", 2) == 0);
	be_u64(b, GV_VHU_SET_CONFIG, 0);
	EXPECT(GV_VHU_SET_STATUS, ACKED, 8);
	BE_CHECK(b, get64(m.pl) == 0xf);
	be_u64(b, GV_VHU_SET_STATUS, 0);
	EXPECT(GV_VHU_GET_STATUS, 1, 0);
	be_u64(b, GV_VHU_GET_STATUS, 0xf);
	for (q = 1; q >= 0; q--) {
		uint32_t st[2] = { (uint32_t)q, 42u + (uint32_t)q };

		EXPECT(GV_VHU_GET_VRING_BASE, 1, 8); /* has its own reply: no NEED_REPLY */
		BE_CHECK(b, get32(m.pl) == (uint32_t)q);
		be_reply(b, GV_VHU_GET_VRING_BASE, RFLAGS, st, 8);
	}
	EXPECT(GV_VHU_RESET_OWNER, ACKED, 0);
	be_u64(b, GV_VHU_RESET_OWNER, 0);
	be_wait_eof(b);
}

static void test_happy_client_mode(void **state)
{
	struct happy h;
	struct be b = { .fd = -1 };
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	struct gv_vhu *c = NULL;
	char dir[64];
	void *map[2];
	int mfd[2], kick[2], call[2], q;
	uint64_t f, pf, n, v;
	uint32_t base;
	uint8_t mac[6], st;

	(void)state;
	memset(&h, 0, sizeof(h));
	for (int i = 0; i < 2; i++) {
		mfd[i] = memfd_create("gvtest", MFD_CLOEXEC);
		assert_true(mfd[i] >= 0);
		assert_int_equal(ftruncate(mfd[i], 64 << 10), 0);
		map[i] = mmap(NULL, 64 << 10, PROT_READ | PROT_WRITE, MAP_SHARED, mfd[i], 0);
		assert_true(map[i] != MAP_FAILED);
		h.mt.r[i].mmap_offset = i ? 4096 : 0; /* region 1 starts 4 KiB into its fd */
		h.mt.r[i].userspace_addr = (uintptr_t)map[i] + h.mt.r[i].mmap_offset;
		h.mt.r[i].guest_phys_addr = h.mt.r[i].userspace_addr;
		h.mt.r[i].memory_size = (64 << 10) - h.mt.r[i].mmap_offset;
		h.mt.fd[i] = mfd[i];
		memcpy((char *)map[i] + h.mt.r[i].mmap_offset, i ? "region-1" : "region-0", 8);
		h.addr[i] = (struct gv_vhu_vring_addr){ (uint32_t)i, 0,
			h.mt.r[0].userspace_addr + 0x4000 * i,
			h.mt.r[0].userspace_addr + 0x4000 * i + 0x2000,
			h.mt.r[0].userspace_addr + 0x4000 * i + 0x1000, 0 };
		kick[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		call[i] = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
		assert_true(kick[i] >= 0 && call[i] >= 0);
	}
	h.mt.n = 2;

	/* back-end listens in a private directory; we connect */
	mk_tmpdir(dir, sizeof(dir));
	snprintf(un.sun_path, sizeof(un.sun_path), "%s/vhu.sock", dir);
	b.lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(b.lfd >= 0);
	assert_int_equal(bind(b.lfd, (struct sockaddr *)&un, sizeof(un)), 0);
	assert_int_equal(listen(b.lfd, 1), 0);
	b.script = script_happy;
	b.arg = &h;
	assert_int_equal(pthread_create(&b.th, NULL, be_main, &b), 0);
	assert_int_equal(gv_vhu_connect(un.sun_path, T_LONG, &c), 0);

	assert_int_equal(gv_vhu_get_features(c, &f), 0);
	assert_true(f == (F_VERSION_1 | F_MRG_RXBUF | F_PROTO));
	assert_int_equal(gv_vhu_set_features(c, F_VERSION_1 | F_PROTO), 0);
	assert_int_equal(gv_vhu_get_protocol_features(c, &pf), 0);
	assert_int_equal(gv_vhu_set_protocol_features(c, PF(MQ) | PF(REPLY_ACK) | PF(CONFIG) | PF(STATUS)), 0);
	assert_true(gv_vhu_protocol_features(c) & PF(REPLY_ACK));
	assert_int_equal(gv_vhu_set_owner(c), 0);
	assert_int_equal(gv_vhu_get_queue_num(c, &n), 0);
	assert_true(n == 4);
	assert_int_equal(gv_vhu_set_mem_table(c, &h.mt), 0);
	for (q = 0; q < 2; q++) {
		assert_int_equal(gv_vhu_set_vring_num(c, (uint32_t)q, 256), 0);
		assert_int_equal(gv_vhu_set_vring_addr(c, &h.addr[q]), 0);
		assert_int_equal(gv_vhu_set_vring_base(c, (uint32_t)q, 0), 0);
		assert_int_equal(gv_vhu_set_vring_kick(c, (uint32_t)q, kick[q]), 0);
		assert_int_equal(gv_vhu_set_vring_call(c, (uint32_t)q, call[q]), 0);
		assert_int_equal(gv_vhu_set_vring_enable(c, (uint32_t)q, true), 0);
		/* the acks came after the back-end signalled the fds it got */
		assert_int_equal(read(kick[q], &v, 8), 8);
		assert_int_equal(read(call[q], &v, 8), 8);
	}
	assert_int_equal(gv_vhu_set_vring_call(c, 1, -1), 0);
	assert_int_equal(gv_vhu_get_config(c, 0, mac, 6), 0);
	assert_memory_equal(mac, "\x02\x00\x00\x00\x00\x01", 6);
	assert_int_equal(gv_vhu_set_config(c, 6, "\xdc\x05", 2, 0), 0);
	assert_int_equal(gv_vhu_set_status(c, 0xf), 0);
	assert_int_equal(gv_vhu_get_status(c, &st), 0);
	assert_int_equal(st, 0xf);
	assert_int_equal(gv_vhu_get_vring_base(c, 1, &base), 0);
	assert_int_equal(base, 43);
	assert_int_equal(gv_vhu_get_vring_base(c, 0, &base), 0);
	assert_int_equal(base, 42);
	assert_int_equal(gv_vhu_reset_owner(c), 0);
	assert_int_equal(gv_vhu_dead(c), 0);
	gv_vhu_close(c);
	be_join(&b);

	close(b.lfd);
	unlink(un.sun_path);
	assert_int_equal(rmdir(dir), 0);
	for (int i = 0; i < 2; i++) {
		munmap(map[i], 64 << 10);
		close(mfd[i]);
		close(kick[i]);
		close(call[i]);
	}
}

/* Without REPLY_ACK nothing asks for an ack and nothing waits for one. */
static void script_no_ack(struct be *b)
{
	struct be_msg m;

	EXPECT(GV_VHU_GET_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_FEATURES, F_VERSION_1 | F_PROTO);
	EXPECT(GV_VHU_GET_PROTOCOL_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_PROTOCOL_FEATURES, PF(REPLY_ACK) | PF(MQ));
	EXPECT(GV_VHU_SET_PROTOCOL_FEATURES, 1, 8);
	EXPECT(GV_VHU_SET_OWNER, 1, 0);
	EXPECT(GV_VHU_SET_VRING_NUM, 1, 8);
	EXPECT(GV_VHU_SET_VRING_KICK, 1, 8);
	BE_CHECK(b, get64(m.pl) == (3 | GV_VHU_VRING_NOFD) && m.nfds == 0);
	EXPECT(GV_VHU_GET_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_FEATURES, 7);
	be_wait_eof(b);
}

static void test_no_reply_ack(void **state)
{
	struct be b;
	struct gv_vhu *c = be_start_pair(&b, script_no_ack, NULL, T_LONG);
	uint64_t v;

	(void)state;
	assert_int_equal(gv_vhu_get_features(c, &v), 0);
	assert_int_equal(gv_vhu_get_protocol_features(c, &v), 0);
	assert_int_equal(gv_vhu_set_protocol_features(c, PF(MQ)), 0);
	assert_int_equal(gv_vhu_set_owner(c), 0);
	assert_int_equal(gv_vhu_set_vring_num(c, 0, 256), 0);
	assert_int_equal(gv_vhu_set_vring_kick(c, 3, -1), 0);
	assert_int_equal(gv_vhu_get_features(c, &v), 0);
	assert_true(v == 7);
	gv_vhu_close(c);
	be_join(&b);
}

/* Negotiate REPLY_ACK over c (the script side is be_negotiate). */
static void fe_negotiate(struct gv_vhu *c)
{
	uint64_t v;

	assert_int_equal(gv_vhu_get_features(c, &v), 0);
	assert_int_equal(gv_vhu_get_protocol_features(c, &v), 0);
	assert_int_equal(gv_vhu_set_protocol_features(c, PF(REPLY_ACK)), 0);
}

static bool be_negotiate(struct be *b)
{
	struct be_msg m;

	if (!expect(b, &m, GV_VHU_GET_FEATURES, 1, 0))
		return false;
	be_u64(b, GV_VHU_GET_FEATURES, F_PROTO);
	if (!expect(b, &m, GV_VHU_GET_PROTOCOL_FEATURES, 1, 0))
		return false;
	be_u64(b, GV_VHU_GET_PROTOCOL_FEATURES, PF(REPLY_ACK));
	return expect(b, &m, GV_VHU_SET_PROTOCOL_FEATURES, 1, 8);
}

static void script_nack(struct be *b)
{
	struct be_msg m;

	if (!be_negotiate(b))
		return;
	EXPECT(GV_VHU_SET_VRING_NUM, ACKED, 8);
	be_u64(b, GV_VHU_SET_VRING_NUM, 1);
	EXPECT(GV_VHU_SET_OWNER, ACKED, 0);
	be_u64(b, GV_VHU_SET_OWNER, 0);
	be_wait_eof(b);
}

static void test_nack(void **state)
{
	struct be b;
	struct gv_vhu *c = be_start_pair(&b, script_nack, NULL, T_LONG);

	(void)state;
	fe_negotiate(c);
	assert_int_equal(gv_vhu_set_vring_num(c, 0, 100), -EIO);
	assert_non_null(strstr(gv_vhu_last_error(c), "SET_VRING_NUM"));
	assert_int_equal(gv_vhu_dead(c), 0); /* still in sync: usable */
	assert_int_equal(gv_vhu_set_owner(c), 0);
	gv_vhu_close(c);
	be_join(&b);
}

/* ============================================================== hostile */

enum hostile {
	H_SIZE4, H_WRONG_REQ, H_NO_REPLY_FLAG, H_VERSION0,
	H_TRUNC_EOF, H_TRUNC_STALL, H_SILENT, H_CLOSE, H_FD_IN_REPLY,
	H_RING_INDEX, H_EMPTY,
};

static enum hostile hostile_mode;

static void script_hostile(struct be *b)
{
	struct be_msg m;
	uint8_t raw[32] = { 0 };
	uint64_t v = F_PROTO;

	if (!be_recv(b, &m)) {
		be_fail(b, __LINE__, "no request");
		return;
	}
	switch (hostile_mode) {
	case H_SIZE4:
		be_reply(b, m.req, RFLAGS, &v, 4);
		break;
	case H_WRONG_REQ:
		be_reply(b, m.req + 1, RFLAGS, &v, 8);
		break;
	case H_NO_REPLY_FLAG:
		be_reply(b, m.req, GV_VHU_VERSION, &v, 8);
		break;
	case H_VERSION0:
		be_reply(b, m.req, GV_VHU_FLAG_REPLY, &v, 8);
		break;
	case H_TRUNC_EOF:
	case H_TRUNC_STALL:
		put32(raw, m.req);
		put32(raw + 4, RFLAGS);
		put32(raw + 8, 8);
		be_send_raw(b, raw, 12 + 3);
		if (hostile_mode == H_TRUNC_EOF) {
			close(b->fd);
			b->fd = -1;
			return;
		}
		break;
	case H_SILENT:
		break;
	case H_CLOSE:
		close(b->fd);
		b->fd = -1;
		return;
	case H_FD_IN_REPLY: {
		union { char c[CMSG_SPACE(sizeof(int))]; struct cmsghdr a; } cm;
		struct iovec iov = { raw, 20 };
		struct msghdr h = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cm.c, .msg_controllen = sizeof(cm.c) };
		struct cmsghdr *c = CMSG_FIRSTHDR(&h);
		int efd = eventfd(0, EFD_CLOEXEC);

		put32(raw, m.req);
		put32(raw + 4, RFLAGS);
		put32(raw + 8, 8);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &efd, sizeof(int));
		BE_CHECK(b, sendmsg(b->fd, &h, MSG_NOSIGNAL) == 20);
		close(efd);
		break;
	}
	case H_RING_INDEX: {
		uint32_t st[2] = { get32(m.pl) + 1, 5 };

		be_reply(b, m.req, RFLAGS, st, 8);
		break;
	}
	case H_EMPTY:
		be_reply(b, m.req, RFLAGS, &v, 0);
		break;
	}
	be_wait_eof(b);
}

/* The back-end answers the first request with one hostile reply. */
static void hostile_case(enum hostile mode, int want, const char *msg_part)
{
	struct be b;
	struct gv_vhu *c;
	int64_t t0, dt;
	uint64_t v;
	uint32_t base;
	int rc;

	hostile_mode = mode;
	c = be_start_pair(&b, script_hostile, NULL, want == -ETIMEDOUT ? T_MS : T_LONG);
	t0 = mono_ms();
	if (mode == H_RING_INDEX)
		rc = gv_vhu_get_vring_base(c, 2, &base);
	else
		rc = gv_vhu_get_features(c, &v);
	dt = mono_ms() - t0;
	assert_int_equal(rc, want);
	assert_int_equal(gv_vhu_dead(c), want);
	if (msg_part != NULL && strstr(gv_vhu_last_error(c), msg_part) == NULL)
		fail_msg("error text '%s' lacks '%s'", gv_vhu_last_error(c), msg_part);
	if (want == -ETIMEDOUT && (dt < T_MS - 10 || dt > T_MS + 1000))
		fail_msg("timed out after %lld ms, want about %d", (long long)dt, T_MS);
	if (want != -ETIMEDOUT && dt >= T_LONG)
		fail_msg("took %lld ms", (long long)dt);
	/* dead: the next request fails at once */
	assert_int_equal(gv_vhu_get_features(c, &v), -ENOTCONN);
	gv_vhu_close(c);
	be_join(&b);
}

static void test_hostile_size(void **s) { (void)s; hostile_case(H_SIZE4, -EPROTO, "size field"); }
static void test_hostile_request(void **s) { (void)s; hostile_case(H_WRONG_REQ, -EPROTO, "another request"); }
static void test_hostile_reply_flag(void **s) { (void)s; hostile_case(H_NO_REPLY_FLAG, -EPROTO, "REPLY flag"); }
static void test_hostile_version(void **s) { (void)s; hostile_case(H_VERSION0, -EPROTO, "version"); }
static void test_hostile_trunc_eof(void **s) { (void)s; hostile_case(H_TRUNC_EOF, -ENOTCONN, "EOF after 3 of 8"); }
static void test_hostile_trunc_stall(void **s) { (void)s; hostile_case(H_TRUNC_STALL, -ETIMEDOUT, "timed out"); }
static void test_hostile_timeout(void **s) { (void)s; hostile_case(H_SILENT, -ETIMEDOUT, "reply header"); }
static void test_hostile_close(void **s) { (void)s; hostile_case(H_CLOSE, -ENOTCONN, "closed"); }
static void test_hostile_fd(void **s) { (void)s; hostile_case(H_FD_IN_REPLY, -EPROTO, "fds"); }
static void test_hostile_ring(void **s) { (void)s; hostile_case(H_RING_INDEX, -EPROTO, "ring 3"); }
static void test_hostile_empty(void **s) { (void)s; hostile_case(H_EMPTY, -EPROTO, "size field"); }

/* Bytes waiting before a request are a violation (a stray reply). */
static void test_hostile_unsolicited(void **state)
{
	struct gv_vhu *c = NULL;
	uint8_t r[20];
	uint64_t v;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(gv_vhu_attach_fd(sv[0], T_MS, &c), 0);
	put32(r, GV_VHU_GET_FEATURES); /* a well-formed reply, but unasked */
	put32(r + 4, RFLAGS);
	put32(r + 8, 8);
	put64(r + 12, F_PROTO);
	assert_int_equal(send(sv[1], r, sizeof(r), 0), (ssize_t)sizeof(r));
	assert_int_equal(gv_vhu_get_features(c, &v), -EPROTO);
	assert_non_null(strstr(gv_vhu_last_error(c), "unsolicited"));
	gv_vhu_close(c);
	close(sv[1]);
}

/* A size field of 0xffffffff fails at the header, without reading on. */
static void script_huge(struct be *b)
{
	struct be_msg m;
	uint8_t r[12 + 8] = { 0 };

	BE_CHECK(b, be_recv(b, &m));
	put32(r, m.req);
	put32(r + 4, RFLAGS);
	put32(r + 8, 0xffffffffu);
	be_send_raw(b, r, sizeof(r));
	be_wait_eof(b);
}

static void test_hostile_huge_size(void **state)
{
	struct be b;
	struct gv_vhu *c = be_start_pair(&b, script_huge, NULL, T_LONG);
	int64_t t0 = mono_ms();
	uint64_t v;

	(void)state;
	assert_int_equal(gv_vhu_get_features(c, &v), -EPROTO);
	assert_true(mono_ms() - t0 < T_LONG); /* no wait for 4 GiB */
	assert_non_null(strstr(gv_vhu_last_error(c), "size 4294967295"));
	gv_vhu_close(c);
	be_join(&b);
}

/* The back-end stops reading: send fails with EPIPE, not SIGPIPE. */
static void test_peer_shut_read(void **state)
{
	struct gv_vhu *c = NULL;
	struct sigaction dfl = { .sa_handler = SIG_DFL }, old;
	int sv[2];

	(void)state;
	assert_int_equal(sigaction(SIGPIPE, &dfl, &old), 0); /* SIGPIPE would kill us */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(gv_vhu_attach_fd(sv[0], T_MS, &c), 0);
	assert_int_equal(shutdown(sv[1], SHUT_RD), 0);
	assert_int_equal(gv_vhu_set_owner(c), -ENOTCONN);
	assert_non_null(strstr(gv_vhu_last_error(c), "send"));
	gv_vhu_close(c);
	close(sv[1]);
	/* and a back-end that is gone before the request */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(gv_vhu_attach_fd(sv[0], T_MS, &c), 0);
	close(sv[1]);
	assert_int_equal(gv_vhu_set_owner(c), -ENOTCONN);
	gv_vhu_close(c);
	assert_int_equal(sigaction(SIGPIPE, &old, NULL), 0);
}

/* Requests that need a negotiated feature fail before any I/O. */
static void test_not_negotiated(void **state)
{
	struct gv_vhu *c = NULL;
	uint8_t buf[8], st;
	uint64_t v;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(gv_vhu_attach_fd(sv[0], T_MS, &c), 0);
	assert_int_equal(gv_vhu_get_protocol_features(c, &v), -ENOTSUP);
	assert_int_equal(gv_vhu_set_protocol_features(c, 0), -ENOTSUP);
	assert_int_equal(gv_vhu_get_queue_num(c, &v), -ENOTSUP);
	assert_int_equal(gv_vhu_get_config(c, 0, buf, 6), -ENOTSUP);
	assert_int_equal(gv_vhu_set_config(c, 0, buf, 6, 0), -ENOTSUP);
	assert_int_equal(gv_vhu_set_status(c, 1), -ENOTSUP);
	assert_int_equal(gv_vhu_get_status(c, &st), -ENOTSUP);
	assert_int_equal(gv_vhu_set_vring_enable(c, 0, true), -ENOTSUP);
	assert_int_equal(gv_vhu_set_vring_kick(c, 256, -1), -EINVAL);
	assert_int_equal(gv_vhu_set_mem_table(c, NULL), -EINVAL);
	assert_int_equal(gv_vhu_dead(c), 0);
	/* nothing was sent */
	assert_int_equal(recv(sv[1], buf, 1, MSG_DONTWAIT), -1);
	assert_int_equal(errno, EAGAIN);
	gv_vhu_close(c);
	close(sv[1]);
}

/* A back-end without PROTOCOL_FEATURES; SET_FEATURES outside the offer. */
static void script_offer(struct be *b)
{
	struct be_msg m;

	EXPECT(GV_VHU_GET_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_FEATURES, F_VERSION_1);
	be_wait_eof(b);
}

static void test_offer_checks(void **state)
{
	struct be b;
	struct gv_vhu *c = be_start_pair(&b, script_offer, NULL, T_LONG);
	uint64_t v;

	(void)state;
	assert_int_equal(gv_vhu_get_features(c, &v), 0);
	assert_int_equal(gv_vhu_get_protocol_features(c, &v), -ENOTSUP);
	assert_int_equal(gv_vhu_set_features(c, F_VERSION_1 | F_PROTO), -EINVAL);
	assert_int_equal(gv_vhu_dead(c), 0);
	gv_vhu_close(c);
	be_join(&b);
}

/* ========================================================== server mode */

static void script_one_get(struct be *b)
{
	struct be_msg m;

	EXPECT(GV_VHU_GET_FEATURES, 1, 0);
	be_u64(b, GV_VHU_GET_FEATURES, (uint64_t)(uintptr_t)b->arg);
	close(b->fd); /* the back-end "restarts" */
	b->fd = -1;
}

static int be_connect(const char *path)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
	assert_true(fd >= 0);
	assert_int_equal(connect(fd, (struct sockaddr *)&un, sizeof(un)), 0);
	return fd;
}

static void test_server_mode(void **state)
{
	struct gv_vhu_listener *l = NULL, *l2 = NULL;
	struct gv_vhu *c = NULL;
	struct be b;
	char dir[64], path[96];
	struct stat sb;
	uint64_t v;
	int round;

	(void)state;
	mk_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fe.sock", dir);
	assert_int_equal(gv_vhu_listen(path, &l), 0);
	assert_true(gv_vhu_listener_fd(l) >= 0);
	assert_int_equal(gv_vhu_listen(path, &l2), -EADDRINUSE); /* a live one stays */
	assert_int_equal(gv_vhu_accept(l, 0, T_MS, &c), -EAGAIN);
	{
		int64_t t0 = mono_ms();

		assert_int_equal(gv_vhu_accept(l, 50, T_MS, &c), -EAGAIN);
		assert_true(mono_ms() - t0 >= 45);
	}
	for (round = 0; round < 3; round++) {
		memset(&b, 0, sizeof(b));
		b.lfd = -1;
		b.fd = be_connect(path); /* completes in the backlog */
		b.script = script_one_get;
		b.arg = (void *)(uintptr_t)(100 + round);
		assert_int_equal(gv_vhu_accept(l, round == 0 ? 0 : 1000, T_LONG, &c), 0);
		assert_int_equal(pthread_create(&b.th, NULL, be_main, &b), 0);
		assert_int_equal(gv_vhu_get_features(c, &v), 0);
		assert_true(v == 100u + (unsigned)round);
		be_join(&b);
		/* the back-end went away: link down, then accept it again */
		assert_int_equal(gv_vhu_set_owner(c), -ENOTCONN);
		gv_vhu_close(c);
		c = NULL;
		assert_int_equal(gv_vhu_accept(l, 0, T_MS, &c), -EAGAIN);
	}
	gv_vhu_listener_close(l);
	assert_int_equal(stat(path, &sb), -1); /* path removed */

	/* a stale socket file (its listener died) is replaced */
	{
		struct sockaddr_un un = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM, 0);

		snprintf(un.sun_path, sizeof(un.sun_path), "%s", path);
		assert_int_equal(bind(fd, (struct sockaddr *)&un, sizeof(un)), 0);
		close(fd);
	}
	assert_int_equal(gv_vhu_listen(path, &l), 0);
	gv_vhu_listener_close(l);
	/* a regular file is not ours to remove */
	{
		int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(gv_vhu_listen(path, &l), -EADDRINUSE);
		assert_int_equal(stat(path, &sb), 0);
		unlink(path);
	}
	assert_int_equal(gv_vhu_connect(path, T_MS, &c), -ENOENT);
	assert_int_equal(gv_vhu_listen("", &l), -EINVAL);
	assert_int_equal(rmdir(dir), 0);
}

/* ================================================================== EAL */

struct eal_be {
	struct gv_vhu_mem_table mt;
	uint64_t probe; /* VA written by the front-end through rte_malloc */
};

static void script_eal_mem(struct be *b)
{
	const struct eal_be *e = b->arg;
	struct be_msg m;
	uint32_t i, n;
	bool found = false;

	BE_CHECK(b, be_recv(b, &m));
	BE_CHECK(b, m.req == GV_VHU_SET_MEM_TABLE && m.flags == 1);
	n = get32(m.pl);
	BE_CHECK(b, n == e->mt.n && (int)n == m.nfds && m.size == 8 + 32 * n);
	for (i = 0; i < n; i++) {
		const uint8_t *r = m.pl + 8 + 32 * i;
		uint64_t gpa = get64(r), size = get64(r + 8), off = get64(r + 24);
		uint8_t *map;

		BE_CHECK(b, gpa == get64(r + 16));
		if (e->probe < gpa || e->probe + 16 > gpa + size)
			continue;
		/* map the region as a back-end does and look at the probe */
		map = mmap(NULL, size + off, PROT_READ, MAP_SHARED, m.fds[i], 0);
		BE_CHECK(b, map != MAP_FAILED);
		found = memcmp(map + off + (e->probe - gpa), "gvirtio-eal-mem", 16) == 0;
		munmap(map, size + off);
	}
	be_close_fds(&m);
	BE_CHECK(b, found);
	be_wait_eof(b);
}

static void test_eal_mem_table(void **state)
{
	char prefix[64];
	char *argv[] = { "test_vhost_user", "--no-huge", "-m", "64", "--no-pci",
			 "--no-telemetry", "--no-shconf", "--log-level=error",
			 prefix, "-l", "0" };
	struct eal_be e;
	struct be b;
	struct gv_vhu *c;
	const char *why = NULL;
	char rundir[PATH_MAX];
	char *p;
	uint32_t i;
	int rc;

	(void)state;
	snprintf(prefix, sizeof(prefix), "--file-prefix=gvtest_vhu_%d", (int)getpid());
	rc = rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])), argv);
	if (rc < 0)
		fail_msg("rte_eal_init: %s", rte_strerror(rte_errno));
	p = rte_malloc(NULL, 1 << 20, 64);
	assert_non_null(p);
	memcpy(p + 4096, "gvirtio-eal-mem", 16);

	memset(&e, 0, sizeof(e));
	rc = gv_vhu_mem_table_from_eal(&e.mt, false, &why);
	if (rc < 0)
		fail_msg("gv_vhu_mem_table_from_eal: %d (%s)", rc, why);
	assert_true(e.mt.n >= 1 && e.mt.n <= GV_VHU_MAX_REGIONS);
	for (i = 0; i < e.mt.n; i++) {
		const struct gv_vhu_region *r = &e.mt.r[i];

		print_message("region %u: va 0x%llx size 0x%llx fd %d off 0x%llx\n", i,
			      (unsigned long long)r->userspace_addr,
			      (unsigned long long)r->memory_size, e.mt.fd[i],
			      (unsigned long long)r->mmap_offset);
		assert_true(r->guest_phys_addr == r->userspace_addr);
		assert_true(fcntl(e.mt.fd[i], F_GETFD) >= 0);
	}
	/* with the lock already held (as in an rte_mem_event callback) */
	{
		struct gv_vhu_mem_table mt2;

		rte_mcfg_mem_read_lock();
		rc = gv_vhu_mem_table_from_eal(&mt2, true, NULL);
		rte_mcfg_mem_read_unlock();
		assert_int_equal(rc, 0);
		assert_memory_equal(&mt2, &e.mt, sizeof(mt2));
	}
	e.probe = (uintptr_t)(p + 4096);
	c = be_start_pair(&b, script_eal_mem, &e, T_LONG);
	assert_int_equal(gv_vhu_update_mem_table(c, false), 0);
	gv_vhu_close(c);
	be_join(&b);

	rte_free(p);
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	rmdir(rundir); /* --no-shconf leaves it empty */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_happy_client_mode),
		cmocka_unit_test(test_no_reply_ack),
		cmocka_unit_test(test_nack),
		cmocka_unit_test(test_hostile_size),
		cmocka_unit_test(test_hostile_huge_size),
		cmocka_unit_test(test_hostile_unsolicited),
		cmocka_unit_test(test_hostile_request),
		cmocka_unit_test(test_hostile_reply_flag),
		cmocka_unit_test(test_hostile_version),
		cmocka_unit_test(test_hostile_trunc_eof),
		cmocka_unit_test(test_hostile_trunc_stall),
		cmocka_unit_test(test_hostile_timeout),
		cmocka_unit_test(test_hostile_close),
		cmocka_unit_test(test_hostile_fd),
		cmocka_unit_test(test_hostile_ring),
		cmocka_unit_test(test_hostile_empty),
		cmocka_unit_test(test_peer_shut_read),
		cmocka_unit_test(test_not_negotiated),
		cmocka_unit_test(test_offer_checks),
		cmocka_unit_test(test_server_mode),
		cmocka_unit_test(test_eal_mem_table), /* last: EAL stays up */
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
