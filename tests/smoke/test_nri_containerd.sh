#!/bin/bash
# A real containerd 1.6 (Debian's, whose CRI plugin carries the NRI v0.1
# client) runs podwire-nri: a minimal CRI client (tests/nri/cri.py,
# python3-grpcio; Debian has no crictl) runs a pod sandbox and a container
# (RunPodSandbox, CreateContainer, StartContainer), containerd calls the
# plugin listed in /etc/nri/conf.json, and the sandbox's and container's
# cgroup cpuset.cpus exclude podwired's worker core; a pod annotated with
# podwire.io/cores on the worker core fails to start with the plugin's
# message and leaves no task behind. containerd has its own root, state,
# sockets and runc root under $T; /etc/nri/conf.json (containerd reads only
# that path) is restored byte for byte, with its mode and times. About 5 s.
#
# Two settings in containerd's configuration, both ones a user needs too
# (README, "NRI"):
# - pod_annotations = ["podwire.io/*"] (runtime runc): containerd 1.6 puts
#   a pod's annotations into the OCI spec (the spec NRI v0.1 hands the
#   plugin) only when the runtime's pod_annotations match them; without it
#   podwire.io/cores never reaches podwire-nri and the pod starts as if
#   unannotated.
# - restrict_oom_score_adj = true: CRI gives every sandbox oom_score_adj
#   -998 (kubernetes' default for pause containers), and runc's nsexec
#   writes it to /proc/self/oom_score_adj first. Going below the minimum
#   (0) needs CAP_SYS_RESOURCE, and this microVM drops it from every
#   process's bounding set (CapBnd 000001fffeffffff in /proc/1/status, bit
#   24 clear), root's too: the write fails with EACCES, and runc reports
#   only "can't get final child's PID from pipe: EOF" (the fatal nsexec
#   line is in its log.json, which the shim deletes; $T/runc.log keeps it).
#   The option clamps the score to containerd's own (0); nothing this test
#   checks depends on it. podman asks for no oomScoreAdj, so runc runs its
#   containers here.
. "$(dirname "$0")/lib.sh"

NRI=$BUILD/podwire-nri
CPUSET=/sys/fs/cgroup/cpuset
PY=/usr/bin/python3
command -v containerd >/dev/null || skip "containerd is not installed (apt-get install containerd)"
command -v protoc >/dev/null || skip "protoc is not installed (apt-get install protobuf-compiler)"
$PY -c 'import grpc, google.protobuf' 2>/dev/null ||
	skip "python3-grpcio/python3-protobuf are not installed"
command -v podman >/dev/null || skip "podman (to build the test image) is not installed"
[ -f "$CPUSET/cpuset.cpus" ] || skip "no cgroup v1 cpuset hierarchy"
[ -x /bin/busybox ] || skip "busybox is not installed (apt-get install busybox-static)"

