#!/bin/bash
# Crash recovery at full size: podwired killed with SIGKILL and started
# again 20 times under traffic between 8 pods (3 vhost-user pods podwired
# serves, 3 vhost-user pods it connects to, 2 memif pods; 56 directions),
# then 20 times during heavy API churn. Prints the time from each restart
# to the first frame of every direction (per pair p50/max, per restart,
# overall), the pods' link-up times by kind, and the churn results
# (configuration lost, kills that landed while the state file was being
# written).
#
# Usage: perf/bench_crash.sh [--restarts N] [--churn-kills N] [--rate PPS]
#                            [--bulk N] [--out DIR] [--json FILE]
#   --bulk N  ports that stay during the churn (default 300): a bigger state
#             file takes longer to write, so more kills land in a write
# It runs tests/smoke/test_crash_recovery.sh at this size (the procedure is
# one, and its checks hold at full size too) and reports its raw data. The
# issue's goal: every pair back in under 2 s, 0 configuration lost.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
RESTARTS=20
KILLS=20
RATE=56000
BULK=300
OUT=""
JSON_OUT=""
while [ $# -gt 0 ]; do
	case $1 in
	--restarts) RESTARTS=$2; shift 2 ;;
	--churn-kills) KILLS=$2; shift 2 ;;
	--rate) RATE=$2; shift 2 ;;
	--bulk) BULK=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--json) JSON_OUT=$2; shift 2 ;;
	*) sed -n '/^# Usage/,/^# It runs/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2 ;;
	esac
done
OUT=${OUT:-$ROOT/perf/results/crash-$(date -u +%Y%m%dT%H%M%SZ)}
mkdir -p "$OUT"

echo "bench_crash: $RESTARTS restarts under traffic ($RATE frames/s over 56 directions)," \
	"$KILLS kills during API churn beside $BULK ports; log in $OUT/run.log"
rc=0
CRASH_RESTARTS=$RESTARTS CRASH_CHURN_KILLS=$KILLS CRASH_RATE=$RATE CRASH_BULK_PORTS=$BULK \
	CRASH_OUT=$OUT \
	bash "$ROOT/tests/smoke/test_crash_recovery.sh" >"$OUT/run.log" 2>&1 || rc=$?
if [ $rc != 0 ]; then
	tail -n 30 "$OUT/run.log"
	echo "bench_crash: the run failed (status $rc); see $OUT/run.log" >&2
	exit 1
fi

echo
python3 "$ROOT/tests/crash/recovery.py" "$OUT/events.jsonl" "$OUT/restarts" --json "$OUT/recovery.json"
echo
jq -r '"churn: \(.kills) kills at random moments, \(.kills_while_writing) of them while the state file was being written;",
	"       \(.requests_answered) requests answered, \(.requests_in_flight) in flight at a kill (\(.in_flight_done) had happened, \(.in_flight_not_done) had not);",
	"       \(.ports_checked) ports checked after the restarts; podwired started every time; configuration lost: \(.configuration_lost)"' \
	"$OUT/churn.json"
max=$(jq '.overall_ms.max' "$OUT/recovery.json")
if jq -e '.overall_ms.max < 2000 and (.missing | length) == 0' "$OUT/recovery.json" >/dev/null; then
	echo "goal: every pair back in under 2 s after each restart: met (slowest $(printf '%.0f' "$max") ms)"
else
	echo "goal: every pair back in under 2 s after each restart: NOT met (slowest $(printf '%.0f' "$max") ms)"
fi
jq -s '{recovery: .[0] | del(.per_restart[].link_up_ms), churn: .[1]}' "$OUT/recovery.json" \
	"$OUT/churn.json" >"$OUT/summary.json"
[ -z "$JSON_OUT" ] || cp "$OUT/summary.json" "$JSON_OUT"
