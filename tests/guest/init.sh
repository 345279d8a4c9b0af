#!/bin/busybox sh
# shellcheck shell=dash
# tests/guest/init.sh - /init of the guest initramfs (tests/guest/run.sh).
# Runs as PID 1 under busybox sh. Reads its case from the kernel command
# line (gv.bind= vfio|noiommu|uio, gv.steps= comma list, gv.devargs=,
# gv.mq= queue pairs of the mq step),
# loads the I/O driver's modules, binds the two virtio-net NICs
# (0000:00:10.0, 0000:00:11.0) to it through sysfs driver_override, runs the
# steps and prints everything on the serial console, which is all the host
# reads. Markers: "GV-STEP <step> PASS|FAIL <why>", "GVAPP-WAIT <what>" (the
# host answers through QEMU's monitor), "GV-RESULT PASS|FAIL". Every wait is
# bounded. Ends the VM (QEMU runs with -no-reboot).
/bin/busybox --install -s /bin
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t tmpfs -o mode=1777 tmpfs /tmp
mount -t tmpfs -o mode=755 tmpfs /run
mkdir -p /dev/hugepages /dev/shm
mount -t hugetlbfs -o pagesize=2M nodev /dev/hugepages
mount -t tmpfs tmpfs /dev/shm
exec </dev/console >/dev/console 2>&1
. /etc/gv-env
export LD_LIBRARY_PATH

say() { echo "gv-guest: [$(cut -d' ' -f1 /proc/uptime)s] $*"; }
end() { # PASS|FAIL
	echo "GV-RESULT $1"
	sync
	echo b >/proc/sysrq-trigger
	sleep 30
}
fatal() {
	say "setup failed: $*"
	echo "GV-STEP setup FAIL $*"
	end FAIL
}
arg() { # name: value of gv.<name>= on the kernel command line
	tr ' ' '\n' </proc/cmdline | sed -n "s/^gv\.$1=//p" | tail -n1
}
BIND=$(arg bind)
STEPS=$(arg steps | tr , ' ')
DEVARGS=$(arg devargs | tr '+' ',')
MQ=$(arg mq)
[ -n "$MQ" ] || MQ=4
NIC0=0000:00:10.0
NIC1=0000:00:11.0
echo 1 >/proc/sys/kernel/sysrq
say "up: kernel $(uname -r), bind $BIND, steps: $STEPS"

# ---------------------------------------------------------- I/O driver
ins() { # module [params]
	m=$1
	shift
	insmod "/mods/$m.ko" "$@" || fatal "insmod $m $* failed"
}
case "$BIND" in
vfio)
	ins irqbypass
	ins vfio
	ins vfio_iommu_type1
	ins vfio_virqfd
	ins vfio-pci-core
	ins vfio-pci
	drv=vfio-pci
	;;
noiommu)
	ins irqbypass
	ins vfio-noiommu enable_unsafe_noiommu_mode=1
	ins vfio_virqfd
	ins vfio-pci-core
	ins vfio-pci
	[ "$(cat /sys/module/vfio/parameters/enable_unsafe_noiommu_mode)" = Y ] ||
		fatal "vfio is not in no-IOMMU mode"
	say "vfio: enable_unsafe_noiommu_mode=$(cat /sys/module/vfio/parameters/enable_unsafe_noiommu_mode)"
	drv=vfio-pci
	;;
uio)
	ins uio
	ins uio_pci_generic
	drv=uio_pci_generic
	;;
*) fatal "gv.bind=$BIND: vfio, noiommu or uio" ;;
esac
for bdf in $NIC0 $NIC1; do
	d=/sys/bus/pci/devices/$bdf
	[ -d "$d" ] || fatal "NIC $bdf not found"
	id="$(cat $d/vendor):$(cat $d/device)"
	case "$id" in 0x1af4:0x1000 | 0x1af4:0x1041) ;; *) fatal "$bdf is $id, not virtio-net" ;; esac
	echo $drv >$d/driver_override
	[ -e $d/driver ] && echo $bdf >$d/driver/unbind
	echo $bdf >/sys/bus/pci/drivers_probe
	cur=$(basename "$(readlink $d/driver)")
	[ "$cur" = $drv ] || fatal "cannot bind $bdf to $drv (driver: ${cur:-none})"
	grp=$(basename "$(readlink $d/iommu_group 2>/dev/null)")
	say "$bdf ($id) bound to $drv, iommu group ${grp:-none}"
