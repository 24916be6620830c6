#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A reference model of podwired's access lists, and the tools of
tests/smoke/test_acl.sh (Python 3, standard library only).

The model: a frame's fields as rules see them (key), when a rule matches
(match), and what a port's lists decide (the network's list first, then
the port's; the first matching rule's action, else the list's default;
a frame passes only if every list it meets permits it, and a list that
denies ends it there). It is written from the README's rules, not from
podwired's code: the test holds podwired to it.

Subcommands (run by test_acl.sh):
  lists SEED N OUTDIR NAME...   random lists of N rules each, NAME.json
  frames SEED COUNT VLANS OUT   random frames (hex, one a line)
  send IFACE FRAMES             sends them (AF_PACKET) on IFACE
  recv IFACE OUT STOPFILE       writes the seq of each test frame received
  check SCENARIO FRAMES RECEIVED SHOWDIR
                                podwired's verdicts and counters (acl.show
                                JSON in SHOWDIR/NAME.json) against the model
  flood IFACE STOPFILE OUT      sends one UDP frame over and over; OUT: how many
  replace SOCKET NAME COUNT     acl.set NAME COUNT times, two rule sets in turn
"""
import ipaddress
import json
import os
import random
import socket
import struct
import sys
import time

MARK = b"ACLT"
KEY_BYTES = 192  # podwired reads a frame's first 192 bytes for its key
PROTOS = {"icmp": 1, "igmp": 2, "tcp": 6, "udp": 17, "gre": 47, "esp": 50,
          "ah": 51, "icmpv6": 58, "ospf": 89, "sctp": 132}
FLAGS = ["FIN", "SYN", "RST", "PSH", "ACK", "URG", "ECE", "CWR"]
L4_NEED = {6: 20, 17: 8, 132: 12}

# The universe frames and rules are drawn from: small, so rules hit.
SRC_MACS = ["02:00:00:00:01:0%d" % i for i in range(3)]
DST_MACS = ["02:00:00:00:02:0%d" % i for i in range(3)] + ["ff:ff:ff:ff:ff:ff"]
V4 = ["10.0.%d.%d" % (a, b) for a in range(4) for b in range(4)]
V6 = ["fd00::%x:%x" % (a, b) for a in range(4) for b in range(4)]
PORTS = [53, 80, 443, 1000, 2000, 3000, 8080]


# ---- the model ------------------------------------------------------------

def key(frame):
    """The fields rules match: a dict, as podwired's acl_key_make."""
    p = frame[:KEY_BYTES]
    k = {"smac": p[6:12], "dmac": p[0:6], "vlan": 0, "ethertype": 0, "ip": False,
         "v6": False, "proto": 0, "ports": False, "sport": 0, "dport": 0,
         "flags": 0, "src": b"", "dst": b""}
    if len(p) < 14:
        return k
    et = struct.unpack("!H", p[12:14])[0]
    off = 14
    if et == 0x8100 and len(p) >= 18:
        k["vlan"] = (struct.unpack("!H", p[14:16])[0] & 0xfff) + 1
        et = struct.unpack("!H", p[16:18])[0]
        off = 18
    k["ethertype"] = et
    later = False
    if et == 0x0800 and len(p) >= off + 20 and p[off] >> 4 == 4:
        ihl = (p[off] & 0xf) * 4
        if ihl < 20 or len(p) < off + ihl:
            return k
        k.update(ip=True, proto=p[off + 9], src=p[off + 12:off + 16], dst=p[off + 16:off + 20])
        later = struct.unpack("!H", p[off + 6:off + 8])[0] & 0x1fff != 0
        l4 = off + ihl
    elif et == 0x86dd and len(p) >= off + 40 and p[off] >> 4 == 6:
        nh = p[off + 6]
        k.update(ip=True, v6=True, src=p[off + 8:off + 24], dst=p[off + 24:off + 40])
        l4 = off + 40
        for _ in range(8):
            if nh not in (0, 43, 60, 44) or len(p) < l4 + 8:
                break
            if nh == 44:
                later |= struct.unpack("!H", p[l4 + 2:l4 + 4])[0] & 0xfff8 != 0
                nh = p[l4]
                l4 += 8
            else:
                nh, l4 = p[l4], l4 + (p[l4 + 1] + 1) * 8
        k["proto"] = nh
    else:
        return k
    need = L4_NEED.get(k["proto"], 0)
    if not later and need and len(p) >= l4 + need:
        k["ports"] = True
        k["sport"], k["dport"] = struct.unpack("!HH", p[l4:l4 + 4])
        if k["proto"] == 6:
            k["flags"] = p[l4 + 13]
    return k


