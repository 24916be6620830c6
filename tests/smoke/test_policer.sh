#!/bin/bash
# Rate limits per port (policer/): testpmd pod a sends at full speed
# (txonly, virtio-user) to pod b through port a, limited on its ingress to
# 10 kpps (set at port create), then live to 100 kpps and 1 Mpps (64-byte
# frames), then 100 Mbit/s (1514- and 64-byte frames); then b's egress to
# 50 kpps. What the policer lets through to b over 5 s (b's frames sent,
# and those pod b was too slow to take) must be within 5% of the limit,
# the excess counted as "policed" on the limited port. An unlimited pair
# c -> d in the same run sees no policed drop and moves far more than a's
# limit. The limits survive a restart of podwired; bad settings are
# refused naming the field, and change nothing. The pods run on one core,
# podwired's worker on the other (lib.sh).
#
# The bursts here are half a second of the rate: this machine is shared,
# and a worker or a pod the kernel holds off for longer than the burst's
# worth of time loses that credit (as any policer does), which would be a
# measure of the machine's load, not of the policer's rate.
. "$(dirname "$0")/lib.sh"

A=02:00:00:00:0a:0a B=02:00:00:00:0b:0b C=02:00:00:00:0c:0c D=02:00:00:00:0d:0d
SECS=${POLICER_SECS:-5}

daemon_start pw
# Cross-connects: what b receives is what a sent (no flood of c's frames
# to MACs nobody has taught the bridge).
ctl pw network add ab --mode xconnect >/dev/null
ctl pw network add cd --mode xconnect >/dev/null
ctl pw network add misc >/dev/null
vh() { echo --network "$3" --type vhost-user --socket "$T/$1.sock" --mac "$2"; }
# shellcheck disable=SC2046
ctl pw port add a $(vh a $A ab) --rate-in pps=10k,burst=5k >/dev/null
# shellcheck disable=SC2046
ctl pw port add b $(vh b $B ab) >/dev/null
# shellcheck disable=SC2046
ctl pw port add c $(vh c $C cd) >/dev/null
# shellcheck disable=SC2046
ctl pw port add d $(vh d $D cd) >/dev/null
expect_eq "port a's ingress limit from port add" 10000 "$(ctlj pw port show a | jq -r .rate_in_pps)"
# shellcheck disable=SC2046
ctl pw port add e $(vh e 02:00:00:00:0e:0e misc) --rate-out bps=1g >/dev/null
expect_eq "a default burst: 100 ms of the rate" "1000000000 12500000" \
	"$(ctlj pw port show e | jq -r '"\(.rate_out_bps) \(.rate_out_burst)"')"
ctl pw port del e >/dev/null

# ---- bad settings: refused, naming the field, nothing changed ------------------
refused() { # FIELD podwirectl-args...
	local field=$1 out rc=0
	shift
	out=$("$PODWIRECTL" --socket "$T/pw.sock" "$@" 2>&1) || rc=$?
	[ $rc = 1 ] || [ $rc = 2 ] || fail "podwirectl $*: exit $rc, expected a refusal: $out"
	grep -q -- "$field" <<<"$out" || fail "podwirectl $*: the error does not name $field: $out"
	ok "refused, naming $field: ${out%%$'\n'*}"
}
refused '"pps" is -5' policer set a --pps -5
refused '"burst"' policer set a --pps 0 --burst 10
refused 'give one of them' policer set a --pps 1000 --bps 1000000
refused 'direction "sideways"' policer set a --pps 1000 --direction sideways
refused '"pps" is 2000000000' policer set a --pps 2g
refused '"bps" is 2000000000000' policer set a --bps 2000g
refused 'less than the port' policer set a --bps 100m --burst 1000
refused 'give "pps"' policer set a --burst 100
refused 'port "nope" does not exist' policer set nope --pps 100
refused 'unknown key "rate"' port add e $(vh e 02:00:00:00:0e:0e misc) --rate-in rate=5
refused '"rate_out_bps" are both given' port add e $(vh e 02:00:00:00:0e:0e misc) --rate-out pps=5,bps=5
expect_eq "port e after refused creates" 1 "$(ctl pw port show e >/dev/null 2>&1; echo $?)"
expect_eq "port a's limit after refusals" "10000 5000" \
	"$(ctlj pw port show a | jq -r '"\(.rate_in_pps) \(.rate_in_burst)"')"

# ---- traffic ----------------------------------------------------------------------
pod_up pw a pa "$(vdev_virtio "$T/a.sock" $A)"
pod_up pw b pb "$(vdev_virtio "$T/b.sock" $B)"
pod_up pw c pc "$(vdev_virtio "$T/c.sock" $C)"
pod_up pw d pd "$(vdev_virtio "$T/d.sock" $D)"
pod_cmd pd stop # one pod less polling the pods' core: c's frames wait in d's ring
gen() { # POD PEER-MAC LEN: txonly at full speed
	pod_cmd "$1" stop
	pod_cmd "$1" "set eth-peer 0 $2"
	pod_cmd "$1" "set txpkts $3"
	FRAME_LEN=$3
	pod_cmd "$1" "set fwd txonly"
	pod_cmd "$1" start
}
now_ns() { date +%s%N; }

# snap: the counters of every port, in $T/snap.json, and the time of the
# read ($SNAP_NS: the middle of the call, as the pods' core is busy and a
# call may take tens of milliseconds).
snap() {
	local t1 t2
	t1=$(now_ns)
	ctlj pw stats >"$T/snap.json"
	t2=$(now_ns)
	SNAP_NS=$(((t1 + t2) / 2))
}
stat_of() { jq -r ".ports[] | select(.name == \"$1\") | $2" "$T/snap.json"; }

