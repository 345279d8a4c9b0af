/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * test_fault_kill.c - the vhost-user back-end SIGKILLed at random points,
 * as a separate process: this executable started again with --backend
 * (its own EAL, --no-huge, DPDK's net_vhost echoing every frame back).
 *
 * Server mode (gvirtio server=1, the back-end connects): GV_FAULT_KILLS
 * (default 100) kills, each at a point drawn from a seeded PRNG
 * (GV_FAULT_SEED replays; the seed is printed): during negotiation (0 to
 * 3 ms after the back-end starts to connect), during ring set-up and
 * start (3 to 40 ms), or during traffic (0 to 20 ms into bursts both
 * ways). After each: the process runs on, the port's link goes down
 * within a deadline and an LSC event is delivered if it had come up,
 * bursts are harmless, and the next back-end gets traffic flowing again
 * (checked frame by frame) without any call from the application. Every
 * 10th kill, and at the end, the port is stopped: every mbuf is back in
 * its pool; then started again with the next back-end.
 *
 * Client mode (the back-end listens): GV_FAULT_KILLS_CLIENT (default 20)
 * kills while rte_eth_dev_start negotiates with it or during traffic;
 * after each, stop gives every mbuf back and a start reconnects to the
 * next back-end.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "gv_pmd_harness.h"

#define NB_DESC 256

/* ------------------------------------------------------------ back-end -- */

/*
 * The back-end process: net_vhost on `sock` (client=1 connects to a
 * gvirtio server, 0 listens), every frame received sent back. Writes 'c'
 * to `fd` right before it connects / listens, 'r' once started. Runs
 * until killed.
 */
static int backend_main(const char *sock, int client, int fd)
{
	char args[256];
	/* --no-shconf: a killed back-end leaves no runtime files behind. */
	char *argv[] = { "gvkb", "--no-huge", "--no-shconf", "-m", "128", "--no-pci", "--no-telemetry",
			 "--lcores=0@(0,1)", "--log-level=lib.eal:error", "--log-level=lib.vhost.*:error",
			 "--log-level=pmd.net.vhost:error", NULL };
	struct rte_eth_conf conf = { 0 };
	struct rte_mempool *mp;
	uint16_t port;

	if (rte_eal_init((int)RTE_DIM(argv) - 1, argv) < 0)
		return 10;
	mp = rte_pktmbuf_pool_create("kb", 2047, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	snprintf(args, sizeof(args), "net_vhost0,iface=%s,client=%d,queues=1", sock, client);
	if (!mp || rte_dev_probe(args) || rte_eth_dev_get_port_by_name("net_vhost0", &port))
		return 11;
	if (write(fd, "c", 1) != 1)
		return 12;
	if (rte_eth_dev_configure(port, 1, 1, &conf) ||
	    rte_eth_rx_queue_setup(port, 0, NB_DESC, SOCKET_ID_ANY, NULL, mp) ||
	    rte_eth_tx_queue_setup(port, 0, NB_DESC, SOCKET_ID_ANY, NULL) ||
	    rte_eth_dev_start(port))
		return 13;
	if (write(fd, "r", 1) != 1)
		return 14;
	for (;;) {
		struct rte_mbuf *pk[32];
		uint16_t n = rte_eth_rx_burst(port, 0, pk, 32), k = 0;

		if (n)
			k = rte_eth_tx_burst(port, 0, pk, n);
		if (k < n)
			rte_pktmbuf_free_bulk(pk + k, n - k);
		if (!n)
			sched_yield();
	}
}

struct child {
	pid_t pid;
	int rfd; /* its 'c' / 'r' messages */
};

static char self_exe[4096];

static void spawn(struct child *c, const char *sock, int client)
{
	int p[2];
	char cl[4];

	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	snprintf(cl, sizeof(cl), "%d", client);
	c->pid = fork();
	assert_true(c->pid >= 0);
	if (c->pid == 0) {
		/* Only the pipe crosses exec: fd 3. */
		if (dup2(p[1], 3) < 0)
			_exit(20);
		close_range(4, ~0u, 0);
		execl(self_exe, self_exe, "--backend", sock, cl, "3", (char *)NULL);
		_exit(21);
	}
	close(p[1]);
	c->rfd = p[0];
}

/* The next message byte from the child, within the deadline; 0 if none. */
static char child_msg(struct child *c, double timeout_s)
{
	struct pollfd pf = { .fd = c->rfd, .events = POLLIN };
	char b = 0;

	if (poll(&pf, 1, (int)(timeout_s * 1000)) == 1 && read(c->rfd, &b, 1) == 1)
		return b;
	return 0;
}

static void reap(struct child *c)
{
	int st;

	if (c->pid <= 0)
		return;
	kill(c->pid, SIGKILL);
	while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
		;
	close(c->rfd);
	c->pid = 0;
}

/* -------------------------------------------------------------- killer -- */

struct killer {
	pthread_t th;
	pid_t pid;
	uint64_t delay_us;
	volatile int done;
};

static void *killer_run(void *arg)
{
	struct killer *k = arg;
	struct timespec ts = { .tv_sec = (time_t)(k->delay_us / 1000000),
			       .tv_nsec = (long)(k->delay_us % 1000000) * 1000 };

	/* The fault's timing, not a synchronisation: the point of the kill. */
	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, &ts) == EINTR)
		;
	kill(k->pid, SIGKILL);
	__atomic_store_n(&k->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void killer_arm(struct killer *k, pid_t pid, uint64_t delay_us)
{
	k->pid = pid;
	k->delay_us = delay_us;
	k->done = 0;
	assert_int_equal(pthread_create(&k->th, NULL, killer_run, k), 0);
}

/* ------------------------------------------------------------ the port -- */

static uint64_t rng;

static uint64_t next_rand(void)
{
	/* splitmix64 */
	uint64_t z = (rng += 0x9E3779B97F4A7C15ull);

	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}

struct st {
	struct gvh_pair pair;
	struct rte_mempool *rxp, *txp;
	struct child ch;
	uint64_t seq;
	unsigned int kills[3], up_at[3], resumed, stops;
	struct gvh_lsc lsc;
};

static struct st S;

/* Both tests: the pools and the pair's names and socket; no port yet. */
static int st_setup(void **state)
{
	memset(&S, 0, sizeof(S));
	S.rxp = gvh_pool(2047);
	S.txp = gvh_pool(2047);
	gvh_pair_init(&S.pair);
	*state = &S;
	return S.rxp && S.txp ? 0 : -1;
}

static int st_teardown(void **state)
{
	struct st *s = *state;

	reap(&s->ch);
	if (s->pair.gv != GVH_NO_PORT)
		gvh_lsc_unwatch(s->pair.gv, &s->lsc);
	gvh_pair_destroy(&s->pair);
	rte_mempool_free(s->rxp);
	rte_mempool_free(s->txp);
	return 0;
}

/* Probe and set up gvirtio with LSC events. */
static void gv_port(struct st *s, const char *devargs)
{
	struct gvh_port_conf c = { .mp = s->rxp, .nb_desc = NB_DESC, .intr_lsc = true };

	if (gvh_gv_add(&s->pair, devargs, &c) || gvh_lsc_watch(s->pair.gv, &s->lsc))
		fail_msg("%s", gvh_error());
}

static int lsc_count(const struct st *s)
{
	return gvh_count(&s->lsc.up) + gvh_count(&s->lsc.down);
}

/* Frames out and (echoed) back, checked one by one. */
static void echo(struct st *s, uint32_t n, double timeout_s, const char *what)
{
	struct gvh_flow f = { .tx_port = s->pair.gv, .rx_port = s->pair.gv, .tx_mp = s->txp,
			      .len = 60 + (uint32_t)(next_rand() % 1455), .count = n,
			      .seq0 = s->seq, .timeout_s = timeout_s };

	if (gvh_transfer(&f))
		fail_msg("%s: %s", what, gvh_error());
	s->seq += n;
}

/* Bursts both ways while the back-end lives (or is gone): nothing kept. */
static bool burst_round(struct st *s)
{
	struct rte_mbuf *m[16], *x[32];
	uint16_t k, n = 0;
	struct rte_eth_link link;

	for (int j = 0; j < 16; j++) {
		m[n] = gvh_pkt_alloc(s->txp, 1u << 30, 128);
		if (m[n])
			n++;
	}
	k = rte_eth_tx_burst(s->pair.gv, 0, m, n);
	if (k < n)
		rte_pktmbuf_free_bulk(m + k, n - k);
	k = rte_eth_rx_burst(s->pair.gv, 0, x, 32);
	if (k)
		rte_pktmbuf_free_bulk(x, k);
	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(s->pair.gv, &link);
	return link.link_status == RTE_ETH_LINK_UP;
}

static void stop_check(struct st *s, const char *when)
{
	assert_int_equal(rte_eth_dev_stop(s->pair.gv), 0);
	if (!gvh_pool_full(s->rxp) || !gvh_pool_full(s->txp))
		fail_msg("%s: RX pool %u of %u, TX pool %u of %u mbufs back after stop", when,
			 gvh_pool_avail(s->rxp), s->rxp->size, gvh_pool_avail(s->txp),
			 s->txp->size);
	s->stops++;
}

/* Start with a back-end that is connecting: retried until it is there (bounded). */
static void start_retry(struct st *s)
{
	double end = gvh_now() + 20.0;
	int ret;

	while ((ret = rte_eth_dev_start(s->pair.gv)) != 0) {
		if (gvh_now() > end)
			fail_msg("start: %s", strerror(-ret));
		if (!gvh_pool_full(s->rxp))
			fail_msg("a failed start kept %u mbufs", s->rxp->size - gvh_pool_avail(s->rxp));
		/* A poll interval (fewer failed starts logged), not a synchronisation. */
		nanosleep(&(struct timespec){ .tv_nsec = 2000000 }, NULL);
	}
}

/*
 * A new back-end on the pair's socket, waited for: connecting to gvirtio
 * (server mode: 'c'), or listening and started (client mode: 'c', 'r';
 * a killed one's socket file removed first).
 */
static bool backend_up(struct st *s, bool server)
{
	if (!server)
		unlink(s->pair.sock);
	spawn(&s->ch, s->pair.sock, server);
	return child_msg(&s->ch, 20.0) == 'c' && (server || child_msg(&s->ch, 20.0) == 'r');
}

static unsigned int env_count(const char *name, unsigned int def)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned int)strtoul(v, NULL, 0) : def;
}