def parse_rule(r):
    """A rule of acl.set, as the model holds it."""
    m = {"action": r["action"]}
    for f in ("src_mac", "dst_mac"):
        if f in r:
            m[f] = bytes(int(x, 16) for x in r[f].split(":"))
    if "ethertype" in r:
        m["ethertype"] = int(str(r["ethertype"]), 0)
    if "vlan" in r:
        m["vlan"] = 0 if r["vlan"] == "untagged" else int(r["vlan"]) + 1
    for f in ("src", "dst"):
        if f in r:
            m[f] = ipaddress.ip_network(r[f], strict=True)
    if "proto" in r:
        v = r["proto"]
        m["proto"] = PROTOS[v] if isinstance(v, str) and v in PROTOS else int(str(v), 0)
    for f in ("sport", "dport"):
        if f in r:
            v = str(r[f])
            a, _, b = v.partition("-")
            m[f] = (int(a), int(b or a))
    if "tcp_flags" in r:
        v = r["tcp_flags"]
        if "/" in v:
            a, b = v.split("/")
            m["flags"] = (int(a, 0), int(b, 0))
        else:
            val = mask = 0
            for t in v.split(","):
                bit = 1 << FLAGS.index(t.lstrip("!").upper())
                mask |= bit
                if not t.startswith("!"):
                    val |= bit
            m["flags"] = (val, mask)
    return m


def match(r, k):
    if "src_mac" in r and r["src_mac"] != k["smac"]:
        return False
    if "dst_mac" in r and r["dst_mac"] != k["dmac"]:
        return False
    if "ethertype" in r and r["ethertype"] != k["ethertype"]:
        return False
    if "vlan" in r and r["vlan"] != k["vlan"]:
        return False
    ipf = [f for f in ("proto", "src", "dst", "sport", "dport", "flags") if f in r]
    if ipf and not k["ip"]:
        return False
    for f in ("src", "dst"):
        if f in r:
            if (r[f].version == 6) != k["v6"]:
                return False
            addr = ipaddress.ip_address(k[f])
            if addr not in r[f]:
                return False
    if "proto" in r and r["proto"] != k["proto"]:
        return False
    if any(f in r for f in ("sport", "dport", "flags")) and not k["ports"]:
        return False
    for f in ("sport", "dport"):
        if f in r and not r[f][0] <= k[f] <= r[f][1]:
            return False
    if "flags" in r and k["flags"] & r["flags"][1] != r["flags"][0]:
        return False
    return True


class List:
    def __init__(self, doc):
        self.rules = [parse_rule(r) for r in doc["rules"]]
        self.default = doc.get("default", "deny")
        self.hits = [0] * len(self.rules)
        self.default_hits = 0

    def decide(self, k):
        """True when the list permits; counts the hit."""
        for i, r in enumerate(self.rules):
            if match(r, k):
                self.hits[i] += 1
                return r["action"] != "deny"
        self.default_hits += 1
        return self.default != "deny"


def passes(lists, k):
    """The lists a frame meets at one place, in order: all must permit."""
    for lst in lists:
        if lst is not None and not lst.decide(k):
            return False
    return True


