# SPDX-License-Identifier: MIT
# The folder rules of docs/development.md: which folder may include which,
# and no include circle between files.  Reads every #include "..." of the
# C sources under ROOT; tests may use anything, but in no circle.
import os
import re
import sys

# Folder -> the folders its files may include, besides its own.  A file
# belongs to the longest folder prefix listed here.  Arrows point down:
# programs -> their libraries -> sm -> routing -> topology.
RULES = {
    "topology": [],
    "routing": ["topology"],
    "sm": ["routing", "topology"],
    "plugins/opensm": ["sm", "routing", "topology"],
    "tools/lib/cli": [],
    "tools/lib/livefab": ["routing", "topology"],
    "tools/lib/pool": ["tools/lib/livefab", "sm", "routing", "topology"],
    "tools/ibpoold": ["tools/lib/pool", "tools/lib/livefab", "tools/lib/cli",
                      "sm", "routing", "topology"],
    "tools/ibpoolroute": ["tools/lib/pool", "tools/lib/livefab",
                          "tools/lib/cli", "sm", "routing", "topology"],
    "tools/ibtopogen": ["tools/lib/cli", "routing", "topology"],
}
# Engines sit in routing/<engine>/: the core may include them (the engine
# table names each), an engine includes the core and never another engine.
ENGINE_ROOT = "routing"
INC = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def folder_of(path):
    best = None
    for f in RULES:
        if path == f or path.startswith(f + "/"):
            if best is None or len(f) > len(best):
                best = f
    return best


def engine_of(path):
    parts = path.split("/")
    if parts[0] == ENGINE_ROOT and len(parts) > 2:
        return parts[1]
    return None


def sources(root):
    for top in list(RULES) + ["tests"]:
        d = os.path.join(root, top)
        if not os.path.isdir(d):
            continue
        for dirpath, _, files in os.walk(d):
            for name in files:
                if name.endswith((".c", ".h")):
                    full = os.path.join(dirpath, name)
                    yield os.path.relpath(full, root)


def resolve(root, src, inc):
    here = os.path.normpath(os.path.join(os.path.dirname(src), inc))
    if os.path.exists(os.path.join(root, here)):
        return here
    top = os.path.normpath(inc)
    if os.path.exists(os.path.join(root, top)):
        return top
    return None


def edges(root):
    out = {}
    for src in sorted(set(sources(root))):
        deps = []
        with open(os.path.join(root, src), errors="replace") as f:
            for n, line in enumerate(f, 1):
                m = INC.match(line)
                if not m:
                    continue
                dst = resolve(root, src, m.group(1))
                if dst is None:
                    yield_err = "%s:%d: #include \"%s\" not found" % (
                        src, n, m.group(1))
                    raise SystemExit(yield_err)
                deps.append((n, dst))
        out[src] = deps
    return out


def rule_errors(graph, verb="include"):
    errs = []
    for src, deps in graph.items():
        fs = folder_of(src)
        if fs is None:
            continue
        for n, dst in deps:
            fd = folder_of(dst)
            if fd is None or fd == fs:
                es, ed = engine_of(src), engine_of(dst)
                if fd == fs and es and ed and es != ed:
                    errs.append("%s:%s: engine %s may not %s engine %s (%s)"
                                % (src, n, es, verb, ed, dst))
                continue
            if fd not in RULES[fs]:
                errs.append("%s:%s: %s/ may not %s %s/ (%s)"
                            % (src, n, fs, verb, fd, dst))
    return errs


def unit(path):
    """A module: its .c and .h are one node of the circle search."""
    return path[:-2]


def circles(graph, what="include"):
    g = {}
    for src, deps in graph.items():
        a = unit(src)
        for _, dst in deps:
            b = unit(dst)
            if a != b:
                g.setdefault(a, set()).add(b)
    # Tarjan's strongly connected components, iteratively.
    index, low, on, stack, comps = {}, {}, set(), [], []
    counter = [0]
    for start in sorted(g):
        if start in index:
            continue
        work = [(start, iter(sorted(g.get(start, ()))))]
        index[start] = low[start] = counter[0]
        counter[0] += 1
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                    advanced = True
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return [what + " circle: " + " <-> ".join(c) for c in comps]


def symbols(build, root):
    """Object -> the objects whose symbols it uses, as nm reads them."""
    import subprocess
    objs = []
    top = os.path.join(build, "obj")
    for dirpath, _, files in os.walk(top):
        for name in files:
            if name.endswith(".o"):
                rel = os.path.relpath(os.path.join(dirpath, name), top)
                # an object whose source moved or went is a stale build's
                if folder_of(rel) is not None and \
                        os.path.exists(os.path.join(root, rel[:-2] + ".c")):
                    objs.append(rel)
    defs, undefs = {}, {}
    exports = {}
    for o in sorted(objs):
        out = subprocess.run(["nm", os.path.join(top, o)], check=True,
                             capture_output=True, text=True).stdout
        undefs[o] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 2 and f[0] == "U":
                undefs[o].add(f[1])
            elif len(f) == 3 and f[1] in "TDBRVW":
                defs.setdefault(f[2], o)
                exports.setdefault(o, set()).add(f[2])
    graph = {}
    for o in objs:
        src = o[:-2] + ".c"
        deps = set()
        for sym in undefs[o]:
            d = defs.get(sym)
            if d and d != o:
                deps.add((sym, d[:-2] + ".c"))
        graph[src] = sorted(deps)
    return graph, exports


# Names a module exports for someone else's sake: OpenSM's and the C
# runtime's.
FOREIGN = {"main", "osm_event_plugin"}


def prefix_errors(exports, doc):
    """One prefix per module, each in the prefix table of doc."""
    with open(doc) as f:
        table = set(re.findall(r"^\|\s*`([a-z0-9]+_)`", f.read(), re.M))
    errs = []
    for o, names in sorted(exports.items()):
        pre = {n.split("_")[0] + "_" for n in names - FOREIGN}
        if len(pre) > 1:
            errs.append("%s exports %d prefixes: %s"
                        % (o[:-2] + ".c", len(pre), " ".join(sorted(pre))))
        for p in sorted(pre - table):
            errs.append("%s: prefix %s missing from %s"
                        % (o[:-2] + ".c", p, doc))
    return errs


def main():
    args = sys.argv[1:]
    build = None
    doc = None
    while len(args) >= 2 and args[0] in ("--objects", "--prefixes"):
        if args[0] == "--objects":
            build = args[1]
        else:
            doc = args[1]
        args = args[2:]
    root = args[0] if args else "."
    graph = edges(root)
    errs = rule_errors(graph) + circles(graph)
    if build:
        calls, exports = symbols(build, root)
        errs += rule_errors(calls, "use") + circles(calls, "call")
        if doc:
            errs += prefix_errors(exports, doc)
    for e in errs:
        print(e)
    print("layers: %d files, %d includes, %d problems"
          % (len(graph), sum(len(d) for d in graph.values()), len(errs)))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
