#!/bin/bash
# Bad input to the podwire CNI plugin: each gets a CNI error object with
# the spec's code and a message naming what to fix, leaves nothing behind
# (no port, directory, record or IP) and leaves podwired serving. Also:
# podwired down (ADD: code 11; DEL still succeeds and the port goes once
# podwired is back), IPAM missing or failing, and a failure after IPAM
# (the address is released in the rollback). DEL removes a device-info
# file only when podwire wrote it.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cni_lib.sh"

daemon_start pw
cni_conf >"$T/good.json"

# still_clean WHAT: nothing was left and podwired still answers.
still_clean() {
	expect_clean "$1"
	ctl pw info >/dev/null || fail "$1: podwired stopped serving"
}

# ---- the environment -----------------------------------------------------------
for v in CNI_COMMAND CNI_CONTAINERID CNI_NETNS CNI_IFNAME CNI_PATH; do
	cni -u $v ADD pod1 net1 "$T/good.json"
	cni_err "ADD without $v" 4 "$v is not set"
done
for v in CNI_CONTAINERID CNI_IFNAME CNI_PATH; do
	cni -u $v DEL pod1 net1 "$T/good.json"
	cni_err "DEL without $v" 4 "$v is not set"
done
cni -u CNI_PATH GC "" "" "$T/good.json"
cni_err "GC without CNI_PATH" 4 "CNI_PATH is not set"
cni ADD pod1 net1 "$T/good.json" CNI_COMMAND=FROB
cni_err "unknown CNI_COMMAND" 4 'CNI_COMMAND "FROB" is not known'
cni ADD -pod1 net1 "$T/good.json"
cni_err "bad container id" 4 'CNI_CONTAINERID "-pod1" has'
cni ADD pod1 net1/x "$T/good.json"
cni_err "bad interface name" 4 'CNI_IFNAME "net1/x"'
cni ADD pod1 net1 "$T/good.json" "CNI_ARGS=IgnoreUnknown=1;MAC=02:00:00:00:00"
cni_err "bad MAC in CNI_ARGS" 4 'CNI_ARGS MAC: MAC "02:00:00:00:00" is not of the form'
still_clean "after bad environments"

# ---- the config ----------------------------------------------------------------
printf '{"cniVersion": "1.1.0", "name": ' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "malformed JSON" 6 "not valid JSON"
: >"$T/empty.json"
cni ADD pod1 net1 "$T/empty.json"
cni_err "empty stdin" 6 "no network config on stdin"
cni_conf '.cniVersion = "0.2.0"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "unsupported cniVersion" 1 '"cniVersion" "0.2.0" is not supported'
cni_conf '.iftype = "tap"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "unknown iftype" 7 '"iftype" is "tap"; use "vhost-user"'
cni_conf '.mode = "listen"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "unknown vhost-user mode" 7 '"mode" is "listen", not a vhost-user mode; use "client"'
cni_conf '.iftype = "memif" | .mode = "server"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "unknown memif role" 7 'not a memif role; use "slave"'
cni_conf '.mac = "02:00:00:00:00:zz"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "bad MAC in the config" 7 '"mac": MAC "02:00:00:00:00:zz" is not of the form'
cni_conf '.runtimeConfig = {mac: "01:00:5e:00:00:01"}' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "multicast MAC in runtimeConfig" 7 'is a multicast address'
LONG=$T/$(printf 'd%.0s' $(seq 90))
cni_conf ".socketDir = \"$LONG\"" >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "socket path too long" 7 "\"socketDir\" is $((${#LONG})) bytes, the limit is 87"
cni_conf ".podSocketDir = \"$LONG\"" >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "pod socket path too long" 7 '"podSocketDir" is'
cni_conf '.mtu = 10000' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "MTU out of range" 7 '"mtu" is 10000, it must be 68-9000 (bytes)'
cni_conf '.socketGroup = "no-such-group-pw"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "unknown socketGroup" 7 'group "no-such-group-pw" does not exist'
[ ! -e "$LONG" ] || fail "a refused config created $LONG"
# "queues": podwired's 1-16 queue pairs, an integer, not for a VF.
for q in 0 17; do
	cni_conf ".queues = $q" >"$T/bad.json"
	cni ADD pod1 net1 "$T/bad.json"
	cni_err "queues $q" 7 "\"queues\" is $q, it must be 1-16 (queue pairs)"
