#!/bin/bash
# podwire's systemd units, as the setup step installs them: systemd itself
# (systemd-analyze verify) finds them well formed, their programs exist,
# and podwired's restarts always, without a start limit, and keeps the
# pods' socket directory across restarts. (No systemd runs as PID 1 on the
# test machine: the restart itself is not exercised here; see
# test_crash_recovery.sh for what a restart brings back.)
. "$(dirname "$0")/lib.sh"

command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (apt-get install systemd)"
UNITS=()
for u in /usr/local/lib/systemd/system/podwired.service \
	/usr/local/lib/systemd/system/podwire-docker.service; do
	[ -f "$u" ] || fail "$u is not installed; run .ci/setup (meson install)"
	UNITS+=("$u")
done
out=$(SYSTEMD_LOG_LEVEL=warning systemd-analyze verify "${UNITS[@]}" 2>&1) ||
	fail "systemd-analyze verify: $out"
# verify also warns without failing on unknown keys and sections.
[ -z "$(grep -v 'Failed to connect to bus\|Cannot add dependency job' <<<"$out" || true)" ] ||
	fail "systemd-analyze verify has something to say: $out"
ok "systemd-analyze verify finds the units well formed"
u=/usr/local/lib/systemd/system/podwired.service
prop() { grep -E "^$1=" "$u" | tail -n1 | cut -d= -f2-; }
expect_eq "podwired.service Restart" always "$(prop Restart)"
expect_eq "podwired.service StartLimitIntervalSec" 0 "$(prop StartLimitIntervalSec)"
expect_eq "podwired.service RuntimeDirectoryPreserve" yes "$(prop RuntimeDirectoryPreserve)"
exe=$(prop ExecStart | cut -d' ' -f1)
[ -x "$exe" ] || fail "podwired.service runs $exe, which is not installed"
"$exe" --help >/dev/null || fail "$exe --help failed"
ok "podwired.service runs $exe"
u=/usr/local/lib/systemd/system/podwire-docker.service
expect_eq "podwire-docker.service Restart" always "$(prop Restart)"
exe=$(prop ExecStart | cut -d' ' -f1)
[ -x "$exe" ] || fail "podwire-docker.service runs $exe, which is not installed"
ok "podwire-docker.service runs $exe"
