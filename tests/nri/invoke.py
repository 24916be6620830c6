#!/usr/bin/env python3
"""Invokes NRI v0.1 plugins exactly as containerd 1.6's client does
(github.com/containerd/nri v0.1.0 client.go, InvokeWithSandbox): reads the
host configuration (absent: no plugins), appends /opt/nri/bin to PATH,
runs each plugin by its type name with the single argument "invoke", the
request JSON on stdin (the fields and their omitempty rules of
types/v1.Request, in its order), stderr passed through, and reads a
Result from stdout; a result that does not parse, or has an error, fails
the call with the message containerd would log.

usage: invoke.py CONF STATE ID SANDBOX-ID PID SPEC-JSON [LABELS-JSON]
Prints the results list (JSON); exits 1 with "plugin: TYPE: ERROR" on
failure, as containerd's error reads.
"""
import json
import os
import shutil
import subprocess
import sys


def main():
    conf_path, state, cid, sandbox, pid, spec = sys.argv[1:7]
    labels = json.loads(sys.argv[7]) if len(sys.argv) > 7 else None
    try:
        with open(conf_path) as f:
            conf = json.load(f)
    except FileNotFoundError:
        conf = {"version": "0.1"}
    plugins = conf.get("plugins") or []
    if not plugins:
        print("[]")
        return 0
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + ":/opt/nri/bin"
    req = {}
    results = []
    for p in plugins:
        # Go's json.Marshal of types.Request: field order, omitempty.
        req = {}
        if p.get("conf") is not None:
            req["conf"] = p["conf"]
        req["version"] = conf.get("version", "")
        req["state"] = state
        req["id"] = cid
        if sandbox:
            req["sandboxID"] = sandbox
        if int(pid) != 0:
            req["pid"] = int(pid)
        req["spec"] = json.loads(spec)
        if labels:
            req["labels"] = labels
        if results:
            req["results"] = results
        exe = shutil.which(p["type"], path=env["PATH"])
        if exe is None:
            print(f'plugin: {p["type"]}: exec: "{p["type"]}": executable file not found in $PATH')
            return 1
        proc = subprocess.run([p["type"], "invoke"], executable=exe, input=json.dumps(req).encode(),
                              stdout=subprocess.PIPE, env=env, cwd="/")
        out = proc.stdout
        msg = "output: " + (repr(out.decode()) if out else "<empty>")
        if proc.returncode != 0:
            msg += f" exit code: {proc.returncode}"
        try:
            result = json.loads(out)
        except ValueError as e:
            print(f'plugin: {p["type"]}: failed to unmarshal plugin output {msg}: {e}')
            return 1
        if result.get("error"):
            print(f'plugin: {p["type"]}: {result["error"]}')
            return 1
        results.append(result)
    print(json.dumps(results))
    return 0


sys.exit(main())
