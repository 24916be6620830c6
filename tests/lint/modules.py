#!/usr/bin/env python3
# The module graph of podwired, from the #include lines of dataplane/:
# module A includes module B when a file of dataplane/A/ includes
# "B/...". Fails on any cycle (two modules that reach each other), on a
# module that includes daemon/ (the top: it includes the others), on
# core/ including another module (the bottom) and on memif/ including
# one (libpwmemif: podwire-bench and the test tools link it without
# podwired). --graph prints who includes whom.
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "dataplane")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_0-9]+)/')


def graph():
    mods = sorted(d for d in os.listdir(ROOT) if os.path.isdir(os.path.join(ROOT, d)))
    edges = {m: {} for m in mods}
    for m in mods:
        for dirpath, _, files in os.walk(os.path.join(ROOT, m)):
            for f in files:
                if not f.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, f)
                with open(path, encoding="utf-8") as fh:
                    for line in fh:
                        hit = INCLUDE.match(line)
                        if hit and hit.group(1) in edges and hit.group(1) != m:
                            rel = os.path.relpath(path, os.path.join(ROOT, ".."))
                            edges[m].setdefault(hit.group(1), rel)
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in edges:
        if v not in index:
            visit(v)
    return out


def main():
    edges = graph()
    if "--graph" in sys.argv:
        for m in edges:
            print(f"{m:9} -> {' '.join(sorted(edges[m])) or '(nothing)'}")
    bad = 0
    for comp in cycles(edges):
        bad += 1
        print("modules: these include each other (a cycle): " + ", ".join(comp))
        for a in comp:
            for b in comp:
                if b in edges[a]:
                    print(f"  {a} -> {b}: {edges[a][b]}")
    for m, to in edges.items():
        if "daemon" in to and m != "daemon":
            bad += 1
            print(f"modules: {m} includes daemon/ ({to['daemon']}): daemon/ is the top, "
                  "move what it needs into core/ or the module itself")
    if edges.get("core"):
        bad += 1
        print("modules: core/ includes " + ", ".join(sorted(edges["core"])) +
              ": core/ is the bottom and includes no other module")
    if edges.get("memif"):
        bad += 1
        print("modules: memif/ includes " + ", ".join(sorted(edges["memif"])) +
              ": memif/ is libpwmemif, linked without podwired, and includes no other module")
    if bad == 0:
        print(f"modules: no cycle among {len(edges)} modules")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
