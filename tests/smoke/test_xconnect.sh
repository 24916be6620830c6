#!/bin/bash
# A cross-connect network: every frame from one port goes to the other,
# whatever its destination MAC, both ways, and the counters agree. A third
# port is refused (IN_USE, "two ports") and changes nothing.
. "$(dirname "$0")/lib.sh"

MAC_A=02:00:00:00:0a:01
MAC_B=02:00:00:00:0b:01
NOBODY=02:00:00:00:ee:ee

daemon_start pw
ctl pw network add xc --mode xconnect
ctl pw port add pod-a --network xc --type vhost-user --socket "$T/a.sock" --mac $MAC_A
ctl pw port add pod-b --network xc --type vhost-user --socket "$T/b.sock" --mac $MAC_B
expect_eq "network mode" xconnect \
	"$(ctlj pw network list | jq -r '.networks[] | select(.name=="xc") | .mode')"

# ---- a third port is refused ---------------------------------------------------
ports() { ctlj pw port list | jq -c '[.ports[] | {name, network, type, socket, mac}]'; }
ports_before=$(ports)
state_before=$(cat "$T/pw.state/state.json")
expect_eq "ports on xc" '["pod-a","pod-b"]' "$(ports | jq -c 'map(.name)')"
resp=$(rpc pw port.create "{\"name\":\"pod-c\",\"network\":\"xc\",\"type\":\"vhost-user\",
	\"socket\":\"$T/c.sock\",\"mac\":\"02:00:00:00:0c:01\"}")
expect_eq "error code of a third port" 1003 "$(jq -r '.error.code' <<<"$resp")"
msg=$(jq -r '.error.message' <<<"$resp")
[[ $msg == *"two ports"* ]] || fail "error message does not mention \"two ports\": $msg"
ok "error message: $msg"
if err=$(ctl pw port add pod-c --network xc --type vhost-user --socket "$T/c.sock" 2>&1); then
	fail "podwirectl accepted a third port on a cross-connect network"
fi
[[ $err == *"two ports"* ]] || fail "podwirectl's error does not mention \"two ports\": $err"
ok "podwirectl refuses: $err"
expect_eq "ports after the refusal" "$ports_before" "$(ports)"
[ "$(cat "$T/pw.state/state.json")" = "$state_before" ] || fail "the refusal changed state.json"
ok "state.json unchanged"
[ ! -e "$T/c.sock" ] || fail "the refused port left its socket $T/c.sock"
ctl pw port show pod-c >/dev/null 2>&1 && fail "the refused port pod-c exists"
daemon_alive pw || fail "podwired died"

# ---- traffic -----------------------------------------------------------------
# Both pods send to a MAC nobody has: a bridge would flood or drop, a
# cross-connect just hands every frame to the peer.
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $MAC_A)" --eth-peer=0,$NOBODY
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $MAC_B)" --eth-peer=0,$NOBODY

pod_send a 8
wait_for 10 "b to receive a's 256 frames" pod_rx_ge b 256
pod_send b 2
wait_for 10 "a to receive b's 64 frames" pod_rx_ge a 64

expect_eq "pod a tx" 256 "$(pod_tx a)"
expect_eq "pod a rx" 64 "$(pod_rx a)"
expect_eq "pod b tx" 64 "$(pod_tx b)"
expect_eq "pod b rx" 256 "$(pod_rx b)"
expect_eq "pod b rx bytes" $((256 * 64)) "$(pod_bytes b | cut -d' ' -f1)"
expect_eq "podwired pod-a rx" 256 "$(port_stat pw pod-a .rx_packets)"
expect_eq "podwired pod-a tx" 64 "$(port_stat pw pod-a .tx_packets)"
expect_eq "podwired pod-b rx" 64 "$(port_stat pw pod-b .rx_packets)"
expect_eq "podwired pod-b tx" 256 "$(port_stat pw pod-b .tx_packets)"
expect_eq "podwired pod-b tx bytes" $((256 * 64)) "$(port_stat pw pod-b .tx_bytes)"
for p in pod-a pod-b; do
	expect_eq "podwired $p drops" 0 "$(ctlj pw stats $p | jq '[.ports[0].drops[]] | add')"
done

# The refusal also holds with traffic flowing, and traffic goes on.
rpc pw port.create "{\"name\":\"pod-c\",\"network\":\"xc\",\"type\":\"null\"}" |
	jq -e '.error.code == 1003' >/dev/null || fail "a third (null) port was not refused"
pod_send a 1
wait_for 10 "b to receive 32 more frames" pod_rx_ge b 288
expect_eq "ports at the end" "$ports_before" "$(ports)"
expect_eq "pod b rx after the second refusal" 288 "$(pod_rx b)"
expect_eq "podwired pod-b tx after the second refusal" 288 "$(port_stat pw pod-b .tx_packets)"
