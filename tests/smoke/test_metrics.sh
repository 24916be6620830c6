#!/bin/bash
# podwired --metrics: /metrics in the Prometheus text format, checked by
# promtool, equal to what `podwirectl --json stats` says, and scraped by a
# real Prometheus server (Debian's prometheus) on loopback that then
# answers a rate query. The address comes from the configuration file; bad
# addresses and a taken port stop podwired with a message naming the key.
. "$(dirname "$0")/lib.sh"

command -v promtool >/dev/null || fail "promtool is not installed (apt-get install prometheus)"
command -v prometheus >/dev/null || fail "prometheus is not installed (apt-get install prometheus)"
command -v curl >/dev/null || fail "curl is not installed"
A=02:00:00:00:0a:01 B=02:00:00:00:0b:01
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
MPORT=$(free_port)
PPORT=$(free_port)

# ---- bad addresses: podwired refuses to start, naming the setting ----------------------
bad_start() { # TEXT podwired-args...
	local text=$1 out rc=0
	shift
	out=$(timeout 60 "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/bad.sock" --state-dir "$T/bad.state" --cdi-dir "$T/bad.cdi" "$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "podwired $* started"
	grep -qF -- "$text" <<<"$out" || fail "podwired $*: the message does not say $text: $out"
	ok "podwired $* refused ($rc): $(grep -F -- "$text" <<<"$out" | head -n1)"
}
bad_start '--metrics: "nonsense" is not ADDR:PORT' --metrics nonsense
bad_start 'port "99999" is not a number in 1-65535' --metrics 127.0.0.1:99999
bad_start '"localhost" is not an IP address' --metrics localhost:9469
echo '{"metrics": "1.2.3:80"}' >"$T/bad.json"
bad_start "$T/bad.json: \"metrics\"" --config "$T/bad.json"
[ ! -e "$T/bad.sock" ] || fail "a refused podwired left its socket"

echo "{\"metrics\": \"127.0.0.1:$MPORT\"}" >"$T/pw.json"
# Idle naps: the workers' sleep series count.
daemon_start pw --config "$T/pw.json" --idle-sleep-max 100
# The port is taken now: a second podwired says so.
bad_start "cannot serve HTTP on 127.0.0.1:$MPORT" --metrics "127.0.0.1:$MPORT"
daemon_alive pw || fail "podwired died when a second one failed to start"

ctl pw network add net1
ctl pw port add pod-a --network net1 --type vhost-user --socket "$T/a.sock" --mac $A
ctl pw port add pod-b --network net1 --type vhost-user --socket "$T/b.sock" --mac $B --mtu 1000
ctl pw port add idle --network net1 --type null --mac 02:00:00:00:01:01 --rate-in pps=1000 \
	--rate-out bps=10m
pod_up pw pod-a a "$(vdev_virtio "$T/a.sock" $A)" --eth-peer=0,$B
pod_up pw pod-b b "$(vdev_virtio "$T/b.sock" $B)" --eth-peer=0,$A
pod_send b 2
wait_for 10 "a to receive b's frames" pod_rx_ge a 64
# Some drops: a's 1400-byte frames exceed b's MTU.
pod_txpkts a 1400
pod_send a 1
wait_for 10 "mtu drops on pod-b" port_stat_ge pw pod-b .drops.mtu_exceeded 32

# ---- the page: promtool, HTTP details ----------------------------------------------
url=http://127.0.0.1:$MPORT/metrics
curl -sf -D "$T/headers" "$url" >"$T/m.txt" || fail "curl $url failed"
grep -qi '^content-type: text/plain; version=0.0.4' "$T/headers" || fail "content type: $(cat "$T/headers")"
promtool check metrics <"$T/m.txt" >"$T/promtool.out" 2>&1 || fail "promtool check metrics: $(cat "$T/promtool.out")"
ok "promtool check metrics: clean ($(grep -vc '^#' "$T/m.txt") samples)"
expect_eq "HTTP status of /nope" 404 "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$MPORT/nope")"
expect_eq "HTTP status of POST /metrics" 405 "$(curl -s -o /dev/null -w '%{http_code}' -X POST "$url")"
grep -q "^podwire_build_info{version=\"[0-9.]*\",api_version=\"1.[0-9]*\"} 1$" "$T/m.txt" ||
	fail "no build info: $(grep build_info "$T/m.txt")"
