#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Heavy API churn, SIGKILL at a random moment, and a check of what the
restarted podwired restored.

  churn.py run   --socket S --pid PID --sockdir D --round R --plan OUT.json
                 [--clients N] [--live K] [--kill-after MIN,MAX] [--seed N]
  churn.py check --socket S --plan PLAN.json

run: N clients, each on its own connection, create and delete ports of
every kind (null, vhost-user server and client, memif) with varied
settings on the network "churn", as fast as podwired answers, each owning
its own port names. After a random time podwired (PID) is killed with
SIGKILL. What each client was told is written to the plan: a port whose
last answered request was a create must be there as created; one whose
last answered request was a delete must be gone; a request that got no
answer (in flight at the kill) may have happened or not. Every other
port and every network must be as they were before the round.

check: after the restart, podwired's ports and networks must be exactly
the plan's: one of the states that the answered requests, plus any subset
of the unanswered ones (each client has at most one), leave. Every port
present must be whole: every field it was created with, and its socket
when podwired is the server. Prints one JSON line of figures; exits 1
with the differences otherwise.
"""
import argparse
import json
import os
import random
import signal
import socket
import sys
import threading
import time

NETWORK = "churn"
PREFIX = "ch"
# Fields that describe a port's life, not its configuration.
LIVE = ("link", "worker", "memif", "vhost_user", "stats")


class Conn:
    """One JSON-RPC connection to podwired."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.settimeout(30)
        self.s.connect(path)
        self.buf = b""
        self.id = 0

    def call(self, method, params=None):
        """The answer object; raises OSError/EOFError when none came."""
        self.id += 1
        req = {"jsonrpc": "2.0", "id": self.id, "method": method}
        if params is not None:
            req["params"] = params
        self.s.sendall((json.dumps(req) + "\n").encode())
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("podwired closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def close(self):
        self.s.close()


def config(port):
    return {k: v for k, v in port.items() if k not in LIVE}


def snapshot(path):
    c = Conn(path)
    # A network's port list is checked port by port.
    nets = [{k: v for k, v in n.items() if k != "ports"} for n in c.call("network.list")["result"]["networks"]]
    ports = c.call("port.list")["result"]["ports"]
    c.close()
    return sorted(nets, key=lambda n: n["name"]), {p["name"]: config(p) for p in ports}


def port_params(rng, name, sockdir):
    """A create request for one of the kinds, with varied settings."""
    kind = rng.choice(["null", "vhost-user", "vhost-user-client", "memif"])
    p = {"name": name, "network": NETWORK, "mtu": rng.choice([1400, 1500, 9000])}
    if kind == "vhost-user-client":
        p.update(type="vhost-user", mode="client")
    else:
        p["type"] = kind
    if kind != "null":
        p["socket"] = os.path.join(sockdir, name + ".sock")
    if kind == "memif" and rng.random() < 0.5:
        p["secret"] = "s%08x" % rng.getrandbits(32)
    if rng.random() < 0.7:
        p["mac"] = "02:%02x:%02x:%02x:%02x:%02x" % tuple(rng.getrandbits(8) for _ in range(5))
        if rng.random() < 0.3:
            p["port_security"] = False
    if rng.random() < 0.3:
        p["mac_limit"] = rng.randint(1, 4096)
    if rng.random() < 0.3:
        p["tx_retries"] = rng.randint(0, 32)
    return p


class Client(threading.Thread):
    def __init__(self, idx, args, owned, stop):
        super().__init__(daemon=True)
        self.idx = idx
        self.args = args
        self.rng = random.Random(args.seed * 1000 + idx)
        self.live = list(owned)  # port names this client knows to exist
        self.stop = stop
        self.journal = []  # (op, name, params, outcome, answer)
        self.serial = 0

    def run(self):
        try:
            conn = Conn(self.args.socket)
        except OSError as e:
            self.journal.append(("connect", None, None, "unknown", str(e)))
            return
        while not self.stop.is_set():
            if self.live and (len(self.live) >= self.args.live or self.rng.random() < 0.5):
                name = self.live.pop(self.rng.randrange(len(self.live)))
                op, method, params = "delete", "port.delete", {"name": name}
            else:
                self.serial += 1
                name = "%s%dc%dn%d" % (PREFIX, self.args.round, self.idx, self.serial)
                op, method = "create", "port.create"
                params = port_params(self.rng, name, self.args.sockdir)
            try:
                ans = conn.call(method, params)
            except (OSError, EOFError, ValueError) as e:
                # In flight when podwired died: it may have happened.
                self.journal.append((op, name, params, "unknown", str(e)))
                break
            if "result" in ans:
                self.journal.append((op, name, params, "ok", ans["result"]))
                if op == "create":
                    self.live.append(name)
            else:
                # Refused: nothing changed (the check holds podwired to that).
                self.journal.append((op, name, params, "refused", ans.get("error")))
                if op == "delete":
                    self.live.append(name)
        conn.close()


def cmd_run(args):
    rng = random.Random(args.seed)
    nets, ports = snapshot(args.socket)
    mine = sorted(n for n, p in ports.items() if p.get("network") == NETWORK and n.startswith(PREFIX))
    others = {n: p for n, p in ports.items() if n not in mine}
    stop = threading.Event()
    clients = [
        Client(i, args, [n for j, n in enumerate(mine) if j % args.clients == i], stop)
        for i in range(args.clients)
    ]
    lo, hi = (float(x) for x in args.kill_after.split(","))
    delay = rng.uniform(lo, hi)
    start = time.monotonic()
    for c in clients:
        c.start()
    time.sleep(delay)
    os.kill(args.pid, signal.SIGKILL)
    killed_after = time.monotonic() - start
    stop.set()
    for c in clients:
        c.join(60)
        if c.is_alive():
            sys.exit("churn: client %d still running 60 s after the kill" % c.idx)

    # What each port must be: the last answered request decides; an
    # unanswered one leaves both outcomes possible.
    expect = {n: {"want": "present", "conf": ports[n]} for n in mine}
    counts = {"ok": 0, "refused": 0, "unknown": 0, "create": 0, "delete": 0}
    for c in clients:
        for op, name, params, outcome, answer in c.journal:
            if name is None:
                continue
            counts[outcome] += 1
            counts[op] += outcome == "ok"
            prev = expect.get(name)
            if outcome == "refused":
                if prev is None:
                    expect[name] = {"want": "absent"}
                continue
            if outcome == "ok":
                if op == "create":
                    expect[name] = {"want": "present", "conf": config(answer), "params": params}
                else:
                    expect[name] = {"want": "absent"}
            else:  # unknown
                if op == "create":
                    expect[name] = {"want": "either", "params": params}
                else:
                    expect[name] = dict(prev or {}, want="either")
    plan = {
        "round": args.round,
        "kill_after_s": round(killed_after, 4),
        "requests": counts,
        "networks": nets,
        "others": others,
        "expect": expect,
    }
    with open(args.plan, "w") as f:
        json.dump(plan, f, indent=1)
    print(json.dumps({"round": args.round, "kill_after_s": plan["kill_after_s"], "requests": counts}))


def cmd_check(args):
    with open(args.plan) as f:
        plan = json.load(f)
    nets, ports = snapshot(args.socket)
    errors = []
    if nets != plan["networks"]:
        errors.append("networks differ: before %s, now %s" % (plan["networks"], nets))
    for name, conf in plan["others"].items():
        if ports.get(name) != conf:
            errors.append("port %s (not churned) was %s, now %s" % (name, conf, ports.get(name)))
    figures = {"present": 0, "absent": 0, "in_flight_done": 0, "in_flight_not_done": 0}
    for name, e in plan["expect"].items():
        now = ports.get(name)
        want = e["want"]
        if want == "absent":
            if now is not None:
                errors.append("port %s was deleted (answered) but is back: %s" % (name, now))
            figures["absent"] += 1
            continue
        if now is None:
            if want == "present":
                errors.append("port %s was created (answered) but is gone" % name)
            else:
                figures["in_flight_not_done"] += 1
            continue
        if want == "either":
            figures["in_flight_done"] += 1
        else:
            figures["present"] += 1
        # Whole: as answered, or as asked when no answer came.
        if "conf" in e and now != e["conf"]:
            errors.append("port %s differs: answered %s, now %s" % (name, e["conf"], now))
        for k, v in e.get("params", {}).items():
            if k != "secret" and now.get(k) != v:
                errors.append("port %s: %s is %r, created with %r" % (name, k, now.get(k), v))
        if now.get("mode") == "server" and "socket" in now and not os.path.exists(now["socket"]):
            errors.append("port %s: its socket %s was not recreated" % (name, now["socket"]))
    for name in ports:
        if name not in plan["others"] and name not in plan["expect"]:
            errors.append("port %s appeared from nowhere: %s" % (name, ports[name]))
    figures["round"] = plan["round"]
    figures["ports"] = len(ports)
    print(json.dumps(figures))
    for e in errors:
        print("churn check: " + e, file=sys.stderr)
    sys.exit(1 if errors else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("--socket", required=True)
    r.add_argument("--pid", type=int, required=True)
    r.add_argument("--sockdir", required=True)
    r.add_argument("--round", type=int, required=True)
    r.add_argument("--plan", required=True)
    r.add_argument("--clients", type=int, default=4)
    r.add_argument("--live", type=int, default=12, help="ports a client keeps at most")
    r.add_argument("--kill-after", default="0.1,1.5", help="MIN,MAX seconds")
    r.add_argument("--seed", type=int, default=1)
    c = sub.add_parser("check")
    c.add_argument("--socket", required=True)
    c.add_argument("--plan", required=True)
    args = ap.parse_args()
    cmd_run(args) if args.cmd == "run" else cmd_check(args)


if __name__ == "__main__":
    main()