/*
 * One kill at a random point of a phase drawn from the PRNG. Server mode:
 * the child is connecting (its 'c' was read). Client mode: it listens,
 * the port is stopped; the start (negotiation) runs while the killer waits.
 */
static void kill_once(struct st *s, unsigned int i, bool server)
{
	static const char *const names[] = { "negotiation", "ring set-up/start", "traffic" };
	unsigned int phase = (unsigned int)(next_rand() % 3);
	int down0;
	bool up = false, started = true;
	struct killer k;
	uint64_t delay;

	if (phase == 2) {
		if (server) {
			/* Traffic flows again with the new back-end, the app doing nothing. */
			if (gvh_wait_link(s->pair.gv, true, 20.0))
				fail_msg("kill %u: %s", i, gvh_error());
			s->resumed++;
		} else {
			start_retry(s); /* a start reconnects */
		}
		echo(s, 64, 20.0, "traffic with a new back-end");
		delay = next_rand() % 20000;
	} else if (server) {
		delay = phase == 0 ? next_rand() % 1500 : 1500 + next_rand() % 13500;
	} else {
		/* The back-end serves its socket up to 1 s after it listens. */
		delay = phase == 0 ? next_rand() % 1000000 : 1000000 + next_rand() % 500000;
	}
	down0 = gvh_count(&s->lsc.down);
	killer_arm(&k, s->ch.pid, delay);
	if (!server && phase != 2)
		started = rte_eth_dev_start(s->pair.gv) == 0;
	while (!__atomic_load_n(&k.done, __ATOMIC_ACQUIRE)) {
		if (started)
			up |= burst_round(s);
		else
			sched_yield();
	}
	pthread_join(k.th, NULL);
	reap(&s->ch);
	s->kills[phase]++;
	s->up_at[phase] += up;

	/* The process runs on; the port goes link-down within the deadline. */
	if (gvh_wait_link(s->pair.gv, false, 10.0))
		fail_msg("kill %u (%s, %" PRIu64 " us): %s", i, names[phase], delay, gvh_error());
	/* It had come up: an LSC event says it went down (bounded wait). */
	if (up && gvh_wait_count(&s->lsc.down, down0 + 1, 10.0, "link-down events"))
		fail_msg("kill %u (%s): %s", i, names[phase], gvh_error());
	for (int j = 0; started && j < 8; j++)
		burst_round(s);
}

