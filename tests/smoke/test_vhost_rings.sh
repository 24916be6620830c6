#!/bin/bash
# vhost-user ports on both data paths ("rings": podwire, podwired's own
# rings; librte, librte_vhost's), with dpdk-testpmd virtio-user pods in
# four virtio configurations: split ring with mergeable buffers, split
# with in-order and no mergeable buffers, packed with in-order and no
# mergeable buffers, packed with mergeable buffers.
#
# Byte-exact: per ring kind and configuration, two pods on a network of
# their own (ports at MTU 9000) replay a pcap file of frames from 60 to
# 9014 bytes (tests/smoke/vhost_frames.py: edges of 2 KB buffers and
# random sizes, random content) into their virtio port (testpmd io
# forwarding from a net_pcap port) and write what they receive into
# another. The sender's frames larger than its 2 KB mbufs are chains (in
# descriptors, or in an indirect table when not in-order); the receiver
# with mergeable buffers takes them in several buffers, without, in one
# of 9300 bytes. Each side's file must hold what the other sent, byte for
# byte and in order; podwired's counters must match (frames, bytes, no
# drop, no bad descriptor), and `port show` must say the ring kind asked
# for is the one in use (vhost_user.rings_active).
#
# Reconnect and restart under traffic, for both: two pods sending to each
# other (flowgen), one on a server port, one on a client port (the pod
# listens, server=1). The first pod killed (SIGKILL) and started again;
# then podwired killed and started again: the client port's pod keeps its
# rings across it and must get and send frames again (its ring indexes
# taken from where the pod left them), the other pod is started again.
#
# VHOST_RINGS="podwire" (or "librte") runs one kind only; VHOST_CONFS
# some of the configurations (names below).
. "$(dirname "$0")/lib.sh"
log "start"

RINGS=(${VHOST_RINGS:-podwire librte})
FRAMES=$ROOT/tests/smoke/vhost_frames.py
# virtio-user devargs of each configuration, and whether it has
# mergeable receive buffers.
CONFS=(${VHOST_CONFS:-split-mrg split-inorder packed-inorder packed-mrg})
declare -A DEVARGS=([split-mrg]=mrg_rxbuf=1,in_order=0 [split-inorder]=mrg_rxbuf=0,in_order=1
	[packed-inorder]=packed_vq=1,mrg_rxbuf=0,in_order=1 [packed-mrg]=packed_vq=1,mrg_rxbuf=1,in_order=0)
declare -A MRG=([split-mrg]=1 [split-inorder]=0 [packed-inorder]=0 [packed-mrg]=1)
# A ring of 1024 holds every frame a pod is sent (up to five buffers each)
# even while that pod waits for the CPU.
QSIZE=1024

declare -A MAC=() N=() BYTES=()
mac_n=0
new_mac() { # NAME
	mac_n=$((mac_n + 1))
	MAC[$1]=$(printf '02:00:00:26:%02x:01' $mac_n)
}

rings_active() { ctlj pw port show "$1" | jq -r '.vhost_user.rings_active // "none"'; }
# Chains of the guest's transmit ring handed back unused.
bad_desc() { port_stat pw "$1" '.drops.bad_desc // 0'; }
drops() { ctlj pw stats "$1" | jq '.ports[0].drops | add // 0'; }
# The ring kind a port was made with: its name starts with it.
rings_of() { case $1 in p-*) echo podwire ;; *) echo librte ;; esac; }
check_rings() { # PORT RINGS
	expect_eq "port $1: vhost_user.rings_active" "$2" "$(rings_active "$1")"
}

daemon_start pw

