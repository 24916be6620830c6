# shellcheck shell=bash disable=SC2034
# Sourced by perf/suite.sh: Open vSwitch with DPDK as a forwarder.
#
# A private ovsdb-server and ovs-vswitchd-dpdk (Debian's
# openvswitch-switch-dpdk) with their database, sockets and logs in
# $T/ovs; one netdev bridge with the default NORMAL flow; one
# dpdkvhostuserclient port per pod, so the pods (podwire-bench's
# virtio-user ports) are the vhost-user servers. The PMD thread on
# DUT_CPU, the main and handler threads on GEN_CPU.

OVS_VSWITCHD=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk
OVS_DB_PID=""

ovs_installed() {
	[ -x "$OVS_VSWITCHD" ] && command -v ovsdb-server >/dev/null && command -v ovs-vsctl >/dev/null
}

ovs_vsctl() { ovs-vsctl --db="unix:$T/ovs/db.sock" --timeout 20 "$@"; }

# ovs_start NPODS: sets DUT_PID (ovs-vswitchd) and OVS_DB_PID.
ovs_start() {
	local n=$1 d=$T/ovs i
	rm -rf "$d"
	mkdir -p "$d"
	export OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d
	ovsdb-tool create "$d/conf.db" /usr/share/openvswitch/vswitch.ovsschema
	ovsdb-server "$d/conf.db" --remote="punix:$d/db.sock" --pidfile="$d/ovsdb.pid" \
		--unixctl="$d/ovsdb.ctl" --log-file="$d/ovsdb.log" >"$d/ovsdb.out" 2>&1 &
	OVS_DB_PID=$!
	wait_for 10 test -S "$d/db.sock" || return 1
	ovs_vsctl --no-wait init
	ovs_vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
		other_config:pmd-cpu-mask="$(printf '0x%x' $((1 << DUT_CPU)))" \
		other_config:dpdk-socket-mem=256 \
		other_config:dpdk-extra="--file-prefix=$PFX-ovs --in-memory --no-pci -l $GEN_CPU"
	taskset -c "$GEN_CPU" "$OVS_VSWITCHD" "unix:$d/db.sock" --pidfile="$d/vswitchd.pid" \
		--unixctl="$d/vswitchd.ctl" --log-file="$d/vswitchd.log" >"$T/dut.log" 2>&1 &
	DUT_PID=$!
	ovs_vsctl add-br br0 -- set bridge br0 datapath_type=netdev || return 1
	for i in $(seq 0 $((n - 1))); do
		ovs_vsctl add-port br0 "p$i" -- set Interface "p$i" type=dpdkvhostuserclient \
			options:vhost-server-path="$T/p$i.sock" || return 1
	done
}

# ovs_stop_db: after ovs-vswitchd has stopped.
ovs_stop_db() {
	[ -n "$OVS_DB_PID" ] || return 0
	kill -TERM "$OVS_DB_PID" 2>/dev/null || true
	wait "$OVS_DB_PID" 2>/dev/null || true
	OVS_DB_PID=""
	[ ! -f "$T/ovs/vswitchd.log" ] || cp "$T/ovs/vswitchd.log" "$T/dut.log"
}