done
ls /dev/vfio 2>/dev/null | tr '\n' ' ' | sed 's/^/gv-guest: \/dev\/vfio: /'
echo
echo 256 >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
say "hugepages: $(cat /sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages)"

PLUGIN=/plugin/librte_net_gvirtio.so
# DRIVER: gvirtio (-d PLUGIN, the case's devargs) or dpdk (no -d: DPDK's
# own net_virtio from EAL's plugin folder, no devargs), set per step.
DRIVER=gvirtio
eal() { # iova (pa|va|auto): EAL args for both NICs
	if [ "$DRIVER" = dpdk ]; then
		e="-l 0,1 -n 1 -a $NIC0 -a $NIC1"
	else
		e="-l 0,1 -n 1 --log-level=pmd.net.gvirtio:info -d $PLUGIN -a $NIC0$DEVARGS -a $NIC1$DEVARGS"
	fi
	[ "$1" = auto ] || e="$e --iova-mode=$1"
	echo "$e"
}
# IOVA mode: VA when the NICs translate (vIOMMU + ACCESS_PLATFORM), else PA.
IOVA=$(arg iova)
[ -n "$IOVA" ] || IOVA=pa

# TAG: "@dpdk" in the markers of a step run with DPDK's net_virtio.
TAG=
step_ok() { echo "GV-STEP $1$TAG PASS $2"; }
step_fail() { echo "GV-STEP $1$TAG FAIL $2"; FAILED=1; }
wait_for() { # file pattern seconds pid: 0 when the pattern shows up
	n=0
	while ! grep -q "$2" "$1"; do
		kill -0 "$4" 2>/dev/null || return 1
		[ $n -lt $(($3 * 4)) ] || return 1
		usleep 250000
		n=$((n + 1))
	done
}

# tp_prompt STEP FD OUT EAL...: testpmd -i in the background, its commands
# written to file descriptor FD (3 or 4, a FIFO), its output in OUT; waits
# for the prompt (written unbuffered). Sets tp_pid. On no prompt: the step
# fails with the output shown, and it returns 1.
tp_prompt() {
	step=$1 fd=$2 out=$3
	shift 3
	rm -f "$out.in" "$out"
	mkfifo "$out.in"
	timeout -s KILL 300 dpdk-testpmd "$@" -- -i --total-num-mbufs=8192 <"$out.in" >"$out" 2>&1 &
	tp_pid=$!
	eval "exec $fd>$out.in"
	wait_for "$out" "testpmd> " 240 $tp_pid && return 0
	eval "exec $fd>&-"
	wait $tp_pid
	cat "$out"
	step_fail "$step" "no testpmd prompt within 240 s"
	return 1
}

# fwd_rx OUT: the RX-packets of each port's final forward statistics.
# testpmd writes its prompt and command echoes unbuffered, its output
# block-buffered: a "testpmd> quit" can split a line of the statistics
# in the file; such a line's start is joined to the line after it.
fwd_rx() {
	awk '{ $0 = held $0; held = "" }
		/.testpmd> / { held = substr($0, 1, index($0, "testpmd> ") - 1); next }
		/Forward statistics for port/ { p = 1; next }
		p && /RX-packets:/ { printf "%s ", $2; p = 0 }' "$1"
}

