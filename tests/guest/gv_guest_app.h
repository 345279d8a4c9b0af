/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tests/guest/gv_guest_app.h - what gv_guest_app.c (the guest tests' DPDK
 * application and most of its modes) shares with the files of its other
 * modes (gv_guest_ctrl.c).
 */
#ifndef GV_GUEST_APP_H
#define GV_GUEST_APP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <rte_mempool.h>

/* A mode's failure: "GVAPP: FAIL <mode>: <why>", and return 1. */
#define FAIL(mode, ...)                                                                            \
	do {                                                                                       \
		printf("GVAPP: FAIL %s: ", mode);                                                  \
		printf(__VA_ARGS__);                                                               \
		printf("\n");                                                                      \
		fflush(stdout);                                                                    \
		return 1;                                                                          \
	} while (0)

extern struct rte_mempool *pool;
extern uint64_t rx_offloads; /* each port's rxmode.offloads */

uint64_t now_ms(void);
/* Both ports set up (LSC interrupt or not) and their links up; 0 or 1 (FAIL printed). */
int ports_up(const char *mode, bool lsc);

int do_ctrl(const char *ack_dev);

#endif
