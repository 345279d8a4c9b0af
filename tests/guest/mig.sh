# shellcheck shell=bash
# tests/guest/mig.sh - sourced by tests/guest/run.sh: the host side of the
# live-migration cases (mig, mig-packed). The guest's NICs are on
# vhost-user, served by tests/guest/gv_mig_peer (four net_vhost ports:
# sockets vh0/vh1 for one QEMU, vh2/vh3 for the other), which sends two
# numbered streams through the guest's forwarder (gv_guest_app fwd). When
# the guest says "GVAPP-WAIT migrate", mig_rounds measures a window
# without a migration, then migrates the guest MIG_ROUNDS times between
# two QEMUs (-incoming unix:...), back and forth, one window each; then
# the peer sends STOP and the guest's forwarder ends and checks its
# counters and its mbufs. Each window's figures go to $logs/<case>.migration.md
# and to the output ("guest:   mig ...").
#
# Uses run.sh's run, logs, name, why, win, inst (the QEMU that runs the
# guest), qpids, qemu_start and monitor; moves inst to the destination.
MIG_RATE=20000 # frames/s per stream (each way)
MIG_ROUNDS=2   # per step: there and back
MIG_BASE_S=5   # the window without a migration

peer_pid=
# peer_up: gv_mig_peer on $run/vh0..3.sock, commands on fd 7 (a FIFO).
peer_up() {
	local i vdevs=()
	for i in 0 1 2 3; do
		rm -f "$run/vh$i.sock"
		vdevs+=(--vdev "net_vhost$i,iface=$run/vh$i.sock,queues=1")
	done
	rm -f "$run/peer.in"
	mkfifo "$run/peer.in"
	"$work/gv_mig_peer" -l 0 --no-huge -m 1024 --no-pci --no-telemetry \
		--file-prefix="gvmig$$" "${vdevs[@]}" -- "$MIG_RATE" \
		<"$run/peer.in" >"$run/peer.log" 2>&1 &
	peer_pid=$!
	exec 7>"$run/peer.in"
	peer_wait "^GVPEER ready" 0 30
}
peer_cmd() { echo "$1" >&7; }
# peer_wait PATTERN N SECONDS: until the peer's log has more than N
# lines matching PATTERN (0: the peer ended or the time ran out).
peer_wait() {
	local end=$((SECONDS + $3))
	while [ "$(grep -c -- "$1" "$run/peer.log")" -le "$2" ]; do
		kill -0 "$peer_pid" 2>/dev/null || return 1
		[ $SECONDS -lt $end ] || return 1
		sleep 0.2
	done
}
peer_down() {
	[ -n "$peer_pid" ] || return 0
	peer_cmd quit 2>/dev/null
	exec 7>&-
	local i
	for i in $(seq 1 50); do kill -0 "$peer_pid" 2>/dev/null || break; sleep 0.1; done
	kill -9 "$peer_pid" 2>/dev/null
	wait "$peer_pid" 2>/dev/null
	peer_pid=
	rm -rf "/var/run/dpdk/gvmig$$"
}

# mig_window_end K: closes the peer's window K; its line in $wl.
mig_window_end() {
	local n
	n=$(grep -c "^GVPEER window $1 " "$run/peer.log")
	peer_cmd "end $1"
	peer_wait "^GVPEER window $1 " "$n" 40 || return 1
	wl=$(grep "^GVPEER window $1 " "$run/peer.log" | tail -n1)
}
wf() { echo "$wl" | sed -n "s/.* $1=\([^ ]*\).*/\1/p"; } # KEY: its value in $wl

# mig_check WHAT PAIR: the window in $wl: both streams came back on PAIR's
# ports (stream 0 on NIC1's, stream 1 on NIC0's), no frame with wrong bytes.
mig_check() {
	[ "$(wf s0_resumed)" = $((2 * $2 + 1)) ] && [ "$(wf s1_resumed)" = $((2 * $2)) ] ||
		why+=("$1: traffic did not come back on vh$((2 * $2))/vh$((2 * $2 + 1)): $wl")
	[ "$(wf bad)" = 0 ] || why+=("$1: frames came back with other bytes than sent: $wl")
}

mig_row() { # driver what qemu_total qemu_down
	local r
	r="| $(echo "$wl" | cut -d' ' -f3) | $1 | $2 | $3 | $4 | $(wf s0_gap_ms) / $(wf s1_gap_ms) | $(wf s0_lost) / $(wf s1_lost) of $(wf s0_sent) / $(wf s1_sent) | $(wf rarp0) / $(wf rarp1) |"
	echo "$r" >>"$logs/$name.migration.md"
	echo "guest:   mig $r"
}