# testpmd, io forwarding both ways after tx_first for 10 s (the measured
# period; testpmd's stdout is a file, so block-buffered: nothing to poll),
# then stop and quit; the host checks the forward statistics and the driver.
# The flowgen step: the same in testpmd's flowgen mode, where each port
# sends all the time and drops what it receives. Behind OVS-DPDK: OVS maps
# the second port's queues a moment after the guest started it, so frames
# sent at once from the first are dropped, and an io loop of tx_first's
# fixed population would stay empty that way.
step_testpmd() { # iova [flowgen]
	out=/tmp/testpmd.out step=testpmd start="start tx_first"
	[ "${2:-}" != flowgen ] || step=flowgen start="start"
	# shellcheck disable=SC2046
	tp_prompt $step 3 $out $(eal "$1") || return
	pid=$tp_pid
	echo "show port info all" >&3
	[ $step != flowgen ] || echo "set fwd flowgen" >&3
	echo "$start" >&3
	sleep 10
	echo "stop" >&3
	echo "quit" >&3
	exec 3>&-
	wait $pid
	rc=$?
	cat $out
	rx=$(fwd_rx $out)
	set -- $rx
	if [ $rc != 0 ]; then
		step_fail $step "testpmd exit status $rc"
	elif [ "${1:-0}" -lt 1000 ] || [ "${2:-0}" -lt 1000 ]; then
		step_fail $step "ports received too little in 10 s: $rx"
	else
		step_ok $step "$([ $step = flowgen ] && echo flowgen || echo io forwarding) 10 s, rx per port: $rx"
	fi
}

step_app() { # name iova args...
	name=$1 iova=$2
	shift 2
	# shellcheck disable=SC2046
	timeout -s KILL "${APP_LIMIT:-300}" gv_guest_app $(eal "$iova") -- "$@" 2>&1 | tee /tmp/app.out
	if grep -q "^GVAPP: PASS" /tmp/app.out; then
		step_ok "$name" "$(grep '^GVAPP: PASS' /tmp/app.out | head -n1 | cut -d' ' -f4-)"
	else
		step_fail "$name" "$(grep '^GVAPP: FAIL' /tmp/app.out | head -n1 | cut -d' ' -f3- || echo 'no result (killed?)')"
	fi
}

# The port must be refused, quickly and clearly: testpmd must end by itself.
step_refuse() { # iova
	t0=$(cut -d. -f1 /proc/uptime)
	# shellcheck disable=SC2046
	timeout -s KILL 180 dpdk-testpmd $(eal "$1") -- --total-num-mbufs=8192 \
		</dev/null >/tmp/refuse.out 2>&1
	rc=$?
	dt=$(($(cut -d. -f1 /proc/uptime) - t0))
	cat /tmp/refuse.out
	if [ $rc = 137 ]; then
		step_fail refuse "testpmd hung (killed after 180 s)"
	elif ! grep -q "lacks ACCESS_PLATFORM" /tmp/refuse.out; then
		step_fail refuse "no ACCESS_PLATFORM error in testpmd's output (exit $rc, ${dt}s)"
	elif grep -q "Configuring Port" /tmp/refuse.out; then
		step_fail refuse "a port was configured anyway"
	else
		step_ok refuse "both ports refused, testpmd ended by itself in ${dt}s (exit $rc)"
	fi
}

# vdpa=1 on the first NIC: gvirtio declines it with a positive return, so
# the bus asks the next driver (a vDPA one; here DPDK's net_virtio, which
# declines it too); the second NIC is still gvirtio's port 0.
step_vdpa() { # iova
	e=$(eal "$1" | sed "s|-a $NIC0$DEVARGS|-a $NIC0,vdpa=1|")
	# shellcheck disable=SC2086
	echo quit | timeout -s KILL 180 dpdk-testpmd $e -- -i --total-num-mbufs=8192 >/tmp/vdpa.out 2>&1
	rc=$?
	# The next driver asked is DPDK's net_virtio (it declines vdpa=1 too);
	# renamed in the log, where the host checks that net_virtio probed nothing.
	sed 's/Probe PCI driver: net_virtio /vdpa: next driver asked: net_virtio /' /tmp/vdpa.out
	if [ $rc = 137 ]; then
		step_fail vdpa "testpmd hung (killed after 180 s)"
	elif ! grep -q "vdpa=1: left to a vDPA driver" /tmp/vdpa.out; then
		step_fail vdpa "no line says vdpa=1 left the device (exit $rc)"
	elif ! grep -q "Probe PCI driver: net_virtio .*$NIC0" /tmp/vdpa.out; then
		step_fail vdpa "the bus did not ask the next driver for $NIC0"
	elif ! grep -q "Configuring Port 0" /tmp/vdpa.out || grep -q "Configuring Port 1" /tmp/vdpa.out; then
		step_fail vdpa "expected one port (the second NIC), testpmd configured: $(grep -c 'Configuring Port' /tmp/vdpa.out)"
	else
		step_ok vdpa "vdpa=1 declined, the bus asked net_virtio next, the other NIC is the only port"
	fi
}

