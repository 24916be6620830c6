#!/bin/bash
# podwire-nri invoked exactly as containerd 1.6's NRI v0.1 client does
# (tests/nri/invoke.py: the host configuration, PATH + /opt/nri/bin, the
# argument "invoke", the request JSON, the result JSON), on the real cgroup
# v1 cpuset of processes this test starts: containers lose podwired's
# worker core; podwire.io/cores is honoured unless it takes a worker core
# or a CPU outside the container's own resources.cpu.cpus;
# nothing is left empty; update keeps the rule; delete forgets; podwired
# not running changes nothing; every bad request is an error result that
# changes nothing. cgroup v2 (which this host's cpuset controller is not
# on) against a tree laid out as the kernel's.
. "$(dirname "$0")/lib.sh"

NRI=$BUILD/podwire-nri
[ -x "$NRI" ] || fail "$NRI is not built"
CPUSET=/sys/fs/cgroup/cpuset
[ -f "$CPUSET/cpuset.cpus" ] || skip "no cgroup v1 cpuset hierarchy at $CPUSET"
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"

CG=$CPUSET/pwt$$
SLEEPS=()
nri_exit() {
	local p d
	for p in "${SLEEPS[@]}"; do kill -KILL "$p" 2>/dev/null; done
	for p in "${SLEEPS[@]}"; do wait "$p" 2>/dev/null; done
	# Children first; an emptied cgroup may take a moment to be removable.
	for d in $(find "$CG" -depth -type d 2>/dev/null); do
		for _ in $(seq 50); do rmdir "$d" 2>/dev/null && break; sleep 0.1; done
	done
}
on_exit nri_exit

# cg_make PATH CPUS: a cpuset cgroup under $CG with these CPUs.
cg_make() {
	mkdir -p "$CG/$1"
	echo "$2" >"$CG/$1/cpuset.cpus"
	cat "$CPUSET/cpuset.mems" >"$CG/$1/cpuset.mems"
}
mkdir -p "$CG"
cat "$CPUSET/cpuset.cpus" >"$CG/cpuset.cpus"
cat "$CPUSET/cpuset.mems" >"$CG/cpuset.mems"
# ctr_start NAME CGROUP: a "container" process in CGROUP; sets PID_<NAME>.
ctr_start() {
	sleep 600 &
	SLEEPS+=($!)
	echo $! >"$CG/$2/cgroup.procs"
	printf -v "PID_$1" '%s' $!
}
cpus_of() { tr -d '\n' <"$CG/$1/cpuset.cpus"; }

# The host configuration, as containerd reads it (/etc/nri/conf.json
# here in $T) and the plugin found through PATH, as containerd finds it.
mkdir -p "$T/nri-bin"
ln -s "$NRI" "$T/nri-bin/podwire-nri"
nri_conf() { # [EXTRA-CONF-JSON]
	local x=${1:-}
	[ -n "$x" ] || x='{}'
	jq -n --arg t "$T" --argjson x "$x" '{version: "0.1", plugins: [{type: "podwire-nri",
		conf: ({podwiredSocket: ($t + "/pw.sock"), stateDir: ($t + "/nri-state")} + $x)}]}' \
		>"$T/conf.json"
}
nri_conf
# spec PID CGROUPS-PATH [ANNOTATIONS-JSON] [RESOURCES-JSON]: the request's
# spec as containerd builds it from the OCI spec.
spec() {
	local a=${3:-} r=${4:-}
	[ -n "$a" ] || a='{}'
	[ -n "$r" ] || r='{"cpu": {"shares": 2}}'
	jq -nc --arg pid "$1" --arg cg "$2" --argjson a "$a" --argjson r "$r" '{resources: $r,
		namespaces: {pid: "/proc/\($pid)/ns/pid", network: "/proc/\($pid)/ns/net",
			mount: "/proc/\($pid)/ns/mnt", ipc: "/proc/\($pid)/ns/ipc", uts: "/proc/\($pid)/ns/uts"},
		cgroupsPath: $cg,
		annotations: ({"io.kubernetes.cri.container-type": "container",
			"io.kubernetes.cri.sandbox-id": "sb1"} + $a)}'
}
# invoke STATE ID PID SPEC: sets OUT and RC.
invoke() {
	RC=0
	OUT=$(PATH="$T/nri-bin:$PATH" python3 "$ROOT/tests/nri/invoke.py" "$T/conf.json" "$1" "$2" \
		sb1 "$3" "$4" '{"io.kubernetes.pod.name":"p1"}' 2>"$T/nri.err") || RC=$?
}
invoke_ok() { # WHAT STATE ID PID SPEC
	local what=$1
	shift
	invoke "$@"
	[ $RC -eq 0 ] || fail "$what: $OUT $(cat "$T/nri.err")"
	ok "$what: $OUT"
}
invoke_err() { # WHAT NEEDLE STATE ID PID SPEC
	local what=$1 needle=$2
	shift 2
	invoke "$@"
	[ $RC -ne 0 ] || fail "$what: succeeded: $OUT"
	grep -qF -- "$needle" <<<"$OUT" || fail "$what: error lacks \"$needle\": $OUT"
	ok "$what: $OUT"
}

