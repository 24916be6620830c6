#!/usr/bin/env python3
"""Frames of known content for the vhost-user ring tests (test_vhost_rings.sh).

  vhost_frames.py gen FILE DST SRC SEED MAXLEN   a pcap of frames DST <- SRC
      (ethertype 0x88b5, a sequence number, then seeded random bytes), of
      every size that tests a boundary of 2 KB buffers and chains from 60
      bytes to MAXLEN, and random sizes between; prints "FRAMES BYTES".
  vhost_frames.py cmp SENT GOT                   whether GOT holds exactly
      SENT's frames, byte for byte and in order; prints what differs.
"""
import hashlib
import random
import struct
import sys

EDGES = [60, 61, 63, 64, 65, 127, 128, 129, 255, 256, 511, 512, 1000, 1023, 1024, 1500, 1514,
         1518, 2034, 2035, 2036, 2047, 2048, 2049, 2060, 2061, 2100, 3000, 4082, 4095, 4096,
         4097, 6000, 6144, 8191, 8192, 8193, 9000, 9014]


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    if len(data) < 24:
        return []
    magic = struct.unpack("<I", data[:4])[0]
    end = "<" if magic in (0xA1B2C3D4, 0xA1B23C4D) else ">"
    frames, off = [], 24
    while off + 16 <= len(data):
        _, _, incl, orig = struct.unpack(end + "IIII", data[off:off + 16])
        off += 16
        frames.append((data[off:off + incl], orig))
        off += incl
    return frames


def gen(path, dst, src, seed, maxlen):
    rnd = random.Random(int(seed))
    sizes = [s for s in EDGES if s <= maxlen]
    sizes += [rnd.randint(60, maxlen) for _ in range(40)]
    head = bytes.fromhex(dst.replace(":", "") + src.replace(":", "")) + b"\x88\xb5"
    total = 0
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
        for seq, n in enumerate(sizes):
            b = head + struct.pack(">I", seq) + rnd.randbytes(n - len(head) - 4)
            f.write(struct.pack("<IIII", 0, 0, n, n) + b)
            total += n
    print(len(sizes), total)


def cmp(sent_path, got_path):
    sent = [f for f, _ in read_pcap(sent_path)]
    got = read_pcap(got_path)
    bad = []
    for i, (f, orig) in enumerate(got):
        if orig != len(f):
            bad.append(f"frame {i}: {orig} bytes, {len(f)} captured")
    digest = lambda f: hashlib.md5(f).hexdigest()
    for i in range(max(len(sent), len(got))):
        if i >= len(got):
            bad.append(f"frame {i} ({len(sent[i])} bytes) and {len(sent) - i - 1} after it never arrived")
            break
        if i >= len(sent):
            bad.append(f"{len(got) - i} frames more than were sent, from frame {i} ({len(got[i][0])} bytes)")
            break
        g = got[i][0]
        if g != sent[i]:
            where = next((k for k in range(min(len(g), len(sent[i]))) if g[k] != sent[i][k]),
                         min(len(g), len(sent[i])))
            seq = struct.unpack(">I", g[14:18])[0] if len(g) >= 18 else -1
            bad.append(f"frame {i}: sent {len(sent[i])} bytes md5 {digest(sent[i])}, got {len(g)} "
                       f"bytes md5 {digest(g)} (sequence {seq}), first difference at byte {where}")
        if len(bad) >= 5:
            break
    if bad:
        print("; ".join(bad))
        return 1
    print(f"{len(sent)} frames, {sum(map(len, sent))} bytes, byte-exact and in order")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 7 and sys.argv[1] == "gen":
        gen(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]))
    elif len(sys.argv) == 4 and sys.argv[1] == "cmp":
        sys.exit(cmp(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