done
cni_conf '.iftype = "memif" | .queues = "2"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "queues as a string" 7 '"queues" must be an integer (1-16 (queue pairs)'
cni_conf 'del(.network) | .iftype = "pci" | .physnet = "phys0" | .queues = 2' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "queues on iftype pci" 2 '"queues": 2 does not apply to iftype "pci": a VF'"'"'s queues are the VF'"'"'s own'
still_clean "after bad configs"

# ---- IPAM missing or failing ---------------------------------------------------
cni_conf '.ipam.type = "no-such-ipam"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "IPAM plugin missing" 101 'IPAM plugin "no-such-ipam" ("ipam.type") is not an executable in CNI_PATH'
still_clean "after a missing IPAM plugin"

cat >"$CNI_BIN/failing-ipam" <<-'EOF'
	#!/bin/sh
	# A broken IPAM plugin: reads its config, answers with an error.
	cat >/dev/null
	[ "$CNI_COMMAND" = VERSION ] && { echo '{"cniVersion":"1.0.0","supportedVersions":["1.0.0","1.1.0"]}'; exit 0; }
	[ "$CNI_COMMAND" = DEL ] && exit 0
	echo '{"cniVersion":"1.1.0","code":999,"msg":"no addresses left in pool","details":"pool x"}'
	exit 1
EOF
chmod +x "$CNI_BIN/failing-ipam"
cni_conf '.ipam.type = "failing-ipam"' >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "IPAM plugin failing" 101 'IPAM plugin "failing-ipam" failed on ADD: no addresses left in pool'
expect_eq "the IPAM plugin's details are passed on" "pool x" "$(jq -r .details "$T/cni.out")"
still_clean "after a failing IPAM plugin"

# A failure after IPAM succeeded: the device-info file cannot be written
# (its directory would be under a regular file). host-local's address must
# be released by the rollback.
touch "$T/not-a-dir"
cni_conf ".runtimeConfig = {CNIDeviceInfoFile: \"$T/not-a-dir/cni/x-device.json\"}" >"$T/bad.json"
cni ADD pod1 net1 "$T/bad.json"
cni_err "device-info file not writable" 102 "$T/not-a-dir/cni"
still_clean "after a failure past IPAM"

# ---- CHECK finds what is missing ------------------------------------------------
cni ADD pod2 net1 "$T/good.json"
cni_ok "ADD pod2"
jq --slurpfile r "$T/cni.out" '. + {prevResult: $r[0]}' "$T/good.json" >"$T/pod2.json"
DIR2=$(dirname "$(jq -r '.prevResult.interfaces[0].socketPath' "$T/pod2.json")")
cni CHECK pod2 net1 "$T/pod2.json"
cni_ok "CHECK pod2"
mv "$DIR2/podwire.json" "$T/saved.json"
cni CHECK pod2 net1 "$T/pod2.json"
cni_err "CHECK with podwire.json gone" 103 "$DIR2/podwire.json is missing"
mv "$T/saved.json" "$DIR2/podwire.json"
ctl pw port del "$(jq -r .port "$DIR2/podwire.json")"
cni CHECK pod2 net1 "$T/pod2.json"
cni_err "CHECK with the port gone" 103 "podwired has no port"
cni DEL pod2 net1 "$T/pod2.json"
cni_ok "DEL pod2 whose port is gone"
cni CHECK pod2 net1 "$T/pod2.json"
cni_err "CHECK after DEL" 103 "no record of pod2/net1"
# A port that offers fewer queue pairs than the pod was told.
cni_conf '.queues = 2' >"$T/q2.json"
cni ADD pod6 net1 "$T/q2.json"
cni_ok "ADD pod6 with 2 queue pairs"
jq --slurpfile r "$T/cni.out" '. + {prevResult: $r[0]}' "$T/q2.json" >"$T/pod6.json"
cni CHECK pod6 net1 "$T/pod6.json"
cni_ok "CHECK pod6"
PJ6=$(ls "$T"/pods/*/podwire.json)
PORT6=$(jq -r .port "$PJ6")
ctl pw port del "$PORT6"
ctl pw port add "$PORT6" --network cninet --type vhost-user --socket "$(jq -r .hostSocket "$PJ6")" \
	--mac "$(jq -r .mac "$PJ6")" >/dev/null
cni CHECK pod6 net1 "$T/pod6.json"
cni_err "CHECK of a port with 1 queue pair" 103 "port \"$PORT6\" offers 1 queue pair(s), the pod was told 2"
cni DEL pod6 net1 "$T/pod6.json"
cni_ok "DEL pod6"
still_clean "after CHECK and DEL"

# ---- DEL removes only the files podwire wrote --------------------------------------
# The device-info path is the runtime's: with no record of the attachment,
# or after another plugin wrote over podwire's file, DEL leaves the file.
mkdir -p "$T/devinfo"
OTHER='{"type":"pci","version":"1.1.0","pci":{"pci-address":"0000:01:02.2"}}'
echo "$OTHER" >"$T/devinfo/sriov-device.json"
cni_conf ".runtimeConfig = {CNIDeviceInfoFile: \"$T/devinfo/sriov-device.json\"}" >"$T/di.json"
cni DEL pod5 net1 "$T/di.json"
cni_ok "DEL of an attachment podwire never made"
expect_eq "DEL with no record left the device-info file" "$OTHER" "$(cat "$T/devinfo/sriov-device.json")"
cni_conf ".runtimeConfig = {CNIDeviceInfoFile: \"$T/devinfo/pod5-device.json\"}" >"$T/di5.json"
cni ADD pod5 net1 "$T/di5.json"
cni_ok "ADD pod5 with a device-info file"
echo "$OTHER" >"$T/devinfo/pod5-device.json"
cni DEL pod5 net1 "$T/di5.json"
cni_ok "DEL pod5 after another plugin wrote over its device-info file"
expect_eq "DEL left the other plugin's file" "$OTHER" "$(cat "$T/devinfo/pod5-device.json")"
grep -qF "is not the one podwire wrote" "$T/cni.err" || fail "DEL did not say why: $(cat "$T/cni.err")"
cni ADD pod5 net1 "$T/di5.json"
cni_ok "ADD pod5 again"
cni DEL pod5 net1 "$T/di5.json"
cni_ok "DEL pod5"
[ ! -e "$T/devinfo/pod5-device.json" ] || fail "DEL left podwire's own device-info file"
rm -r "$T/devinfo"
still_clean "after DELs with device-info files"

# ---- podwired down ---------------------------------------------------------------
cni ADD pod3 net1 "$T/good.json"
cni_ok "ADD pod3"
jq --slurpfile r "$T/cni.out" '. + {prevResult: $r[0]}' "$T/good.json" >"$T/pod3.json"
PORT3=$(jq -r .port "$T/pods"/*/podwire.json)
daemon_stop pw
cni ADD pod4 net1 "$T/good.json"
cni_err "ADD with podwired down" 11 "cannot connect to podwired"
cni STATUS "" "" "$T/good.json"
cni_err "STATUS with podwired down" 50 "podwired is not reachable"
cni DEL pod3 net1 "$T/pod3.json"
cni_ok "DEL with podwired down"
[ -z "$(ls -A "$T/pods")" ] || fail "DEL left $(ls -A "$T/pods")"
[ -z "$(ipam_held)" ] || fail "DEL left IPs: $(ipam_held)"
[ -f "$T/cnidata/pending/$PORT3.json" ] || fail "DEL did not remember to delete $PORT3"
ok "DEL removed files, record and IP; $PORT3 is pending"
cni DEL pod3 net1 "$T/pod3.json"
cni_ok "DEL again with podwired down"

# podwired comes back with the port from its state file; the next ADD that
# reaches podwired removes it.
daemon_start pw
ctl pw port show "$PORT3" >/dev/null || fail "podwired did not restore $PORT3 (test assumption)"
cni ADD pod4 net1 "$T/good.json"
cni_ok "ADD pod4 with podwired back"
ctl pw port show "$PORT3" >/dev/null 2>&1 && fail "the pending port $PORT3 is still in podwired"
[ ! -e "$T/cnidata/pending/$PORT3.json" ] || fail "the pending entry of $PORT3 stayed"
ok "the port left while podwired was down is gone"
cni DEL pod4 net1 "$T/good.json"
cni_ok "DEL pod4"
still_clean "at the end"