# ---- byte-exact, every configuration, both ring kinds at once ----------------
PODS=()
for r in "${RINGS[@]}"; do
	for c in "${CONFS[@]}"; do
		net=${r:0:1}-$c
		ctl pw network add "$net" >/dev/null
		for s in a b; do
			new_mac "$net-$s"
			ctl pw port add "$net-$s" --network "$net" --type vhost-user --rings "$r" \
				--socket "$T/$net-$s.sock" --mac "${MAC[$net-$s]}" --mtu 9000 >/dev/null
		done
		# a sends every size; b sends a as much as a's buffers take
		# (without mergeable buffers, one 2 KB mbuf).
		read -r N[$net-a] BYTES[$net-a] < <(python3 "$FRAMES" gen "$T/$net-a.in.pcap" \
			"${MAC[$net-b]}" "${MAC[$net-a]}" $RANDOM 9014)
		max=9014
		[ "${MRG[$c]}" = 1 ] || max=2048
		read -r N[$net-b] BYTES[$net-b] < <(python3 "$FRAMES" gen "$T/$net-b.in.pcap" \
			"${MAC[$net-a]}" "${MAC[$net-b]}" $RANDOM $max)
		for s in a b; do
			opts=(--forward-mode=io --no-flush-rx)
			if [ "${MRG[$c]}" = 1 ]; then
				opts+=(--max-pkt-len=9018)
			elif [ $s = b ]; then
				# One buffer per frame, as big as the biggest.
				opts+=(--max-pkt-len=9018 --mbuf-size=9300 --total-num-mbufs=2560)
			fi
			POD_EAL="--vdev net_pcap0,rx_pcap=$T/$net-$s.in.pcap,tx_pcap=$T/$net-$s.out.pcap" \
				pod_spawn "$net-$s" "$(vdev_virtio "$T/$net-$s.sock" "${MAC[$net-$s]}" \
				"queue_size=$QSIZE,${DEVARGS[$c]}")" "${opts[@]}"
			PODS+=("$net-$s")
		done
	done
done
for p in "${PODS[@]}"; do pod_ready "$p" 60; done
# Scatter (frames in several mbufs) on the virtio port only: net_pcap has
# none, and testpmd's --enable-scatter asks it of every port.
for p in "${PODS[@]}"; do
	c=${p#?-}
	c=${c%-?}
	[ "${MRG[$c]}" = 1 ] || continue
	pod_cmd "$p" "port stop 0"
	pod_cmd "$p" "port config 0 rx_offload scatter on"
	pod_cmd "$p" "port start all"
done
log "${#PODS[@]} pods started"
for p in "${PODS[@]}"; do wait_link pw "$p" up 30; done
for p in "${PODS[@]}"; do check_rings "$p" "$(rings_of "$p")"; done
for p in "${PODS[@]}"; do pod_cmd "$p" start; done

peer() { case $1 in *-a) echo "${1%-a}-b" ;; *) echo "${1%-b}-a" ;; esac; }
for p in "${PODS[@]}"; do
	q=$(peer "$p")
	wait_for 30 "podwired to deliver $q's ${N[$q]} frames to $p" \
		port_stat_ge pw "$p" .tx_packets "${N[$q]}"
done
for p in "${PODS[@]}"; do pod_cmd "$p" stop; done
for p in "${PODS[@]}"; do
	q=$(peer "$p")
	stats=$(ctlj pw stats "$p" | jq -r '.ports[0] | "\(.rx_packets) \(.rx_bytes) \(.tx_packets) \(.tx_bytes)"')
	expect_eq "port $p: rx, rx bytes, tx, tx bytes" \
		"${N[$p]} ${BYTES[$p]} ${N[$q]} ${BYTES[$q]}" "$stats"
	expect_eq "port $p: drops" 0 "$(drops "$p")"
	expect_eq "port $p: bad_desc" 0 "$(bad_desc "$p")"
done
for p in "${PODS[@]}"; do pod_stop "$p"; done
for p in "${PODS[@]}"; do
	q=$(peer "$p")
	out=$(python3 "$FRAMES" cmp "$T/$q.in.pcap" "$T/$p.out.pcap") ||
		fail "pod $p did not receive what $q sent: $out"
	ok "$q -> $p: $out"
done
for p in "${PODS[@]}"; do ctl pw port del "$p" >/dev/null; done

# ---- reconnect and restart under traffic ----------------------------------
# x: podwired serves, the pod connects; y: podwired connects to the pod.
TPODS=()
for r in "${RINGS[@]}"; do
	net=${r:0:1}-re
	ctl pw network add "$net" >/dev/null
	new_mac "$net-x"
	new_mac "$net-y"
	ctl pw port add "$net-x" --network "$net" --type vhost-user --rings "$r" \
		--socket "$T/$net-x.sock" --mac "${MAC[$net-x]}" >/dev/null
	ctl pw port add "$net-y" --network "$net" --type vhost-user --rings "$r" --client \
		--socket "$T/$net-y.sock" --mac "${MAC[$net-y]}" >/dev/null
	TPODS+=("$net-x" "$net-y")