# ---- random lists and frames ----------------------------------------------

def rnd_prefix(rng, v6):
    addr = ipaddress.ip_address(rng.choice(V6 if v6 else V4))
    plen = rng.choice([0, 8, 16, 24, 30, 32] if not v6 else [0, 16, 64, 112, 124, 128])
    return str(ipaddress.ip_network("%s/%d" % (addr, plen), strict=False))


def rnd_rule(rng):
    r = {"action": rng.choice(["permit", "deny", "deny", "permit+reflect"])}
    if rng.random() < 0.15:
        r["src_mac"] = rng.choice(SRC_MACS)
    if rng.random() < 0.15:
        r["dst_mac"] = rng.choice(DST_MACS)
    if rng.random() < 0.1:
        r["vlan"] = rng.choice([100, 200, "untagged"])
    fam = rng.choice([None, 4, 6])
    if fam is None:
        if rng.random() < 0.5 or len(r) == 1:  # a rule that matches all is rare
            r["ethertype"] = rng.choice(["0x0806", "0x88b5", "0x0800", "0x86dd"])
        return r
    if rng.random() < 0.2:
        r["ethertype"] = "0x0800" if fam == 4 else "0x86dd"
    if rng.random() < 0.5:
        r["src"] = rnd_prefix(rng, fam == 6)
    if rng.random() < 0.5:
        r["dst"] = rnd_prefix(rng, fam == 6)
    if rng.random() < 0.7:
        proto = rng.choice(["tcp", "udp", "tcp", "udp", "icmp", "icmpv6", 47])
        r["proto"] = proto
        if proto in ("tcp", "udp"):
            if rng.random() < 0.5:
                a, b = sorted(rng.sample(range(0, 9000), 2))
                r["dport"] = "%d-%d" % (a, b) if rng.random() < 0.6 else rng.choice(PORTS)
            if rng.random() < 0.3:
                r["sport"] = rng.choice(PORTS)
        if proto == "tcp" and rng.random() < 0.3:
            if rng.random() < 0.5:
                r["tcp_flags"] = rng.choice(["SYN,!ACK", "ACK", "!SYN", "RST", "FIN,ACK"])
            else:
                mask = rng.randrange(1, 256)
                r["tcp_flags"] = "0x%02x/0x%02x" % (rng.randrange(256) & mask, mask)
    if len(r) == 1:
        r["proto"] = rng.choice(["tcp", "udp", "icmp", "icmpv6"])
    return r


def rnd_list(rng, n):
    return {"default": rng.choice(["permit", "deny"]), "rules": [rnd_rule(rng) for _ in range(n)]}


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def rnd_frame(rng, seq, vlans):
    dst, src = mac(rng.choice(DST_MACS)), mac(rng.choice(SRC_MACS))
    tag = b""
    v = rng.choice(vlans)
    if v is not None:
        tag = struct.pack("!HH", 0x8100, v)
    kind = rng.choice(["v4", "v4", "v6", "v6", "arp", "other"])
    body = b""
    if kind in ("v4", "v6"):
        proto = rng.choice([6, 6, 17, 17, 1 if kind == "v4" else 58, 47])
        l4 = b""
        if proto in (6, 17):
            sp, dp = rng.choice(PORTS + [rng.randrange(65536)]), rng.choice(PORTS + [rng.randrange(9000)])
            if proto == 6:
                l4 = struct.pack("!HHIIBBHHH", sp, dp, 1, 2, 0x50, rng.randrange(256), 1024, 0, 0)
            else:
                l4 = struct.pack("!HHHH", sp, dp, 8 + 16, 0)
        else:
            l4 = struct.pack("!BBHI", 8, 0, 0, seq)
        l4 += b"\0" * 8
        if kind == "v4":
            s = ipaddress.ip_address(rng.choice(V4)).packed
            d = ipaddress.ip_address(rng.choice(V4)).packed
            frag = rng.choice([0, 0, 0, 0, 0x2000, 0x0010])
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4) + 8, seq & 0xffff, frag, 64,
                             proto, 0, s, d)
            et = 0x0800
        else:
            s = ipaddress.ip_address(rng.choice(V6)).packed
            d = ipaddress.ip_address(rng.choice(V6)).packed
            nh = proto
            ext = b""
            if rng.random() < 0.2:  # a hop-by-hop header first
                ext = struct.pack("!BB6s", proto, 0, b"\0" * 6)
                nh = 0
            ip = struct.pack("!IHBB16s16s", 0x60000000, len(ext) + len(l4) + 8, nh, 64, s, d) + ext
            et = 0x86dd
        body = ip + l4
    elif kind == "arp":
        et = 0x0806
        body = struct.pack("!HHBBH", 1, 0x0800, 6, 4, 1) + b"\0" * 20
    else:
        et = 0x88b5
        body = b"\x01\x02\x03\x04"
    frame = dst + src + tag + struct.pack("!H", et) + body
    frame += b"\0" * max(0, 60 - 8 - len(frame))
    return frame + MARK + struct.pack("!I", seq)