static void test_kill_server(void **state)
{
	struct st *s = *state;
	unsigned int n = env_count("GV_FAULT_KILLS", 100);
	double t0 = gvh_now();

	/* The first back-end lets the probe (which waits for one) complete. */
	spawn(&s->ch, s->pair.sock, 1);
	gv_port(s, "server=1");
	assert_int_equal(child_msg(&s->ch, 20.0), 'c');
	start_retry(s);
	for (unsigned int i = 0; i < n; i++) {
		if (!s->ch.pid && !backend_up(s, true))
			fail_msg("kill %u: the back-end did not start", i);
		kill_once(s, i, true);
		if (i % 10 == 9) {
			stop_check(s, "after a kill");
			assert_true(backend_up(s, true));
			start_retry(s);
		}
	}
	/* The last back-end carries traffic, then everything comes back. */
	if (!s->ch.pid)
		assert_true(backend_up(s, true));
	if (gvh_wait_link(s->pair.gv, true, 20.0))
		fail_msg("after the last kill: %s", gvh_error());
	echo(s, 256, 20.0, "after the last kill");
	stop_check(s, "at the end");
	print_message("  server: %u kills: negotiation %u (link up at %u), set-up %u (up at %u), "
		      "traffic %u; traffic resumed by itself %u times, %u stops, %d LSC events, "
		      "%.1f s\n", n, s->kills[0], s->up_at[0], s->kills[1], s->up_at[1],
		      s->kills[2], s->resumed, s->stops, lsc_count(s), gvh_now() - t0);
}