done
vdev_of() { # POD
	case $1 in
	*-x) vdev_virtio "$T/$1.sock" "${MAC[$1]}" ;;
	*-y) vdev_virtio "$T/$1.sock" "${MAC[$1]}" server=1 ;;
	esac
}
tpeer() { case $1 in *-x) echo "${1%-x}-y" ;; *) echo "${1%-y}-x" ;; esac; }
# tpod_start POD: its first frames (tpod_go) go to its peer; then it
# sends back every frame it receives (macswap): the two pods' frames go
# back and forth as fast as they can.
tpod_start() {
	pod_spawn "$1" "$(vdev_of "$1")" --forward-mode=macswap --eth-peer=0,"${MAC[$(tpeer "$1")]}"
}
tpod_go() { pod_cmd "$1" "start tx_first 4"; }
for p in "${TPODS[@]}"; do tpod_start "$p"; done
for p in "${TPODS[@]}"; do pod_ready "$p" 30; done
for p in "${TPODS[@]}"; do wait_link pw "$p" up 30; done
for p in "${TPODS[@]}"; do tpod_go "$p"; done

# flowing WHEN: every port takes frames from its pod and gives it frames,
# more than before.
declare -A SEEN_RX=() SEEN_TX=()
mark() { for p in "${TPODS[@]}"; do SEEN_RX[$p]=$(port_stat pw "$p" .rx_packets) SEEN_TX[$p]=$(port_stat pw "$p" .tx_packets); done; }
moved() { # PORT
	[ "$(port_stat pw "$1" .rx_packets)" -gt $((SEEN_RX[$1] + 1000)) ] &&
		[ "$(port_stat pw "$1" .tx_packets)" -gt $((SEEN_TX[$1] + 1000)) ]
}
flowing() {
	local p
	for p in "${TPODS[@]}"; do
		wait_for 20 "traffic through $p ($1)" moved "$p"
		expect_eq "port $p: bad_desc ($1)" 0 "$(bad_desc "$p")"
	done
	for p in "${TPODS[@]}"; do
		check_rings "$p" "$(rings_of "$p")"
	done
	ok "$1: every pod sends and receives"
}
mark
flowing "steady"

# A pod killed under traffic, started again.
for p in "${TPODS[@]}"; do
	case $p in *-x) pod_kill "$p" ;; esac
done
for p in "${TPODS[@]}"; do
	case $p in *-x) wait_link pw "$p" down 10 ;; esac
done
daemon_alive pw || fail "podwired died when pods were killed"
for p in "${TPODS[@]}"; do
	case $p in *-x) tpod_start "$p" ;; esac
done
for p in "${TPODS[@]}"; do
	case $p in *-x)
		pod_ready "$p" 30
		wait_link pw "$p" up 30
		tpod_go "$p"
		;;
	esac
done
mark
flowing "pods killed and started again"

# podwired killed under traffic, started again (its state restores the
# ports): the server=1 pods kept their rings and reconnect; the others
# are started again.
daemon_kill pw
for p in "${TPODS[@]}"; do
	case $p in *-x) pod_kill "$p" ;; esac
done
sleep 0.5
daemon_start pw
for p in "${TPODS[@]}"; do
	case $p in *-x) tpod_start "$p" ;; esac
done
for p in "${TPODS[@]}"; do
	case $p in *-x) pod_ready "$p" 30 ;; esac
	wait_link pw "$p" up 30
	case $p in *-x) tpod_go "$p" ;; esac
done
mark
flowing "podwired killed and started again"
grep -n 'broken\|SIGSEGV\|Segmentation' "$T/pw.log" && fail "podwired's log (above)"
for p in "${TPODS[@]}"; do pod_stop "$p"; done
daemon_alive pw || fail "podwired died"
ok "rings ${RINGS[*]}: byte-exact in ${#CONFS[@]} configurations; pods and podwired restarted under traffic"