# ---- scenarios: which lists a frame meets -----------------------------------

def scenario(name, lists):
    """The lists at ingress and egress, in order, for a scenario."""
    if name == "bridge":  # port list on k1 ingress, network list on egress
        return [lists["b_in"]], [lists["b_net_out"]]
    # cross-connect: network list then port list on x1 ingress; x2's egress
    return [lists["x_net_in"], lists["x_in"]], [lists["x_out"]]


def run_model(name, lists, frames, net_vlan):
    """The seqs delivered, per the model."""
    ing, egr = scenario(name, lists)
    out = set()
    for f in frames:
        seq = struct.unpack("!I", f[-4:])[0]
        eg = f
        if name == "bridge":
            tagged = f[12:14] == b"\x81\x00"
            if tagged:
                vid = struct.unpack("!H", f[14:16])[0] & 0xfff
                if net_vlan == 0 or vid != net_vlan:
                    continue  # vlan_mismatch: before any list
                eg = f[:12] + f[16:]  # the bridge takes the network's tag off
        if not passes(ing, key(f)):
            continue
        if not passes(egr, key(eg)):
            continue
        out.add(seq)
    return out


# ---- I/O ---------------------------------------------------------------------

def raw(iface):
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0003))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16 << 20)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
    s.bind((iface, 0))
    return s


def cmd_send(iface, path):
    s = raw(iface)
    with open(path) as f:
        frames = [bytes.fromhex(x) for x in f.read().split()]
    for i, fr in enumerate(frames):
        s.send(fr)
        if i % 64 == 63:
            time.sleep(0.002)  # podwired's socket and the receiver keep up
    print(len(frames))


def cmd_recv(iface, out, stop):
    s = raw(iface)
    s.settimeout(0.2)
    got = []
    while not os.path.exists(stop):
        try:
            data, addr = s.recvfrom(65536)
        except socket.timeout:
            continue
        if addr[2] == socket.PACKET_OUTGOING:
            continue
        i = data.rfind(MARK)
        if i >= 0 and len(data) >= i + 8:
            got.append(struct.unpack("!I", data[i + 4:i + 8])[0])
    with open(out, "w") as f:
        f.write("\n".join(str(x) for x in got) + "\n")


def cmd_flood(iface, stop, out):
    s = raw(iface)
    fr = rnd_frame(random.Random(1), 0, [None])
    n = 0
    while not os.path.exists(stop):
        for _ in range(100):
            s.send(fr)
        n += 100
        time.sleep(0.001)
    with open(out, "w") as f:
        f.write("%d\n" % n)