static void test_kill_client(void **state)
{
	struct st *s = *state;
	unsigned int n = env_count("GV_FAULT_KILLS_CLIENT", 20);
	double t0 = gvh_now();

	assert_true(backend_up(s, false));
	gv_port(s, "server=0");
	for (unsigned int i = 0; i < n; i++) {
		if (!s->ch.pid && !backend_up(s, false))
			fail_msg("kill %u: the back-end did not start", i);
		kill_once(s, i, false);
		stop_check(s, "after a kill");
	}
	/* A last back-end: a start reconnects and traffic flows. */
	assert_true(backend_up(s, false));
	start_retry(s);
	echo(s, 256, 20.0, "after the last kill");
	stop_check(s, "at the end");
	print_message("  client: %u kills: in start's negotiation %u (start had succeeded at %u), "
		      "later %u (at %u), traffic %u; %u stops, %.1f s\n", n, s->kills[0],
		      s->up_at[0], s->kills[1], s->up_at[1], s->kills[2], s->stops,
		      gvh_now() - t0);
}

int main(int argc, char **argv)
{
	static const char *const levels[] = { "pmd.net.gvirtio:warning", "lib.vhost.*:error",
					      "pmd.net.vhost:error", NULL };
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_kill_server, st_setup, st_teardown),
		cmocka_unit_test_setup_teardown(test_kill_client, st_setup, st_teardown),
	};
	ssize_t len;
	int ret;

	if (argc == 5 && !strcmp(argv[1], "--backend"))
		return backend_main(argv[2], atoi(argv[3]), atoi(argv[4]));
	len = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (len <= 0)
		return 1;
	self_exe[len] = 0;
	rng = env_count("GV_FAULT_SEED", (unsigned int)time(NULL));
	printf("test_fault_kill: seed %" PRIu64 " (GV_FAULT_SEED=%" PRIu64 " replays)\n", rng, rng);
	signal(SIGPIPE, SIG_IGN);
	if (gvh_eal_init("gvkill", levels) || !gvh_sock_dir()) {
		fprintf(stderr, "%s\n", gvh_error());
		return 1;
	}
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	gvh_cleanup();
	return ret;
}