# mig_rounds DRIVER: the guest forwards; a window without a migration,
# then MIG_ROUNDS migrations, each to a new QEMU on the other socket pair
# (instance I runs on pair I % 2).
mig_rounds() {
	local drv=$1 r src dst st info total down
	peer_cmd go
	win=$((win + 1))
	peer_cmd "mark $win"
	sleep "$MIG_BASE_S" # the measured period
	mig_window_end "$win" || { why+=("$drv: the peer did not close its window without a migration"); return 1; }
	mig_check "$drv, before migrating" $((inst % 2))
	mig_row "$drv" "no migration, ${MIG_BASE_S} s" - -
	for r in $(seq 1 "$MIG_ROUNDS"); do
		src=$inst dst=$((inst + 1))
		qemu_start "$dst" incoming || { why+=("$drv: cannot start QEMU $dst"); return 1; }
		st=
		for _ in $(seq 1 120); do
			st=$(monitor "$run/mon$dst.sock" "info status" 2>/dev/null)
			[[ "$st" == *inmigrate* ]] && break
			kill -0 "${qpids[$dst]}" 2>/dev/null || break
			sleep 0.5
		done
		[[ "$st" == *inmigrate* ]] || { why+=("$drv: QEMU $dst is not waiting for the migration: $st"); return 1; }
		win=$((win + 1))
		peer_cmd "mark $win"
		monitor "$run/mon$src.sock" "migrate -d unix:$run/mig$dst.sock" >>"$run/monitor.log" 2>&1
		info=
		for _ in $(seq 1 600); do
			info=$(monitor "$run/mon$src.sock" "info migrate" 2>/dev/null)
			[[ "$info" == *"Migration status: completed"* || "$info" == *"Migration status: failed"* ]] && break
			# a QEMU that ended (its guest crashed, it failed) ends the wait
			if ! kill -0 "${qpids[$src]}" 2>/dev/null || ! kill -0 "${qpids[$dst]}" 2>/dev/null; then break; fi
			sleep 0.5
		done
		echo "$info" >>"$run/monitor.log"
		if [[ "$info" != *"Migration status: completed"* ]]; then
			why+=("$drv: migration $r ($src -> $dst) did not complete: $(echo "$info" | grep -i status)$(
				kill -0 "${qpids[$src]}" 2>/dev/null || echo " (QEMU $src has ended)")$(
				kill -0 "${qpids[$dst]}" 2>/dev/null || echo " (QEMU $dst has ended)")")
			return 1
		fi
		total=$(echo "$info" | sed -n 's/^total time: \([0-9]*\) ms.*/\1/p')
		down=$(echo "$info" | sed -n 's/^downtime: \([0-9]*\) ms.*/\1/p')
		mig_window_end "$win" || { why+=("$drv: the peer did not close window $win (migration $r)"); return 1; }
		# the source is paused after the migration: end it
		monitor "$run/mon$src.sock" quit >/dev/null 2>&1
		for _ in $(seq 1 100); do kill -0 "${qpids[$src]}" 2>/dev/null || break; sleep 0.1; done
		qemu_kill "${qpids[$src]}"
		wait "${qpids[$src]}" 2>/dev/null
		inst=$dst
		mig_row "$drv" "$src -> $dst (vh$((src % 2 * 2))/vh$((src % 2 * 2 + 1)) -> vh$((dst % 2 * 2))/vh$((dst % 2 * 2 + 1)))" "${total:-?}" "${down:-?}"
		mig_check "$drv, migration $r" $((dst % 2))
		# the guest announced both MACs from the destination
		[ "$(wf rarp0)" -ge 1 ] && [ "$(wf rarp1)" -ge 1 ] ||
			why+=("$drv: no RARP from both guest MACs after migration $r: $wl")
	done
	local n
	n=$(grep -c "^GVPEER stopped" "$run/peer.log")
	peer_cmd stop
	peer_wait "^GVPEER stopped" "$n" 30 || why+=("$drv: the peer did not stop")
}

# mig_checks: after the case, per forwarding step: the guest's announce
# frames (its TX counters beyond what it forwarded) are the RARPs the
# peer saw from each MAC; gvirtio logged each announce as acked.
mig_checks() {
	local -a g p
	local i a
	mapfile -t g < <(grep -E '^(dpdk\| )?GVAPP: PASS fwd' "$log" | sed -n 's/.*announce frames \([0-9]*\) \([0-9]*\),.*/\1 \2/p')
	mapfile -t p < <(sed -n 's/^GVPEER stopped rarp \([0-9]*\) \([0-9]*\)/\1 \2/p' "$run/peer.log")
	for i in "${!g[@]}"; do
		[ "${g[$i]}" = "${p[$i]:-none}" ] ||
			why+=("step $((i + 1)): the guest sent ${g[$i]} announce frames (port 0, 1), the peer saw RARPs ${p[$i]:-none}")
	done
	for a in 52:54:00:00:00:10 52:54:00:00:00:11; do
		i=$(grep -v '^dpdk| ' "$log" | grep -c "announced $a after migration")
		[ "$i" -ge "$MIG_ROUNDS" ] ||
			why+=("gvirtio logged $i announces of $a (acked), not one per migration ($MIG_ROUNDS)")
	done
	grep -q "the device wrote invalid ring data" "$log" && why+=("a gvirtio queue broke")
	cp "$run/peer.log" "$logs/$name.peer.log"
}
