/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gv_fake_vhu.h - helpers shared by the vhost-user front-end tests: byte
 * access, a monotonic clock, and the fake back-end (a thread on one end of
 * a socketpair or of an accepted unix socket that runs a scripted exchange;
 * its failures are recorded and asserted by the main thread after the join).
 */
#ifndef GV_FAKE_VHU_H
#define GV_FAKE_VHU_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_eal_memconfig.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "gv_vhost_user.h"

#define T_MS 200 /* request timeout where a test expects the timeout */
#define T_LONG 5000 /* elsewhere: a slow machine must not time out */
#define F_VERSION_1 (1ull << 32)
#define F_MRG_RXBUF (1ull << 15)
#define F_PROTO (1ull << GV_VHU_F_PROTOCOL_FEATURES)
#define PF(b) (1ull << GV_VHU_PROTOCOL_F_##b)
#define RFLAGS (GV_VHU_VERSION | GV_VHU_FLAG_REPLY)

static inline int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }
static inline void put64(uint8_t *p, uint64_t v) { memcpy(p, &v, 8); }
static inline uint32_t get32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t get64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }


struct be_msg {
	uint32_t req, flags, size;
	uint8_t pl[512];
	int fds[16];
	int nfds;
};

struct be;
typedef void (*be_script)(struct be *b);

struct be {
	int fd; /* back-end end of the connection */
	int lfd; /* listening socket (client-mode test), or -1 */
	be_script script;
	void *arg;
	pthread_t th;
	int failed;
	char why[256];
};

bool be_fail(struct be *b, int line, const char *what);
#define BE_CHECK(b, cond) do { if (!(cond)) { be_fail((b), __LINE__, #cond); return; } } while (0)

/* One request (blocking); false on EOF or garbage. */
bool be_recv(struct be *b, struct be_msg *m);
void be_close_fds(struct be_msg *m);
void be_send_raw(struct be *b, const void *p, size_t len);
void be_reply(struct be *b, uint32_t req, uint32_t flags, const void *pl, uint32_t size);
void be_u64(struct be *b, uint32_t req, uint64_t v);
/* Read until the front-end closes. */
void be_wait_eof(struct be *b);
void *be_main(void *arg);
/* Socketpair: the front-end gets a connection with timeout tmo ms. */
struct gv_vhu *be_start_pair(struct be *b, be_script s, void *arg, int tmo);
void be_join(struct be *b);
void mk_tmpdir(char *dir, size_t len);

#endif
