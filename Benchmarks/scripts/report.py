#!/usr/bin/env python3
"""Prints the benchmark tables for ./bench and ./instructions.

  report.py time LIST RESULTS_DIR
      LIST is `workload-runner --list` output (workload, implementation, elements, title; tab-separated).
      RESULTS_DIR holds package-benchmark's `--format histogramSamples` export: one file per
      benchmark and metric, "<run>.SluiceBenchmarks.<workload>_<implementation>.<metric>.histogram.samples.tsv",
      a header line then one raw sample (one run over all the workload's elements) per line.

  report.py instructions LIST COUNTS
      COUNTS has lines "workload implementation n1 ir1 n2 ir2" (callgrind's instruction totals at two sizes).

  report.py scaling LIST RESULTS
      LIST is `workload-runner --scaling-list` output (workload, implementation, title).
      RESULTS has lines "workload implementation n instructions ns-per-element" ("-": not measured,
      "timeout": callgrind ran out of time); instructions are the measured phase's, divided by n here.

Times and counts are per element: the median sample divided by the workload's element count, or
(ir2 - ir1) / (n2 - n1) for instructions, so set-up and process start cancel out.
"""

import os
import re
import statistics
import sys

IMPLEMENTATIONS = ["sluice", "opencombine", "loop", "forawait", "asyncops"]
HEADERS = {"sluice": "Sluice", "opencombine": "OpenCombine", "loop": "loop", "forawait": "for await",
           "asyncops": "async ops"}
RATIOS = ["Sluice ÷ OpenCombine", "Sluice ÷ loop", "Sluice ÷ for await"]


def read_list(path):
    """Workloads in table order: [(name, title, elements)], and the implementations each has."""
    workloads, available = [], set()
    with open(path) as file:
        for line in file:
            name, implementation, elements, title = line.rstrip("\n").split("\t")
            if not workloads or workloads[-1][0] != name:
                workloads.append((name, title, int(elements)))
            available.add((name, implementation))
    return workloads, available


def number(value, unit=""):
    """Three significant figures, no exponent: 0.214, 3.12, 31.2, 312, 3,120."""
    if value is None:
        return "n/a"
    if value == 0:
        return "0" + unit
    if value < 0:
        return "~0"  # a difference of two instruction counts lost in their noise
    magnitude = abs(value)
    if magnitude >= 100:
        text = f"{value:,.0f}"
    elif magnitude >= 10:
        text = f"{value:.1f}"
    elif magnitude >= 1:
        text = f"{value:.2f}"
    elif magnitude >= 0.01:
        text = f"{value:.3f}"
    else:
        text = f"{value:.2g}"
    return text + unit


def count(value):
    """Allocations per element, two decimals: a run's fixed few vanish against its elements."""
    if value is None:
        return "n/a"
    return "0" if round(value, 2) == 0 else f"{value:.2f}"


def elements_note(workloads):
    by_count = {}
    for name, _, elements in workloads:
        by_count.setdefault(elements, []).append(name)
    common = max(by_count, key=lambda elements: len(by_count[elements]))
    others = "; ".join(f"{', '.join(names)}: {elements:,}" for elements, names in by_count.items() if elements != common)
    return f"Elements per run: {common:,}" + (f" ({others})" if others else "") + "."


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator <= 0 or numerator < 0:
        return "n/a"
    return number(numerator / denominator, "×")


def ratios(values):
    sluice = values["sluice"]
    return [ratio(sluice, values["opencombine"]), ratio(sluice, values["loop"]), ratio(sluice, values["forawait"])]


def print_table(header, rows, note=None):
    widths = [max(len(row[i]) for row in [header] + rows) for i in range(len(header))]
    def line(cells):
        padded = [cells[0].ljust(widths[0])] + [cell.rjust(width) for cell, width in zip(cells[1:], widths[1:])]
        return "| " + " | ".join(padded) + " |"
    print(line(header))
    print("|" + "|".join(["-" * (widths[0] + 2)] + ["-" * (w + 1) + ":" for w in widths[1:]]) + "|")
    for row in rows:
        print(line(row))
    if note:
        print()
        print(note)


