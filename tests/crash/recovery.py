#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Restart-to-first-frame figures from podwire-bench's --events and the
restart times of a crash test.

  recovery.py EVENTS RESTARTS [--json OUT] [--bound SECONDS]

EVENTS: podwire-bench --events (JSON lines). RESTARTS: one line per
restart, "N KILL_NS RESTART_NS MARK": podwired was killed at KILL_NS,
started again at RESTART_NS, and the generator was given mark MARK just
before that start. For each restart and each ordered pair of pods, the
figure is the time from the restart to the arrival of that direction's
first frame sent after the mark (the generator's "resumed" event): a frame
podwired can only have carried once it was back.

Prints, in milliseconds: per ordered pair p50 and max over the restarts;
per restart the slowest pair (every pair back); overall p50/max of all
pair samples; per pod kind the restart-to-link-up time the pods saw.
p50 is the median (nearest rank). With --bound, exits 1 when a pair did
not resume after a restart, or took longer than SECONDS.
"""
import argparse
import json
import math
import sys


def pct(values, p):
    v = sorted(values)
    return v[max(0, math.ceil(p * len(v)) - 1)] if v else None


def kind_of(pod):
    if pod["device"].startswith(("net_memif", "memif")):
        return "memif"
    return "vhost-server=1" if pod["reconnects_itself"] else "vhost-client"


def analyse(events_path, restarts_path):
    pods, resumed, link_up = {}, {}, []
    with open(events_path) as f:
        for line in f:
            e = json.loads(line)
            if e["event"] == "pod":
                pods[e["pod"]] = e
            elif e["event"] == "resumed":
                resumed.setdefault(e["mark"], {})[(e["src"], e["dst"])] = e
            elif e["event"] == "link_up":
                link_up.append(e)
    restarts = []
    with open(restarts_path) as f:
        for line in f:
            if line.strip():
                n, k, r, m = (int(x) for x in line.split())
                restarts.append({"n": n, "kill_ns": k, "restart_ns": r, "mark": m})
    pairs = [(a, b) for a in sorted(pods) for b in sorted(pods) if a != b]
    per_pair = {p: [] for p in pairs}
    missing, per_restart = [], []
    for i, r in enumerate(restarts):
        got = resumed.get(r["mark"], {})
        worst = 0.0
        for p in pairs:
            e = got.get(p)
            if e is None:
                missing.append((r["n"], p))
                continue
            ms = (e["rx_ns"] - r["restart_ns"]) / 1e6
            per_pair[p].append(ms)
            worst = max(worst, ms)
        # The pods' links after this restart, before the next kill.
        end = restarts[i + 1]["kill_ns"] if i + 1 < len(restarts) else float("inf")
        ups = {}
        for e in link_up:
            if r["restart_ns"] < e["t_ns"] < end and e["pod"] not in ups:
                ups[e["pod"]] = (e["t_ns"] - r["restart_ns"]) / 1e6
        per_restart.append({"restart": r["n"], "all_pairs_ms": round(worst, 1),
                            "kill_to_restart_ms": round((r["restart_ns"] - r["kill_ns"]) / 1e6, 1),
                            "link_up_ms": ups})
    samples = [v for vs in per_pair.values() for v in vs]
    kinds = {}
    for r in per_restart:
        for pod, ms in r["link_up_ms"].items():
            kinds.setdefault(kind_of(pods[pod]), []).append(ms)
    return {
        "pods": {str(p): {"device": pods[p]["device"], "kind": kind_of(pods[p])} for p in sorted(pods)},
        "restarts": len(restarts),
        "pairs": len(pairs),
        "samples": len(samples),
        "missing": [{"restart": n, "src": a, "dst": b} for n, (a, b) in missing],
        "overall_ms": {"p50": pct(samples, 0.5), "max": max(samples) if samples else None},
        "per_pair_ms": [{"src": a, "dst": b, "p50": pct(v, 0.5), "max": max(v) if v else None,
                         "n": len(v)} for (a, b), v in per_pair.items()],
        "per_restart": per_restart,
        "link_up_ms_by_kind": {k: {"p50": pct(v, 0.5), "max": max(v), "n": len(v)}
                               for k, v in sorted(kinds.items())},
    }


def fmt(ms):
    return "-" if ms is None else "%.0f" % ms


def report(res):
    pods = res["pods"]
    n = len(pods)
    print("restart to first frame, ms, p50/max over %d restarts (row: from, column: to)"
          % res["restarts"])
    print("%-22s" % "" + "".join("%12s" % ("to %s" % p) for p in pods))
    cells = {(c["src"], c["dst"]): c for c in res["per_pair_ms"]}
    for a in range(n):
        row = "%-22s" % ("%d %s" % (a, pods[str(a)]["kind"]))
        for b in range(n):
            c = cells.get((a, b))
            row += "%12s" % ("" if c is None else "%s/%s" % (fmt(c["p50"]), fmt(c["max"])))
        print(row)
    print("per restart, slowest pair (ms): " + " ".join(
        "%d:%s" % (r["restart"], fmt(r["all_pairs_ms"])) for r in res["per_restart"]))
    for k, v in res["link_up_ms_by_kind"].items():
        print("pods' link up after the restart, %-15s p50 %s ms, max %s ms (%d)"
              % (k, fmt(v["p50"]), fmt(v["max"]), v["n"]))
    o = res["overall_ms"]
    print("overall: %d pairs x %d restarts = %d samples, p50 %s ms, max %s ms; %d missing"
          % (res["pairs"], res["restarts"], res["samples"], fmt(o["p50"]), fmt(o["max"]),
             len(res["missing"])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("events")
    ap.add_argument("restarts")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--bound", type=float, help="fail beyond this many seconds")
    args = ap.parse_args()
    res = analyse(args.events, args.restarts)
    report(res)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if args.bound is not None:
        bad = [m for m in res["missing"]]
        slow = [c for c in res["per_pair_ms"] if c["max"] is not None and c["max"] > args.bound * 1000]
        for m in bad:
            print("recovery: pod %d -> pod %d did not resume after restart %d"
                  % (m["src"], m["dst"], m["restart"]), file=sys.stderr)
        for c in slow:
            print("recovery: pod %d -> pod %d took %.0f ms, over the bound of %g s"
                  % (c["src"], c["dst"], c["max"], args.bound), file=sys.stderr)
        if bad or slow or res["samples"] == 0:
            sys.exit(1)


if __name__ == "__main__":
    main()
