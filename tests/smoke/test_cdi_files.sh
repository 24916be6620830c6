#!/bin/bash
# podwired's CDI spec files, in a temp --cdi-dir: one file per kind,
# schema-valid (Debian's CDI JSON schema, python3-jsonschema) and loadable
# by CDI 0.5 after every change; ports that cannot be devices are left out
# with a reason; the environment agrees with the CNI plugin's podwire.json;
# files stay valid when podwired is killed in the middle of changes, are
# current after a restart and gone after a clean stop; `cdi write`; bad
# options and requests are refused with the fix and change nothing.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"
. "$(dirname "$0")/cdi_lib.sh"

C=$T/pw.cdi
all_files() { find "$C" -maxdepth 1 -name '*.json' | sort; }
validate_all() { # every spec file in $C
	local f
	mapfile -t f < <(all_files)
	[ ${#f[@]} -eq 0 ] || cdi_validate "${f[@]}"
}
env_of() { # DEVICE VAR: a variable of device podwire.io/port=DEVICE
	jq -r --arg d "$1" --arg v "$2=" '.devices[] | select(.name == $d) |
		.containerEdits.env[] | select(startswith($v)) | ltrimstr($v)' "$C/podwire.io-port.json"
}

# ---- start-up refusals: the option, the fix, nothing written --------------------
refused() { # WHAT NEEDLE ARGS...
	local what=$1 needle=$2 out rc=0
	shift 2
	out=$(timeout 20 "$PODWIRED" --main-core "$POD_CPU" --worker-cores "$WORKER_CPU" \
		--socket "$T/bad.sock" --state-dir "$T/bad.state" "$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "$what: podwired started"
	grep -qF -- "$needle" <<<"$out" || fail "$what: message lacks \"$needle\": $out"
	ok "$what: $out"
}
touch "$T/afile"
refused "relative --cdi-dir" '--cdi-dir: "cdi" is not an absolute path; give one' --cdi-dir cdi
refused "--cdi-dir under a file" '--cdi-dir: cannot write to '"$T"'/afile/cdi: Not a directory; give a writable directory or ""' \
	--cdi-dir "$T/afile/cdi"
refused "--dev-root missing" '--dev-root: "'"$T"'/nodev" is not an absolute path of a directory' \
	--cdi-dir "$T/bad.cdi" --dev-root "$T/nodev"
echo '{"cdi_dir": "rel"}' >"$T/bad.json"
refused "cdi_dir in --config" 'bad.json: "cdi_dir": "rel" is not an absolute path' --config "$T/bad.json"
[ ! -e "$T/bad.cdi" ] || [ -z "$(ls -A "$T/bad.cdi")" ] || fail "a refused start wrote $(ls "$T/bad.cdi")"

# ---- specs follow the ports -----------------------------------------------------
daemon_start pw
expect_eq "with no port: hugepages only" "podwire.io-hugepages.json" "$(ls "$C")"
expect_eq "hugepages device" default "$(cdi_devices "$C" hugepages)"
validate_all
ctl pw network add n1 >/dev/null
mkdir -p "$T/pods/a" "$T/pods/b" "$T/pods/shared" "$T/pods/x"
ctl pw port add pod-a --network n1 --type vhost-user --socket "$T/pods/a/vhost.sock" \
	--mac 02:00:00:cd:00:0a >/dev/null
ctl pw port add pod-b --network n1 --type memif --socket "$T/pods/b/memif.sock" --client \
	--mac 02:00:00:cd:00:0b >/dev/null
ctl pw port add s1 --network n1 --type vhost-user --socket "$T/pods/shared/1.sock" >/dev/null
ctl pw port add s2 --network n1 --type vhost-user --socket "$T/pods/shared/2.sock" >/dev/null
ctl pw port add x. --network n1 --type vhost-user --socket "$T/pods/x/x.sock" >/dev/null
ctl pw port add nul --network n1 --type null >/dev/null
validate_all
expect_eq "port devices (shared directory, bad name and null left out)" "pod-a pod-b" \
	"$(cdi_devices "$C" port)"
expect_eq "cdiVersion: mounts with a type need 0.4.0" 0.4.0 "$(jq -r .cdiVersion "$C/podwire.io-port.json")"
L=$(ctl pw cdi list)
echo "$L"
for n in 'podwire.io/port=pod-a' 'podwire.io/hugepages=default' \
	'not offered: port "s1": its socket directory '"$T"'/pods/shared also holds port "s2"' \
	'not offered: port "x.": "x." is not a CDI device name: it must begin and end with a letter or digit'; do
	grep -qF -- "$n" <<<"$L" || fail "cdi list lacks \"$n\""
done
expect_eq "pod-a: the EAL arguments" \
	"--vdev=net_virtio_user0,path=/var/run/podwire/a/vhost.sock,mac=02:00:00:cd:00:0a,server=0 --single-file-segments" \
	"$(env_of pod-a PODWIRE_VDEV)"
expect_eq "pod-b (podwired is the memif client: the pod is the server)" \
	"--vdev=net_memif0,role=server,socket=/var/run/podwire/b/memif.sock,socket-abstract=no,mac=02:00:00:cd:00:0b" \
	"$(env_of pod-b PODWIRE_VDEV)"
expect_eq "pod-a's socket directory, read-only (podwired made the socket)" \
	"$T/pods/a /var/run/podwire/a ro" \
	"$(jq -r '.devices[] | select(.name=="pod-a") | .containerEdits.mounts[0] |
		"\(.hostPath) \(.containerPath) \(.options[-1])"' "$C/podwire.io-port.json")"
expect_eq "pod-b's, writable (the pod makes its socket; and DPDK's memif wants it so)" rw \
	"$(jq -r '.devices[] | select(.name=="pod-b") | .containerEdits.mounts[0].options[-1]' "$C/podwire.io-port.json")"
expect_eq "hugetlbfs: a private instance" "hugetlbfs /dev/hugepages" \
	"$(jq -r '.devices[0].containerEdits.mounts[1] | "\(.type) \(.containerPath)"' "$C/podwire.io-port.json")"
# What podwire-vdev prints in a container given both ports.
VARS=$(jq -r '.devices[].containerEdits.env[] | select(startswith("PODWIRE_DEVINFO_PORT_") or
	startswith("PODWIRE_MAC_PORT_"))' "$C/podwire.io-port.json")
mapfile -t VARS <<<"$VARS"
expect_eq "podwire-vdev from a container's environment (two ports)" \
	"--vdev=net_virtio_user0,path=/var/run/podwire/a/vhost.sock,mac=02:00:00:cd:00:0a,server=0 --vdev=net_memif0,role=server,socket=/var/run/podwire/b/memif.sock,socket-abstract=no,mac=02:00:00:cd:00:0b --single-file-segments" \
	"$(env -i "${VARS[@]}" "$BUILD/podwire-vdev")"
OUT=$(env -i "$BUILD/podwire-vdev" 2>&1) && fail "podwire-vdev with nothing to read succeeded"
grep -qF -- "--device podwire.io/port=NAME" <<<"$OUT" || fail "podwire-vdev: $OUT"
ok "podwire-vdev with no file and no variable: $OUT"

# ---- the CNI plugin's podwire.json and the CDI environment agree ----------------------
cni_conf '.podwiredSocket = "'"$T"'/pw.sock" | .network = "n1" | .podSocketDir = "/var/run/podwire"
	| .iftype = "vhost-user"' >"$T/net.json"
cni ADD cdipod net1 "$T/net.json" "CNI_ARGS=IgnoreUnknown=true;MAC=02:00:00:cd:00:0c"
cni_ok "CNI ADD"
PJ=$(ls "$T"/pods/*/podwire.json)
CP=$(jq -r .port "$PJ")
expect_eq "CDI device-info = podwire.json's deviceInfo" "$(jq -cS .deviceInfo "$PJ")" \
	"$(env_of "$CP" "PODWIRE_DEVINFO_PORT_$(tr 'a-z-' 'A-Z_' <<<"$CP")" | jq -cS .)"
expect_eq "CDI PODWIRE_VDEV = podwire.json's eal" "$(jq -r '.eal | join(" ")' "$PJ")" \
	"$(env_of "$CP" PODWIRE_VDEV)"
expect_eq "CDI PODWIRE_SOCKET = podwire.json's socket" "$(jq -r .socket "$PJ")" \
	"$(env_of "$CP" PODWIRE_SOCKET)"
cni DEL cdipod net1 "$T/net.json"
cni_ok "CNI DEL"
validate_all
expect_eq "the CNI port's device went with it" "pod-a pod-b" "$(cdi_devices "$C" port)"

# ---- bad requests change nothing -----------------------------------------------------
BEFORE=$(cat "$C"/*.json | md5sum)
R=$(rpc pw cdi.list '{"dir": "/etc"}')
expect_eq "cdi.list with a parameter" "-32602 dir" "$(jq -r '"\(.error.code) \(.error.data.field)"' <<<"$R")"
grep -qF 'unknown field \"dir\"; known fields: none' <<<"$R" || fail "cdi.list message: $R"
OUT=$(ctl pw cdi list extra 2>&1) && fail "cdi list extra succeeded"
grep -qF 'cdi list: unexpected argument "extra"' <<<"$OUT" || fail "cdi list extra: $OUT"
OUT=$(ctl pw cdi write "$T/afile/etc" 2>&1) && fail "cdi write into a file's path succeeded"
grep -qF "cannot create $T/afile/etc: Not a directory; give a writable directory" <<<"$OUT" ||
	fail "cdi write message: $OUT"
ok "cdi write refused: $OUT"
ctl pw port add "bad/name" --network n1 --type null >/dev/null 2>&1 && fail "bad port name accepted"
expect_eq "refused requests changed no spec file" "$BEFORE" "$(cat "$C"/*.json | md5sum)"

# ---- cdi write: the same documents elsewhere -----------------------------------------------
mkdir -p "$T/etc"
echo '{"stale": true}' >"$T/etc/podwire.io-vf.json"
echo keep >"$T/etc/other-vendor.json"
ctl pw cdi write "$T/etc"
cdi_validate "$T/etc"/podwire.io-*.json
for f in podwire.io-port.json podwire.io-hugepages.json; do
	cmp -s "$C/$f" "$T/etc/$f" || fail "cdi write: $f differs from podwired's"
done
[ ! -e "$T/etc/podwire.io-vf.json" ] || fail "cdi write left a vf file with no VF device"
expect_eq "cdi write leaves other files" keep "$(cat "$T/etc/other-vendor.json")"

# ---- killed in the middle of changes: the files stay valid ---------------------------------
churn() { # ports come and go until podwired is gone
	local i=0
	while mkdir -p "$T/pods/c$i" &&
		ctl pw --timeout 2000 port add "c$i" --network n1 --type vhost-user \
			--socket "$T/pods/c$i/s.sock" >/dev/null 2>&1; do
		ctl pw --timeout 2000 port del "c$((i - 1))" >/dev/null 2>&1 || true
		i=$((i + 1))
	done
}
for round in 1 2 3 4 5; do
	churn &
	CPID=$!
	# Kill once a few changes went through (the port file has moved on).
	wait_for 30 "ports to churn" grep -q '"c[1-9]' "$C/podwire.io-port.json"
	sleep "0.0$((RANDOM % 10))"
	daemon_kill pw
	wait $CPID 2>/dev/null || true
	validate_all
	TMPS=$(find "$C" -name '*.tmp.*' | wc -l)
	daemon_start pw
	[ -z "$(find "$C" -name '*.tmp.*')" ] || fail "a temp file survived the restart"
	WANT=$(ctlj pw port list | jq -r '[.ports[] | select(.type == "vhost-user" or .type == "memif")
		| .name] | map(select(. != "s1" and . != "s2" and . != "x.")) | sort | join(" ")')
	expect_eq "round $round ($TMPS temp file(s) left by the kill): devices after restart" \
		"$WANT" "$(cdi_devices "$C" port)"
	validate_all
	for p in $(ctlj pw port list | jq -r '.ports[].name | select(startswith("c"))'); do
		ctl pw port del "$p" >/dev/null
	done
	rm -rf "$T"/pods/c*
done

# ---- a clean stop removes them ----------------------------------------------------------
for p in pod-a pod-b s1 s2 x. nul; do ctl pw port del "$p" >/dev/null; done
expect_eq "no port device: no port file" "podwire.io-hugepages.json" "$(ls "$C")"
daemon_stop pw
expect_eq "files after a clean stop" "" "$(ls -A "$C")"
ok "CDI spec files"