def time_table(list_path, results_dir):
    workloads, available = read_list(list_path)
    pattern = re.compile(r"^.+?\.SluiceBenchmarks\.(\w+)_(\w+)\.(wallClock|mallocCountTotal|instructions)\.histogram\.samples\.tsv$")
    samples = {}
    for file_name in os.listdir(results_dir):
        match = pattern.match(file_name)
        if not match:
            continue
        with open(os.path.join(results_dir, file_name)) as file:
            header = file.readline()
            values = [float(line) for line in file if line.strip()]
        # Raw counts are configured (units .count); refuse anything scaled.
        if re.search(r"\((K|M|G|us|μs|ms|s)\)", header):
            sys.exit(f"report.py: {file_name} is not in raw units: {header.strip()}")
        if values:
            samples[match.groups()] = values

    def per_element(name, implementation, metric, elements):
        values = samples.get((name, implementation, metric))
        return None if values is None else statistics.median(values) / elements

    rows = []
    have_instructions = any(key[2] == "instructions" for key in samples)
    for name, title, elements in workloads:
        if not any((name, i, "wallClock") in samples for i in IMPLEMENTATIONS):
            continue  # filtered out of this run
        ns = {i: per_element(name, i, "wallClock", elements) for i in IMPLEMENTATIONS}
        allocs = {i: per_element(name, i, "mallocCountTotal", elements) for i in IMPLEMENTATIONS}
        row = [title] + [number(ns[i]) for i in IMPLEMENTATIONS]
        row += ratios(ns)
        row += [" / ".join(count(allocs[i]) for i in IMPLEMENTATIONS)]
        if have_instructions:
            instructions = {i: per_element(name, i, "instructions", elements) for i in IMPLEMENTATIONS}
            row += [" / ".join(number(instructions[i]) for i in IMPLEMENTATIONS)]
        rows.append(row)
    header = ["workload (ns per element, median)"] + [HEADERS[i] for i in IMPLEMENTATIONS]
    header += RATIOS + ["allocations per element (" + " / ".join(HEADERS[i] for i in IMPLEMENTATIONS) + ")"]
    if have_instructions:
        header += ["instructions per element (" + " / ".join(HEADERS[i] for i in IMPLEMENTATIONS) + ")"]
    print_table(header, rows, note=(
        elements_note(workloads) + " Ratios are of times: below 1× Sluice is faster. "
        "n/a: no such implementation (yet)."))


def instructions_table(list_path, counts_path):
    workloads, available = read_list(list_path)
    per_element = {}
    with open(counts_path) as file:
        for line in file:
            name, implementation, n1, ir1, n2, ir2 = line.split()
            per_element[(name, implementation)] = (int(ir2) - int(ir1)) / (int(n2) - int(n1))
    rows = []
    for name, title, elements in workloads:
        if not any((name, i) in per_element for i in IMPLEMENTATIONS):
            continue
        ir = {i: per_element.get((name, i)) for i in IMPLEMENTATIONS}
        rows.append([title] + [number(ir[i]) for i in IMPLEMENTATIONS] + ratios(ir))
    header = ["workload (instructions per element)"] + [HEADERS[i] for i in IMPLEMENTATIONS] + RATIOS
    print_table(header, rows, note=(
        "callgrind instruction counts, (Ir(N2) − Ir(N1)) / (N2 − N1). Threaded workloads run serialised "
        "under valgrind, so their counts show work, not contention."))


def scaling_table(list_path, results_path):
    titles, implementations = {}, {}
    with open(list_path) as file:
        for line in file:
            name, implementation, title = line.rstrip("\n").split("\t")
            titles.setdefault(name, title)
            implementations.setdefault(name, []).append(implementation)
    results, sizes = {}, []
    with open(results_path) as file:
        for line in file:
            name, implementation, n, ir, ns = line.split()
            n = int(n)
            if n not in sizes:
                sizes.append(n)
            instructions = None if ir in ("-", "timeout") else int(ir) / n
            results[(name, implementation, n)] = (instructions, None if ns == "-" else float(ns), ir == "timeout")
    if len(sizes) != 2:
        sys.exit("report.py: scaling results need exactly two sizes")
    small, large = sorted(sizes)

    def cells(name, implementation, index):
        values = [results.get((name, implementation, n)) for n in (small, large)]
        if any(value is None for value in values):
            return ["n/a", "n/a", "n/a"]
        out = []
        for value in values:
            out.append("timeout" if index == 0 and value[2] else number(value[index]))
        a, b = values[0][index], values[1][index]
        out.append(ratio(b, a) if a is not None and b is not None else "n/a")
        return out

    for index, unit in ((0, "instructions"), (1, "ns")):
        if not any(value[index] is not None or (index == 0 and value[2]) for value in results.values()):
            continue
        rows = []
        for name in titles:
            if not any(key[0] == name for key in results):
                continue
            rows.append([titles[name]] + cells(name, "sluice", index) + cells(name, "opencombine", index))
        header = [f"workload ({unit} per element)", f"Sluice {small:,}", f"Sluice {large:,}", "growth",
                  f"OpenCombine {small:,}", f"OpenCombine {large:,}", "growth"]
        print_table(header, rows)
        print()
    print("Instructions: callgrind, the measured phase only, divided by N. ns: the measured phase's wall "
          "time, best of 3 runs in one process, divided by N. growth: the large size's cost per element "
          "÷ the small size's.")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "scaling":
        scaling_table(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if len(sys.argv) == 4 and sys.argv[1] == "time":
        time_table(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "instructions":
        instructions_table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