# RX/TX from a secondary process on PCI ports: a primary testpmd sets the
# ports up and idles at its prompt; a secondary testpmd (the primary's
# burst functions, doorbells in the shared BAR mapping) forwards on both
# for 5 s; then the secondary quits and the primary stops cleanly.
step_twoproc() { # iova
	pout=/tmp/tp-pri.out sout=/tmp/tp-sec.out
	# shellcheck disable=SC2046
	tp_prompt twoproc 3 $pout $(eal "$1") || return
	ppid=$tp_pid
	# shellcheck disable=SC2046
	if tp_prompt twoproc 4 $sout $(eal "$1") --proc-type=secondary; then
		spid=$tp_pid
		echo "start tx_first" >&4
		sleep 5
		echo "stop" >&4
		echo "quit" >&4
		exec 4>&-
		wait $spid
		src=$?
	else
		src=none
	fi
	echo "quit" >&3
	exec 3>&-
	wait $ppid
	prc=$?
	sed 's/^/secondary: /' $sout
	cat $pout
	rx=$(fwd_rx $sout)
	set -- $rx
	n=$(grep -c "attached in a secondary process (RX/TX on the primary's paths)" $sout)
	if [ "$n" != 2 ]; then
		step_fail twoproc "the secondary attached $n of 2 ports with RX/TX"
	elif [ $src != 0 ] || [ $prc != 0 ]; then
		step_fail twoproc "exit status: secondary $src, primary $prc"
	elif [ "${1:-0}" -lt 1000 ] || [ "${2:-0}" -lt 1000 ]; then
		step_fail twoproc "the secondary's ports received too little in 5 s: $rx"
	elif grep -qiE "gvirtio: .*(broken|invalid)" $sout $pout; then
		step_fail twoproc "a queue broke"
	else
		step_ok twoproc "a secondary forwarded on both ports for 5 s, rx per port: $rx"
	fi
}

