#!/usr/bin/env python3
"""Sorts the symbol graphs the compiler wrote into one folder per documented module.

usage: split-symbol-graphs.py <graphs-dir> <out-dir> <sources-dir> <module>...

The compiler writes, for each module, its own graph (`Module.symbols.json`) and one graph per
module it extends (`Module@Foundation.symbols.json`). A module that re-exports another
(`Sluice` does `@_exported import SluiceCore`) gets the re-exported symbols in its graphs too, so
its pages would repeat the other module's. This keeps, in each module's graphs, only the symbols
declared in that module's own source folder (`<sources-dir>/<Module>/`), the members the compiler
synthesised for those (default implementations, which have no source location), and the
relationships whose source is a kept symbol.
"""

import json
import os
import sys


def declared_in(symbol, folder):
    uri = (symbol.get("location") or {}).get("uri", "")
    return folder in uri


def filter_graph(graph, folder):
    symbols = graph.get("symbols", [])
    kept = {s["identifier"]["precise"] for s in symbols if declared_in(s, folder)}
    # Synthesised members (no location) of a kept symbol: their `memberOf` points at it.
    unlocated = {s["identifier"]["precise"] for s in symbols if not s.get("location")}
    for relation in graph.get("relationships", []):
        if relation["source"] in unlocated and relation["target"] in kept \
                and relation["kind"] == "memberOf":
            kept.add(relation["source"])
    graph["symbols"] = [s for s in symbols if s["identifier"]["precise"] in kept]
    # A relationship whose target was left out (a protocol of the re-exported module) stays: DocC
    # shows its target by name.
    graph["relationships"] = [r for r in graph.get("relationships", []) if r["source"] in kept]
    return graph, len(kept), len(symbols)


def main():
    graphs_dir, out_dir, sources_dir, *modules = sys.argv[1:]
    for module in modules:
        folder = "/" + os.path.basename(os.path.normpath(sources_dir)) + "/" + module + "/"
        target = os.path.join(out_dir, module)
        os.makedirs(target, exist_ok=True)
        total_kept = 0
        for name in sorted(os.listdir(graphs_dir)):
            if not name.endswith(".symbols.json"):
                continue
            stem = name[: -len(".symbols.json")]
            if stem != module and not stem.startswith(module + "@"):
                continue
            with open(os.path.join(graphs_dir, name)) as f:
                graph = json.load(f)
            graph, kept, seen = filter_graph(graph, folder)
            # A module's own graph stays even when empty (it names the module); an extension
            # graph with nothing of this module's is dropped.
            if kept == 0 and stem != module:
                continue
            total_kept += kept
            with open(os.path.join(target, name), "w") as f:
                json.dump(graph, f)
        print(f"{module}: {total_kept} symbols")


if __name__ == "__main__":
    main()