grep -q '^podwire_port_link_up{port="pod-a",network="net1",kind="vhost-user"} 1$' "$T/m.txt" ||
	fail "pod-a's link: $(grep link_up "$T/m.txt")"
grep -q '^podwire_port_rate_limit{port="idle",network="net1",kind="null",direction="ingress",unit="pps"} 1000$' "$T/m.txt" &&
	grep -q '^podwire_port_rate_limit_burst{port="idle",network="net1",kind="null",direction="egress",unit="bytes"} 125000$' "$T/m.txt" ||
	fail "idle's rate limits: $(grep rate_limit "$T/m.txt")"
grep -q '^podwire_port_drops_total{port="idle",network="net1",kind="null",reason="policed"} 0$' "$T/m.txt" ||
	fail "no policed drop series for idle"
grep -q '^podwire_network_mac_entries{network="net1",mode="bridge"} 2$' "$T/m.txt" ||
	fail "net1's MAC entries: $(grep mac_entries "$T/m.txt")"
grep -q '^podwire_worker_busy_cycles_total{worker="0",lcore="'"$WORKER_CPU"'"} [1-9]' "$T/m.txt" ||
	fail "worker cycles: $(grep worker_ "$T/m.txt")"

# ---- the values are stats.get's ---------------------------------------------------------
ctlj pw stats >"$T/stats.json"
curl -sf "$url" >"$T/m.txt"
metric() { # NAME PORT [REASON]: the sample's value
	local sel="port=\"$2\",network=\"net1\",kind=\"$(ctlj pw port show "$2" | jq -r .type)\""
	[ -z "${3:-}" ] || sel+=",reason=\"$3\""
	awk -v k="$1{$sel}" '$1 == k {print $2}' "$T/m.txt"
}
n=0
for p in pod-a pod-b idle; do
	for f in rx_packets rx_bytes tx_packets tx_bytes; do
		expect_eq "$p $f" "$(jq ".ports[] | select(.name == \"$p\") | .$f" "$T/stats.json")" \
			"$(metric "podwire_port_${f}_total" "$p")"
		n=$((n + 1))
	done
	for r in $(jq -r '.ports[0].drops | keys[]' "$T/stats.json"); do
		[ "$(jq ".ports[] | select(.name == \"$p\") | .drops.$r" "$T/stats.json")" = \
			"$(metric podwire_port_drops_total "$p" "$r")" ] ||
			fail "$p drops $r: stats $(jq ".ports[] | select(.name == \"$p\") | .drops.$r" "$T/stats.json"), metrics $(metric podwire_port_drops_total "$p" "$r")"
		n=$((n + 1))
	done
done
expect_eq "pod-b's mtu_exceeded in the metrics" 32 "$(metric podwire_port_drops_total pod-b mtu_exceeded)"
# Kernel drops only where the kind reads through a kernel socket (none
# here: test_kernel_drops has them); the family is declared all the same.
grep -q '^# TYPE podwire_port_kernel_drops_total counter$' "$T/m.txt" ||
	fail "no TYPE line for podwire_port_kernel_drops_total"
! grep -q '^podwire_port_kernel_drops_total{' "$T/m.txt" ||
	fail "kernel drops of ports without a kernel socket: $(grep kernel_drops "$T/m.txt")"
expect_eq "kernel_drops of vhost-user and null ports in stats" 0 \
	"$(jq '[.ports[] | select(has("kernel_drops"))] | length' "$T/stats.json")"
ok "$n port values in /metrics equal podwirectl --json stats"

# ---- per rx queue, per worker: queue.list's --------------------------------------------
ctlj pw queue list >"$T/queues.json"
ctlj pw stats >"$T/stats.json"
curl -sf "$url" >"$T/m.txt"
qsel() { echo "port=\"$1\",network=\"net1\",kind=\"$2\",queue=\"0\",worker=\"0\",lcore=\"$WORKER_CPU\""; }
sample() { awk -v k="$1{$2}" '$1 == k {print $2}' "$T/m.txt"; }
for p in pod-a pod-b; do
	sel=$(qsel $p vhost-user)
	expect_eq "$p queue 0 frames in /metrics" \
		"$(jq ".queues[] | select(.port == \"$p\" and .queue == 0) | .rx_packets_total" "$T/queues.json")" \
		"$(sample podwire_rxq_packets_total "$sel")"
	expect_eq "$p queue 0 frames: all of the port's" \
		"$(jq ".ports[] | select(.name == \"$p\") | .rx_packets" "$T/stats.json")" \
		"$(sample podwire_rxq_packets_total "$sel")"
	[ "$(sample podwire_rxq_busy_cycles_total "$sel")" -gt 0 ] ||
		fail "$p queue 0: no busy cycles: $(grep rxq_busy "$T/m.txt")"
	expect_eq "$p queue 0 enabled" 1 "$(sample podwire_rxq_enabled "$sel")"
	expect_eq "$p queue 0 pinned" 0 "$(sample podwire_rxq_pinned "$sel")"
done
# A queue nothing arrived on still has its worker's series, at 0.
expect_eq "idle's queue 0 frames" 0 "$(sample podwire_rxq_packets_total "$(qsel idle null)")"
[ "$(sample podwire_worker_sleeps_total "worker=\"0\",lcore=\"$WORKER_CPU\"")" -gt 0 ] ||
	fail "worker 0 took no naps (--idle-sleep-max 100): $(grep sleep "$T/m.txt")"
awk -v k="podwire_worker_sleep_seconds_total{worker=\"0\",lcore=\"$WORKER_CPU\"}" '$1 == k && $2 > 0 { f = 1 } END { exit !f }' "$T/m.txt" ||
	fail "worker 0 slept no time: $(grep sleep "$T/m.txt")"
ok "per queue and per worker series: frames equal queue.list's and stats.get's; enabled, pinned, naps"

# ---- a Prometheus server scrapes it and answers a rate query -------------------------
cat >"$T/prometheus.yml" <<-EOT
	global:
	  scrape_interval: 1s
	scrape_configs:
	  - job_name: podwired
	    static_configs:
	      - targets: ['127.0.0.1:$MPORT']
EOT
pod_txpkts a 64
pod_cmd a stop
pod_cmd a "set fwd txonly"
pod_cmd a start
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
	--web.listen-address="127.0.0.1:$PPORT" >"$T/prometheus.log" 2>&1 &
POD_PID[prometheus]=$! # stopped by PID with the pods
query() { curl -sfG "http://127.0.0.1:$PPORT/api/v1/query" --data-urlencode "query=$1"; }
rate_up() {
	query 'rate(podwire_port_rx_packets_total{port="pod-a"}[5s])' >"$T/q.json" &&
		jq -e '.data.result[0].value[1] | tonumber > 0' "$T/q.json" >/dev/null
}
wait_for 60 "Prometheus to answer a rate of pod-a's frames" rate_up
ok "Prometheus: rate(podwire_port_rx_packets_total{port=\"pod-a\"}[5s]) = $(jq -r '.data.result[0].value[1]' "$T/q.json") frames/s"
query 'up{job="podwired"}' | jq -e '.data.result[0].value[1] == "1"' >/dev/null || fail "the target is not up"
query 'sum by (reason) (podwire_port_drops_total{port="pod-b"})' |
	jq -e '.data.result | map(select(.metric.reason == "mtu_exceeded"))[0].value[1] == "32"' >/dev/null ||
	fail "Prometheus does not have pod-b's mtu drops"
ok "Prometheus scraped podwired: target up, drops by reason there"
query 'sum by (lcore) (rate(podwire_rxq_packets_total{port="pod-a"}[5s]))' |
	jq -e ".data.result[0].metric.lcore == \"$WORKER_CPU\" and (.data.result[0].value[1] | tonumber > 0)" >/dev/null ||
	fail "Prometheus has no rate of pod-a's queue frames by worker: $(query 'podwire_rxq_packets_total')"
ok "Prometheus: pod-a's queue frames per second by worker core"
pod_cmd a stop