daemon_start pw
expect_eq "podwired's worker core" "$WORKER_CPU" "$(ctlj pw info | jq -r '[.workers[].lcore] | join(",")')"
ALL=$(tr -d '\n' <"$CPUSET/cpuset.cpus")
REST=$(python3 -c "import sys
s=set()
for r in sys.argv[1].split(','):
    a,_,b=r.partition('-'); s|=set(range(int(a),int(b or a)+1))
s.discard(int(sys.argv[2])); print(','.join(map(str,sorted(s))))" "$ALL" "$WORKER_CPU")

# ---- create: off the worker core; update keeps it; delete forgets -----------------------
cg_make pod "$ALL"
cg_make pod/c1 "$ALL"
ctr_start c1 pod/c1
invoke_ok "create" create c1 "$PID_c1" "$(spec "$PID_c1" "/pwt$$/pod/c1")"
expect_eq "c1's cpuset.cpus" "$REST" "$(cpus_of pod/c1)"
expect_eq "the result's metadata" "$REST" "$(jq -r '.[0].metadata["cpuset.cpus"]' <<<"$OUT")"
expect_eq "the record" "$REST $CG/pod/c1" "$(jq -r '"\(.cpus) \(.cgroup)"' "$T/nri-state/c1.json")"
grep -q . "$CG/pod/c1/tasks" || fail "c1's process left its cgroup"
echo "$ALL" >"$CG/pod/c1/cpuset.cpus"
invoke_ok "update" update c1 "$PID_c1" "$(spec "$PID_c1" "/pwt$$/pod/c1")"
expect_eq "c1 after update" "$REST" "$(cpus_of pod/c1)"
invoke_ok "pause" pause c1 "$PID_c1" "$(spec "$PID_c1" "")"
invoke_ok "resume" resume c1 "$PID_c1" "$(spec "$PID_c1" "")"
expect_eq "c1 after pause/resume" "$REST" "$(cpus_of pod/c1)"
# The sandbox (its id is the sandbox id) and an empty cgroupsPath: the
# process's own /proc/<pid>/cgroup is what counts.
cg_make pod/sb "$ALL"
ctr_start sb pod/sb
invoke_ok "create the sandbox, no cgroupsPath" create sb1 "$PID_sb" "$(spec "$PID_sb" "")"
expect_eq "sandbox cpuset.cpus" "$REST" "$(cpus_of pod/sb)"
invoke_ok "delete" delete c1 0 "$(spec 0 "/pwt$$/pod/c1")"
[ ! -e "$T/nri-state/c1.json" ] || fail "delete left the record"
invoke_ok "delete again (nothing recorded)" delete c1 0 "$(spec 0 "")"
expect_eq "nothing removed" null "$(jq -r ".[0].metadata.removed" <<<"$OUT")"

# ---- podwire.io/cores ---------------------------------------------------------------
cg_make pod/d1 "$ALL"
ctr_start d1 pod/d1
invoke_ok "dedicated cores off the workers" create d1 "$PID_d1" \
	"$(spec "$PID_d1" "" "{\"podwire.io/cores\":\"$POD_CPU\"}")"
expect_eq "d1's cpuset.cpus" "$POD_CPU" "$(cpus_of pod/d1)"
expect_eq "d1's record" "podwire.io/cores" "$(jq -r .rule "$T/nri-state/d1.json")"
echo "$ALL" >"$CG/pod/d1/cpuset.cpus"
invoke_err "cores on a worker" "annotation podwire.io/cores=\"$WORKER_CPU\" includes podwired's poll-mode worker core(s); ask for cores of $ALL other than podwired's workers ($WORKER_CPU) [$WORKER_CPU]" \
	create d1 "$PID_d1" "$(spec "$PID_d1" "" "{\"podwire.io/cores\":\"$WORKER_CPU\"}")"
invoke_err "cores that are no list" 'annotation podwire.io/cores: "two" is not a CPU list such as "0-3,6"' \
	create d1 "$PID_d1" "$(spec "$PID_d1" "" '{"podwire.io/cores":"two"}')"
invoke_err "cores outside the cgroup" 'is not within its cgroup'"'"'s CPUs' \
	create d1 "$PID_d1" "$(spec "$PID_d1" "" '{"podwire.io/cores":"1000"}')"
# Within the pod's cgroup, only the container's own CPUs (its
# resources.cpu.cpus, e.g. a Guaranteed pod's exclusive ones) are its to
# ask for: not a CPU of another pod's.
invoke_err "cores outside the container's own cpus" \
	"annotation podwire.io/cores=\"$POD_CPU\" is not within the container's own CPUs (spec.resources.cpu.cpus \"$WORKER_CPU\"); ask for cores of $WORKER_CPU other than podwired's workers ($WORKER_CPU), or give the container the cores it names" \
	create d1 "$PID_d1" "$(spec "$PID_d1" "" "{\"podwire.io/cores\":\"$POD_CPU\"}" "{\"cpu\":{\"cpus\":\"$WORKER_CPU\"}}")"
invoke_err "cores with unreadable resources.cpu.cpus" 'spec.resources.cpu.cpus: ' \
	create d1 "$PID_d1" "$(spec "$PID_d1" "" "{\"podwire.io/cores\":\"$POD_CPU\"}" '{"cpu":{"cpus":"x"}}')"
expect_eq "refused requests left d1 alone" "$ALL" "$(cpus_of pod/d1)"
invoke_ok "cores within the container's own cpus" create d1 "$PID_d1" \
	"$(spec "$PID_d1" "" "{\"podwire.io/cores\":\"$POD_CPU\"}" "{\"cpu\":{\"cpus\":\"$ALL\"}}")"
expect_eq "d1's cpuset.cpus" "$POD_CPU" "$(cpus_of pod/d1)"

# ---- never empty ---------------------------------------------------------------------
cg_make tight "$WORKER_CPU"
cg_make tight/t1 "$WORKER_CPU"
ctr_start t1 tight/t1
invoke_err "only worker cores allowed" "container t1: every CPU it may use ($WORKER_CPU) is a poll-mode worker core of podwired ($WORKER_CPU), so none would be left; give the pod other CPUs, or podwired other --worker-cores" \
	create t1 "$PID_t1" "$(spec "$PID_t1" "")"
expect_eq "t1 unchanged" "$WORKER_CPU" "$(cpus_of tight/t1)"
cg_make pod/r1 "$ALL"
ctr_start r1 pod/r1
invoke_err "resources.cpu.cpus only the worker" "every CPU it may use ($WORKER_CPU)" \
	create r1 "$PID_r1" "$(spec "$PID_r1" "" '{}' "{\"cpu\":{\"cpus\":\"$WORKER_CPU\"}}")"
expect_eq "r1 unchanged" "$ALL" "$(cpus_of pod/r1)"
[ ! -e "$T/nri-state/t1.json" ] && [ ! -e "$T/nri-state/r1.json" ] || fail "a refusal was recorded"

# ---- bad requests: an error result, nothing changed -------------------------------------
raw() { # STDIN [ARGS...]: the plugin run directly
	local in=$1
	shift
	RC=0
	OUT=$(printf '%s' "$in" | "$NRI" "$@" 2>/dev/null) || RC=$?
}
raw 'not json' invoke
expect_eq "not JSON: exit, error" "1 the request on stdin is not JSON" "$RC $(jq -r .error <<<"$OUT")"
raw '{"version":"0.2","state":"create","id":"x","pid":1,"spec":{}}' invoke
expect_eq "version 0.2" '1 request "version" is "0.2"; podwire-nri speaks NRI 0.1' "$RC $(jq -r .error <<<"$OUT")"
raw '{"version":"0.1","state":"boot","id":"x","spec":{}}' invoke
grep -qF 'request \"state\" is \"boot\"; NRI 0.1 states are create, update, delete, pause and resume' <<<"$OUT" ||
	fail "unknown state: $OUT"
raw '{"version":"0.1","state":"create","id":"../x","pid":1,"spec":{}}' invoke
grep -qF 'request \"id\" is missing or not a container id' <<<"$OUT" || fail "bad id: $OUT"
raw '{"version":"0.1","state":"create","id":"x","spec":{}}' invoke
grep -qF 'request has no \"pid\"' <<<"$OUT" || fail "no pid: $OUT"
raw '{"version":"0.1","state":"create","id":"x","pid":1,"spec":{},"conf":{"stateDir":"rel"}}' invoke
grep -qF 'must be absolute paths' <<<"$OUT" || fail "relative stateDir: $OUT"
raw '{}' ; expect_eq "no invoke argument: usage" 2 "$RC"
ok "bad requests answered with errors"
nri_conf '{"podwiredSocket": "/nonexistent/elsewhere.sock", "cgroupRoot": "/sys/fs/cgroup"}'
echo "$ALL" >"$CG/pod/c1/cpuset.cpus"
invoke_ok "podwired not running: nothing to keep off" create c1 "$PID_c1" "$(spec "$PID_c1" "")"
expect_eq "skipped, said so" "podwired is not running: no worker core" "$(jq -r '.[0].metadata.skipped' <<<"$OUT")"
expect_eq "c1 unchanged" "$ALL" "$(cpus_of pod/c1)"
nri_conf
daemon_stop pw
invoke_ok "podwired stopped (stale socket path)" create c1 "$PID_c1" "$(spec "$PID_c1" "")"
expect_eq "c1 unchanged" "$ALL" "$(cpus_of pod/c1)"
rm -f "$T/conf.json"
invoke_ok "no /etc/nri/conf.json: no plugin runs" create c1 "$PID_c1" "$(spec "$PID_c1" "")"
expect_eq "no results" "[]" "$OUT"
daemon_start pw
nri_conf

# ---- cgroup v2: a unified tree laid out as the kernel's --------------------------------
# This host's cpuset controller is on v1; the plugin is pointed at a tree
# with the files cgroup v2 has (cgroupRoot) and a /proc/<pid>/cgroup
# saying "0::/PATH" (procRoot).
V2=$T/cg2
mkdir -p "$V2/kubepods/ctr9" "$V2/kubepods/nocpuset" "$T/proc/4242" "$T/proc/4343"
echo "cpuset cpu io memory pids" >"$V2/cgroup.controllers"
echo "$ALL" >"$V2/kubepods/cpuset.cpus.effective"
echo "$ALL" >"$V2/kubepods/ctr9/cpuset.cpus"
echo "0::/kubepods/ctr9" >"$T/proc/4242/cgroup"
echo "0::/kubepods/nocpuset" >"$T/proc/4343/cgroup"
nri_conf "{\"cgroupRoot\": \"$V2\", \"procRoot\": \"$T/proc\"}"
invoke_ok "cgroup v2 create" create ctr9 4242 "$(spec 4242 "kubepods-ctr9.slice:cri:ctr9")"
expect_eq "v2 cpuset.cpus" "$REST" "$(tr -d '\n' <"$V2/kubepods/ctr9/cpuset.cpus")"
expect_eq "v2 record" 2 "$(jq -r .cgroupVersion "$T/nri-state/ctr9.json")"
invoke_err "cgroup v2 without the cpuset controller" \
	"$V2/kubepods/nocpuset has no cpuset.cpus: the cpuset controller is not enabled for it; enable it in its parents (echo +cpuset > PARENT/cgroup.subtree_control)" \
	create x9 4343 "$(spec 4343 "")"
invoke_err "a process that is gone" "cannot read $T/proc/999999/cgroup: No such file or directory; is process 999999 (the container's) running?" \
	create gone 999999 "$(spec 999999 "")"
ctl pw info >/dev/null || fail "podwired stopped serving"
ok "podwire-nri as containerd invokes it"
