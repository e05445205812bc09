#!/usr/bin/env python3
"""Prints the benchmark tables for ./bench and ./instructions.

  report.py time LIST RESULTS_DIR
      LIST is `workload-runner --list` output (workload, implementation, elements, title; tab-separated).
      RESULTS_DIR holds package-benchmark's `--format histogramSamples` export: one file per
      benchmark and metric, "<run>.SluiceBenchmarks.<workload>_<implementation>.<metric>.histogram.samples.tsv",
      a header line then one raw sample (one run over all the workload's elements) per line.

  report.py instructions LIST COUNTS
      COUNTS has lines "workload implementation n1 ir1 n2 ir2" (callgrind's instruction totals at two sizes).

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


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "time":
        time_table(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "instructions":
        instructions_table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