def rpc(sock, method, params):
    sock.sendall((json.dumps({"jsonrpc": "2.0", "id": 1, "method": method,
                              "params": params}) + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        c = sock.recv(1 << 20)
        if not c:
            raise SystemExit("podwired closed the API connection")
        buf += c
    ans = json.loads(buf)
    if "error" in ans:
        raise SystemExit("%s: %s" % (method, ans["error"]["message"]))
    return ans["result"]


def cmd_replace(path, name, count):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    a = {"name": name, "default": "deny", "rules": [
        {"action": "deny", "proto": "tcp"}, {"action": "permit", "proto": "udp"}]}
    b = {"name": name, "default": "permit", "rules": [
        {"action": "permit", "dst": "10.0.0.0/8"}, {"action": "deny", "proto": "udp"}]}
    t0 = time.time()
    for i in range(count):
        rpc(sock, "acl.set", a if i % 2 else b)
    print("%d replaces in %.1f s" % (count, time.time() - t0))


def cmd_check(name, frames_path, recv_path, show_dir, net_vlan):
    with open(frames_path) as f:
        frames = [bytes.fromhex(x) for x in f.read().split()]
    docs = {}
    for fn in os.listdir(show_dir):
        if fn.endswith(".list.json"):
            with open(os.path.join(show_dir, fn)) as f:
                docs[fn[:-len(".list.json")]] = json.load(f)
    lists = {n: List(d) for n, d in docs.items()}
    want = run_model(name, lists, frames, net_vlan)
    with open(recv_path) as f:
        got_list = [int(x) for x in f.read().split()]
    got = set(got_list)
    bad = 0
    dup = len(got_list) - len(got)
    if dup:
        print("FAIL: %d frames received twice" % dup)
        bad += 1
    for seq in sorted(want - got)[:5]:
        print("FAIL: frame %d should have been delivered: %s" % (seq, frames[seq].hex()))
        bad += 1
    for seq in sorted(got - want)[:5]:
        print("FAIL: frame %d should have been dropped: %s" % (seq, frames[seq].hex()))
        bad += 1
    ing, egr = scenario(name, lists)
    for n, lst in lists.items():
        if lst not in ing + egr:
            continue
        with open(os.path.join(show_dir, n + ".show.json")) as f:
            show = json.load(f)
        hits = [int(r["hits"]) for r in show["rules"]]
        if hits != lst.hits or int(show["default_hits"]) != lst.default_hits:
            diff = [(i, a, b) for i, (a, b) in enumerate(zip(hits, lst.hits)) if a != b]
            print("FAIL: list %s: podwired's hits (rule, podwired, model) %s, default %s vs %d"
                  % (n, diff[:5], show["default_hits"], lst.default_hits))
            bad += 1
    print("%s: %d frames, %d delivered (model %d), %s" % (
        name, len(frames), len(got), len(want), "agree" if bad == 0 else "DISAGREE"))
    return 1 if bad else 0


def main(argv):
    c = argv[1]
    if c == "lists":
        rng = random.Random(int(argv[2]))
        for n in argv[5:]:
            with open(os.path.join(argv[4], n + ".list.json"), "w") as f:
                json.dump(rnd_list(rng, int(argv[3])), f)
    elif c == "frames":
        rng = random.Random(int(argv[2]))
        vlans = [None if v == "none" else int(v) for v in argv[4].split(",")]
        with open(argv[5], "w") as f:
            for i in range(int(argv[3])):
                f.write(rnd_frame(rng, i, vlans).hex() + "\n")
    elif c == "send":
        cmd_send(argv[2], argv[3])
    elif c == "recv":
        cmd_recv(argv[2], argv[3], argv[4])
    elif c == "flood":
        cmd_flood(argv[2], argv[3], argv[4])
    elif c == "replace":
        cmd_replace(argv[2], argv[3], int(argv[4]))
    elif c == "check":
        return cmd_check(argv[2], argv[3], argv[4], argv[5], int(argv[6]))
    else:
        raise SystemExit(__doc__)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