exec {LOCKFD}>/run/lock/podwire-nri-test.lock
flock -w 300 "$LOCKFD" || fail "another test held /run/lock/podwire-nri-test.lock for 300s"
CONF=/etc/nri/conf.json
[ ! -e "$CONF" ] || cp -a "$CONF" "$T/conf.json.saved"
D=$T/ctd
SOCK=$D/containerd.sock
TASKS=$D/state/io.containerd.runtime.v2.task
CGP=pwt$$-cri
CTD_PID=
SANDBOXES=()
# cri VERB ARGS...: the CRI client against our containerd.
cri() { PYTHONPATH=$T timeout "${CRI_TIMEOUT:-90}" "$PY" "$ROOT/tests/nri/cri.py" "$SOCK" "$@"; }
# bundle_files NAME: the contents of NAME in every task bundle, one a line
# (runc writes init.pid and the shim its address without a newline).
bundle_files() {
	local f
	for f in "$TASKS"/*/*/"$1"; do [ -f "$f" ] && echo "$(cat "$f")"; done
}
ctd_exit() {
	local rc=$1 s p m d
	if [ $rc -ne 0 ] && [ $rc -ne 77 ]; then
		echo "---- containerd log tail"
		tail -n 20 "$T/containerd.log" 2>/dev/null
		echo "---- runc log tail"
		tail -n 20 "$T/runc.log" 2>/dev/null
	fi
	# In order first: CRI stops and removes the pods, containerd deletes
	# their tasks, the shims unmount and exit.
	if [ -n "$CTD_PID" ] && kill -0 "$CTD_PID" 2>/dev/null; then
		for s in "${SANDBOXES[@]}"; do CRI_TIMEOUT=20 cri rm "$s" >/dev/null 2>&1; done
		_stop_pid "$CTD_PID"
	fi
	# Whatever is left (containerd stuck or gone): containers, by the PIDs
	# in their bundles; their shims, by the PID listening on the socket each
	# bundle names (always in /run/containerd/s), and the sockets; mounts
	# under $D, deepest first; the pods' cgroups in every hierarchy.
	for p in $(bundle_files init.pid); do kill -KILL "$p" 2>/dev/null; done
	for s in $(bundle_files address | sort -u); do
		s=${s#unix://}
		for p in $(ss -xlpH | awk -v s="$s" '$5 == s' | grep -o 'pid=[0-9]*' | sort -u); do
			kill -KILL "${p#pid=}"
		done
		rm -f "$s"
	done
	for m in $(awk -v d="$D/" 'index($5, d) == 1 {print $5}' /proc/self/mountinfo | sort -r); do
		umount "$m" 2>/dev/null || umount -l "$m"
	done
	for d in $(find /sys/fs/cgroup/*/"$CGP" -depth -type d 2>/dev/null); do
		for _ in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	done
	if [ -e "$T/conf.json.saved" ]; then cp -a "$T/conf.json.saved" "$CONF"; else rm -f "$CONF"; fi
}
on_exit ctd_exit

# ---- the image (sandbox and container): busybox, imported into containerd -------------
R=$T/rootfs
mkdir -p "$R"/{bin,proc,sys,dev,etc,tmp}
cp /bin/busybox "$R/bin/"
for c in sh sleep; do ln -s busybox "$R/bin/$c"; done
tar -C "$R" -cf "$T/rootfs.tar" .
PODMAN=(podman --root "$T/storage" --runroot "$T/prun" --storage-driver vfs --events-backend none)
IMAGE=localhost/pwt-busybox:1
"${PODMAN[@]}" import --change 'CMD ["/bin/sleep", "3600"]' "$T/rootfs.tar" "$IMAGE" >/dev/null
"${PODMAN[@]}" save --format docker-archive -o "$T/image.tar" "$IMAGE" >/dev/null

# ---- containerd of our own, with the CRI plugin ---------------------------------------
mkdir -p "$D" "$T/nri-bin" "$T/cni-bin" "$T/cni-conf"
ln -s "$NRI" "$T/nri-bin/podwire-nri"
# runc, with its log kept: the shim passes --log BUNDLE/log.json and
# deletes the bundle when create fails, and runc's own error message hides
# the cause (which nsexec writes only there).
cat >"$T/runc" <<-EOF
	#!/bin/bash
	/usr/bin/runc "\$@"
	rc=\$?
	while [ \$# -gt 1 ]; do [ "\$1" != --log ] || cat "\$2" >>"$T/runc.log" 2>/dev/null; shift; done
	exit \$rc
EOF
chmod +x "$T/runc"
cat >"$D/config.toml" <<-EOF
	version = 2
	root = "$D/root"
	state = "$D/state"
	disabled_plugins = ["io.containerd.snapshotter.v1.aufs", "io.containerd.snapshotter.v1.btrfs",
	  "io.containerd.snapshotter.v1.zfs", "io.containerd.snapshotter.v1.devmapper"]
	[grpc]
	  address = "$SOCK"
	[ttrpc]
	  address = "$SOCK.ttrpc"
	[debug]
	  address = "$D/debug.sock"
	[plugins."io.containerd.internal.v1.opt"]
	  path = "$D/opt"
	[plugins."io.containerd.grpc.v1.cri"]
	  sandbox_image = "$IMAGE"
	  restrict_oom_score_adj = true
	  [plugins."io.containerd.grpc.v1.cri".containerd]
	    snapshotter = "native"
	    default_runtime_name = "runc"
	    [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc]
	      runtime_type = "io.containerd.runc.v2"
	      pod_annotations = ["podwire.io/*"]
	      [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
	        BinaryName = "$T/runc"
	        Root = "$D/runc"
	  [plugins."io.containerd.grpc.v1.cri".cni]
	    bin_dir = "$T/cni-bin"
	    conf_dir = "$T/cni-conf"
EOF
# containerd appends /opt/nri/bin to its PATH; ours comes first.
PATH="$T/nri-bin:$PATH" containerd --config "$D/config.toml" >"$T/containerd.log" 2>&1 &
CTD_PID=$!
wait_for 30 "containerd to answer" ctr -a "$SOCK" version
ctr -a "$SOCK" -n k8s.io images import "$T/image.tar" >/dev/null
IMAGES=$(ctr -a "$SOCK" -n k8s.io images ls -q)
grep -qx "$IMAGE" <<<"$IMAGES" || fail "image not imported: $IMAGES"
protoc -I "$ROOT/tests/nri" --python_out="$T" "$ROOT/tests/nri/cri.proto"

daemon_start pw
mkdir -p /etc/nri
jq -n --arg t "$T" '{version: "0.1", plugins: [{type: "podwire-nri",
	conf: {podwiredSocket: ($t + "/pw.sock"), stateDir: ($t + "/nri-state")}}]}' >"$CONF"
ALL=$(tr -d '\n' <"$CPUSET/cpuset.cpus")
REST=$($PY -c "import sys
s=set()
for r in sys.argv[1].split(','):
    a,_,b=r.partition('-'); s|=set(range(int(a),int(b or a)+1))
s.discard(int(sys.argv[2])); print(','.join(map(str,sorted(s))))" "$ALL" "$WORKER_CPU")

cri_run() { # NAME [ANNOTATIONS-JSON]: sets OUT, RC, SB, CID
	RC=0
	OUT=$(cri run "$1" "/$CGP" "$IMAGE" "${2:-{\}}") || RC=$?
	SB=$(head -n1 <<<"$OUT" | awk '{print $1}')
	CID=$(head -n1 <<<"$OUT" | awk '{print $2}')
	[ -z "$SB" ] || SANDBOXES+=("$SB")
}

# ---- a pod: its sandbox and container keep off the worker core -------------------------
cri_run pod1 '{}'
[ "$RC" -eq 0 ] || fail "pod1 did not start: $OUT"
ok "pod1 runs: sandbox $SB, container $CID"
for id in "$SB" "$CID"; do
	[ -f "$T/nri-state/$id.json" ] || fail "containerd did not call podwire-nri for $id"
	CGDIR=$(jq -r .cgroup "$T/nri-state/$id.json")
	expect_eq "$id's cgroup cpuset.cpus (workers: $WORKER_CPU)" "$REST" "$(tr -d '\n' <"$CGDIR/cpuset.cpus")"
	case "$CGDIR" in "$CPUSET/$CGP/"*) ;; *) fail "$id's cgroup $CGDIR is not under /$CGP" ;; esac
done
PID=$(cat "$TASKS/k8s.io/$CID/init.pid")
expect_eq "the container's process is allowed" "$REST" \
	"$(awk '/Cpus_allowed_list/ {print $2}' "/proc/$PID/status")"
cri rm "$SB" || fail "removing pod1"
wait_for 30 "delete to reach podwire-nri" test ! -e "$T/nri-state/$CID.json"
ok "containerd's delete removed the records"

# ---- a pod asking for the worker core does not start -----------------------------------
cri_run pod2 "{\"podwire.io/cores\": \"$WORKER_CPU\"}"
[ "$RC" -ne 0 ] || fail "pod2 started on podwired's worker core"
grep -qF "nri invoke: plugin: podwire-nri: container" <<<"$OUT" || fail "pod2's error: $OUT"
grep -qF "includes podwired's poll-mode worker core(s)" <<<"$OUT" || fail "pod2's error: $OUT"
ok "pod2 refused: $(tail -n 1 <<<"$OUT")"
LEFT=$(ctr -a "$SOCK" -n k8s.io tasks ls -q)
[ -z "$LEFT" ] || fail "the refused pod left tasks running: $LEFT"
ctl pw info >/dev/null || fail "podwired stopped serving"
ok "containerd 1.6 ran podwire-nri"