# passed UNIT: what the policers let through to b, frames or bits: b's
# frames sent, and those dropped as tx_full (the pods share one core and
# pod b does not always keep up: what it misses is not the policer's).
passed() {
	local full
	full=$(stat_of b '.drops.tx_full // 0')
	if [ "$1" = bps ]; then
		echo $((($(stat_of b .tx_bytes) + full * FRAME_LEN) * 8))
	else
		echo $(($(stat_of b .tx_packets) + full))
	fi
}

# measure NAME LIMIT UNIT: what podwired delivered to b per second over
# SECS, against LIMIT (frames/s, or bits/s of b's bytes); a's offered load.
measure() {
	local name=$1 limit=$2 unit=$3 t0 d0 r0 c0 rate offered
	sleep 1 # the bucket's burst and the last change's frames are gone
	snap
	t0=$SNAP_NS d0=$(passed "$unit") r0=$(stat_of a .rx_packets) c0=$(stat_of c .rx_packets)
	sleep "$SECS"
	snap
	rate=$((($(passed "$unit") - d0) * 1000000000 / (SNAP_NS - t0)))
	offered=$((($(stat_of a .rx_packets) - r0) * 1000000000 / (SNAP_NS - t0)))
	C_RATE=$((($(stat_of c .rx_packets) - c0) * 1000000000 / (SNAP_NS - t0)))
	echo "$name: limit $limit $unit, delivered $rate $unit ($(((rate - limit) * 10000 / limit))e-4 off), offered $offered frames/s"
	echo "$name $limit $rate $offered" >>"$T/accuracy"
	[ $((rate * 100)) -ge $((limit * 95)) ] && [ $((rate * 100)) -le $((limit * 105)) ] ||
		fail "$name: delivered $rate $unit, not within 5% of $limit"
	ok "$name: within 5% of the limit"
}

gen pa $B 64
gen pc $D 64
# c -> d unlimited beside a's 10 kpps: nothing policed, and c sends (and
# podwired takes) far more than a may. (What pod d reads of it depends on
# its share of the pods' one core: not judged.)
measure "10 kpps" 10000 pps
expect_eq "policed drops on c (unlimited)" 0 "$(port_stat pw c .drops.policed)"
expect_eq "policed drops on d (unlimited)" 0 "$(port_stat pw d .drops.policed)"
[ "$C_RATE" -gt 100000 ] || fail "the unlimited pair c -> d took only $C_RATE frames/s from c"
ok "unlimited pair c -> d: $C_RATE frames/s from c beside a's 10 kpps"
[ "$(port_stat pw a .drops.policed)" -gt 0 ] || fail "no policed drop counted on a"
pod_cmd pc stop

ctl pw policer set a --pps 100k --burst 50k --direction ingress >/dev/null
measure "100 kpps" 100000 pps
ctl pw policer set a --pps 1m --burst 500k >/dev/null
measure "1 Mpps" 1000000 pps
expect_eq "egress limit of a set by direction both" 1000000 "$(ctlj pw port show a | jq -r .rate_out_pps)"
ctl pw policer del a --direction egress >/dev/null
ctl pw policer set a --bps 100m --burst 6250k --direction ingress >/dev/null
gen pa $B 1514
measure "100 Mbit/s, 1514 B" 100000000 bps
gen pa $B 64
measure "100 Mbit/s, 64 B" 100000000 bps

# Egress: what b receives, from an unlimited a.
ctl pw policer del a >/dev/null
ctl pw policer set b --pps 50k --burst 25k --direction egress >/dev/null
p0=$(port_stat pw b .drops.policed)
measure "egress 50 kpps" 50000 pps
[ "$(port_stat pw b .drops.policed)" -gt "$p0" ] || fail "no policed drop counted on b's egress"
ctl pw port show b | grep -q 'rate out: *50000 frames/s, burst 25000 frames' ||
	fail "port show b does not show its egress limit: $(ctl pw port show b)"
ok "port show: $(ctl pw port show b | grep 'rate out')"
pod_cmd pa stop

# ---- restart keeps it ------------------------------------------------------------
ctl pw policer set a --bps 100m --burst 30000 --direction ingress >/dev/null
for p in pa pb pc pd; do pod_stop $p; done
daemon_stop pw
daemon_start pw
expect_eq "a's ingress limit after a restart" "100000000 30000" \
	"$(ctlj pw port show a | jq -r '"\(.rate_in_bps) \(.rate_in_burst)"')"
expect_eq "b's egress limit after a restart" "50000 25000" \
	"$(ctlj pw port show b | jq -r '"\(.rate_out_pps) \(.rate_out_burst)"')"
wait_for 10 "the restored limits in force (log)" \
	grep -q 'port "b": egress limited to 50000 frames/s' "$T/pw.log"
[ "$(grep -c 'port "a": ingress limited to 100000000 bits/s, burst 30000 bytes' "$T/pw.log")" -ge 2 ] ||
	fail "a's limit not applied again at the restart"
ctl pw policer del b >/dev/null
expect_eq "b's egress limit after policer del" null "$(ctlj pw port show b | jq -r .rate_out_pps)"
echo "accuracy (name limit delivered offered):"
cat "$T/accuracy"
ok "policer"