# The in-guest benchmark (bench/pvp.sh, gv.bench=ROUNDS,SECS): io
# forwarding NIC0 <-> NIC1 while the host floods both (testpmd flowgen).
# Each round runs gvirtio and DPDK's net_virtio, the order turning with the
# round (A B B A); a run is a testpmd with --stats-period 1 for SECS + 20 s
# (start-up under emulation included), ended by SIGINT. Per run a line
#   GVBENCH round=R driver=D rx0=.. rx1=.. tx0=.. tx1=..
# the median packets a second of each port over the last SECS full seconds.
step_bench() { # iova
	iova=$1
	set -- $(arg bench | tr , ' ')
	rounds=${1:-4} secs=${2:-10}
	r=1 bad=0
	while [ $r -le "$rounds" ]; do
		order="gvirtio dpdk"
		[ $((r % 2)) = 0 ] && order="dpdk gvirtio"
		for DRIVER in $order; do
			# shellcheck disable=SC2046
			dpdk-testpmd $(eal "$iova") -- --forward-mode=io --nb-cores=1 --total-num-mbufs=8192 \
				--stats-period 1 </dev/null >/tmp/bench.out 2>&1 &
			pid=$!
			sleep $((secs + 20))
			kill -INT $pid
			wait $pid
			line=$(awk -v secs="$secs" '
				/Rx-pps:/ { rx[n % 2, int(n / 2)] = $2; n++ }
				/Tx-pps:/ { tx[m % 2, int(m / 2)] = $2; m++ }
				function med(a, p,   i, k, v, t, j) {
					k = 0
					for (i = int(n / 2) - 1 - secs; i < int(n / 2) - 1; i++)
						if (i >= 0) v[k++] = a[p, i]
					for (i = 1; i < k; i++) for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
						t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
					return k ? (k % 2 ? v[int(k / 2)] : (v[k / 2 - 1] + v[k / 2]) / 2) : 0
				}
				END { printf "rx0=%d rx1=%d tx0=%d tx1=%d", med(rx, 0), med(rx, 1), med(tx, 0), med(tx, 1) }' /tmp/bench.out)
			echo "GVBENCH round=$r driver=$DRIVER $line"
			pfx=
			[ "$DRIVER" = dpdk ] && pfx="dpdk| "
			grep -E "Probe PCI driver|path" /tmp/bench.out | sed "s/^/$pfx/"
			case "$line" in *rx0=0* | *rx1=0* | *tx0=0* | *tx1=0*)
				bad=1
				tail -n 30 /tmp/bench.out ;;
			esac
		done
		r=$((r + 1))
	done
	DRIVER=gvirtio
	if [ $bad = 0 ]; then
		step_ok bench "$rounds rounds of $secs s per driver"
	else
		step_fail bench "a run moved nothing on a port"
	fi
}

# run_step NAME IOVA
run_step() {
	case "$1" in
	testpmd) step_testpmd "$2" ;;
	flowgen) step_testpmd "$2" flowgen ;;
	payload) step_app payload "$2" payload 2000 ;;
	lsc) step_app lsc "$2" lsc ;;
	rxintr) step_app rxintr "$2" rxintr ;;
	mq) step_app mq "$2" mq "$MQ" 2000 ;;
	fwd) APP_LIMIT=660 step_app fwd "$2" fwd 600 ;;
	ctrl) step_app ctrl "$2" ctrl /dev/ttyS1 ;;
	refuse) step_refuse "$2" ;;
	vdpa) step_vdpa "$2" ;;
	twoproc) step_twoproc "$2" ;;
	bench) step_bench "$2" ;;
	*) step_fail "$1" "unknown step" ;;
	esac
}

# A step STEP[:IOVA][@dpdk]: "@dpdk" runs it with DPDK's net_virtio for
# comparison; its output is prefixed "dpdk| " (the host's checks of which
# driver probed what read only gvirtio's lines) except its GV-STEP and
# GVAPP-WAIT markers. The fwd and ctrl steps' output must come as it is
# written (the host answers their GVAPP-WAIT): a pipeline, a subshell, so its
# failure is read back from its marker; other steps run in this shell
# (a redirected function call), where step_fail's FAILED=1 holds.
FAILED=0
STREAMED=" fwd ctrl " # the steps with a GVAPP-WAIT the host answers
for s in $STEPS; do
	DRIVER=gvirtio TAG=
	case "$s" in *@dpdk) DRIVER=dpdk TAG=@dpdk s=${s%@dpdk} ;; esac
	name=${s%%:*}
	iova=$IOVA
	[ "$name" = "$s" ] || iova=${s#*:}
	say "step $name$TAG (iova $iova)"
	if [ "$DRIVER" = dpdk ]; then
		if [ "${STREAMED#* $name }" != "$STREAMED" ]; then
			run_step "$name" "$iova" 2>&1 |
				awk '!/^(GV-STEP|GVAPP-WAIT) / { $0 = "dpdk| " $0 } { print; fflush() }' |
				tee /tmp/step.out
			grep -q '^GV-STEP .* FAIL' /tmp/step.out && FAILED=1
		else
			run_step "$name" "$iova" >/tmp/step.out 2>&1
			sed '/^GV-STEP /!s/^/dpdk| /' /tmp/step.out
		fi
	else
		run_step "$name" "$iova"
	fi
done
[ $FAILED = 0 ] && end PASS
end FAIL
