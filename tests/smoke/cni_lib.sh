# Sourced after lib.sh by the CNI smoke tests: runs the podwire CNI plugin
# the way Multus (libcni) does, and checks what it leaves on the node.

PODWIRE_CNI=$BUILD/podwire
PODWIRE_VDEV=$BUILD/podwire-vdev
CNI_PLUGINS_DIR=${CNI_PLUGINS_DIR:-/usr/lib/cni}

[ -x "$PODWIRE_CNI" ] || fail "$PODWIRE_CNI is not built; run: ninja -C $BUILD"
[ -x "$PODWIRE_VDEV" ] || fail "$PODWIRE_VDEV is not built; run: ninja -C $BUILD"
[ -x "$CNI_PLUGINS_DIR/host-local" ] ||
	fail "host-local IPAM is not in $CNI_PLUGINS_DIR (apt-get install containernetworking-plugins)"

# Test-only plugins (a failing IPAM, ...) go to $T/cni-bin, searched first.
CNI_BIN=$T/cni-bin
mkdir -p "$CNI_BIN"
CNI_PATH_ALL=$CNI_BIN:$CNI_PLUGINS_DIR

# cni_conf [JQ-FILTER]: a podwire network config using daemon "pw" and
# the test's directories; the filter adjusts it.
cni_conf() {
	jq -n --arg t "$T" '{
		cniVersion: "1.1.0", name: "cninet", type: "podwire", network: "cninet",
		socketDir: ($t + "/pods"), dataDir: ($t + "/cnidata"),
		podwiredSocket: ($t + "/pw.sock"),
		ipam: {type: "host-local", subnet: "10.77.0.0/24", dataDir: ($t + "/ipam")}
	}' | jq "${1:-.}"
}

# cni [-u VAR]... VERB CONTAINERID IFNAME CONF-FILE [VAR=VALUE]...: runs
# the plugin with exactly the CNI_* variables a runtime sets (-u leaves
# one out) and the config on stdin. Sets CNI_RC; stdout in $T/cni.out.
cni() {
	local -a unset=() vars=()
	local verb cid ifname conf v u skip
	while [ "$1" = -u ]; do
		unset+=("$2")
		shift 2
	done
	verb=$1 cid=$2 ifname=$3 conf=$4
	shift 4
	for v in "CNI_COMMAND=$verb" "CNI_CONTAINERID=$cid" "CNI_NETNS=/var/run/netns/$cid" \
		"CNI_IFNAME=$ifname" "CNI_PATH=$CNI_PATH_ALL" \
		"CNI_ARGS=IgnoreUnknown=true;K8S_POD_NAMESPACE=default;K8S_POD_NAME=$cid;K8S_POD_INFRA_CONTAINER_ID=$cid"; do
		skip=0
		for u in "${unset[@]}"; do [ "${v%%=*}" = "$u" ] && skip=1; done
		[ $skip = 1 ] || vars+=("$v")
	done
	CNI_RC=0
	env -i PATH="$PATH" "${vars[@]}" "$@" "$PODWIRE_CNI" <"$conf" >"$T/cni.out" 2>"$T/cni.err" ||
		CNI_RC=$?
}

# cni_ok WHAT: the last cni call succeeded.
cni_ok() {
	[ "$CNI_RC" -eq 0 ] || fail "$1: plugin exited $CNI_RC: $(cat "$T/cni.out" "$T/cni.err")"
	ok "$1"
}

# cni_err WHAT CODE NEEDLE: the last cni call failed with a CNI error
# object of that code whose message contains NEEDLE.
cni_err() {
	local code msg
	[ "$CNI_RC" -ne 0 ] || fail "$1: expected an error, the plugin succeeded: $(cat "$T/cni.out")"
	code=$(jq -r .code "$T/cni.out" 2>/dev/null) ||
		fail "$1: stdout is not a CNI error object: $(cat "$T/cni.out")"
	msg=$(jq -r .msg "$T/cni.out")
	[ "$code" = "$2" ] || fail "$1: expected code $2, got $code: $msg"
	[ "$(jq -r .cniVersion "$T/cni.out")" != null ] || fail "$1: error object has no cniVersion"
	case "$msg" in *"$3"*) ;; *) fail "$1: message should contain \"$3\": $msg" ;; esac
	ok "$1 (code $code: $msg)"
}

# devinfo_check FILE: FILE follows the Device Information Specification
# 1.1.0 for a vhost-user or memif device (required keys and values).
devinfo_check() {
	jq -e '
		(.type | type == "string") and .version == "1.1.0" and
		(if .type == "vhost-user" then
			(.["vhost-user"] | type == "object") and
			(.["vhost-user"].mode | IN("client", "server")) and
			(.["vhost-user"].path | type == "string" and startswith("/"))
		elif .type == "memif" then
			(.memif | type == "object") and
			(.memif.role | IN("master", "slave")) and
			(.memif.path | type == "string" and startswith("/")) and
			(.memif.mode | IN("ethernet", "ip", "inject-punt"))
		else false end)' "$1" >/dev/null ||
		fail "device-info file $1 does not follow the spec: $(cat "$1")"
	ok "device-info $(basename "$1") follows the spec ($(jq -c . "$1"))"
}

# ipam_held: IPs host-local holds in the test's IPAM dir (one per line).
ipam_held() { { ls "$T/ipam/cninet" 2>/dev/null || true; } | grep -E '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' || true; }

# expect_clean WHAT: no port in podwired, no attachment directory, record,
# pending entry or IP left.
expect_clean() {
	local left
	left=$(ctlj pw port list | jq -r '.ports[].name' | tr '\n' ' ')
	[ -z "$left" ] || fail "$1: podwired still has ports: $left"
	left=$(ls -A "$T/pods" 2>/dev/null | tr '\n' ' ' || true)
	[ -z "$left" ] || fail "$1: $T/pods still holds: $left"
	# ipam-versions.json is a cache of the IPAM plugin's versions, not state.
	left=$(find "$T/cnidata" -type f ! -name ipam-versions.json 2>/dev/null | tr '\n' ' ' || true)
	[ -z "$left" ] || fail "$1: records left: $left"
	left=$(ipam_held | tr '\n' ' ')
	[ -z "$left" ] || fail "$1: IPs still held: $left"
	ok "$1: no port, directory, record or IP left"
}
