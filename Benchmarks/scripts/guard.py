"""The instruction-count regression guard of `instructions --check` / `--record`.

    guard.py check BASELINE COUNTS [SCALING]    exit 1 if a workload grew by more than 5 % (and
                                                more than NOISE instructions per element) over
                                                BASELINE, or a scaling workload's cost per element
                                                grows by more than GROWTH from its small N to its
                                                large N
    guard.py record BASELINE COUNTS [SCALING]   write BASELINE from COUNTS (and SCALING)

COUNTS has lines "workload implementation n1 ir1 n2 ir2" (written by `instructions`); SCALING has
lines "workload implementation n ir" (a scaling workload's measured phase at size n, two sizes
each); BASELINE is a TSV of "workload/implementation <TAB> instructions per element", a scaling
workload's as "scaling/workload/implementation" at its small size.
"""
import sys

TOLERANCE = 0.05
# Below this many instructions per element a difference is noise, not growth: start-up does not
# cost exactly the same in the two runs whose difference is divided by N2 - N1, and the cheapest
# workload, CombineIdentifier() at ~15 per element, executes the alignment padding before its
# loop's compare-and-swap: 14.5, 15.1 and 15.7 for one build, 14.0 to 16.6 across builds of the
# same sources (14.8 recorded, 16.6 measured by a clean clone with no library change).
NOISE = 3.0
# A scaling workload's instructions per element at its large N may be at most this many times its
# instructions per element at its small N.
GROWTH = 1.5


def per_element(counts_path):
    result = {}
    with open(counts_path) as counts:
        for line in counts:
            name, implementation, n1, ir1, n2, ir2 = line.split()
            result[f"{name}/{implementation}"] = (int(ir2) - int(ir1)) / (int(n2) - int(n1))
    return result


def scaling(scaling_path):
    """{"scaling/workload/implementation": {n: instructions per element}}"""
    result = {}
    with open(scaling_path) as counts:
        for line in counts:
            name, implementation, n, ir = line.split()
            result.setdefault(f"scaling/{name}/{implementation}", {})[int(n)] = int(ir) / int(n)
    return result


def main():
    mode, baseline_path, counts_path = sys.argv[1:4]
    measured = per_element(counts_path)
    growth = scaling(sys.argv[4]) if len(sys.argv) > 4 else {}
    for key, sizes in growth.items():
        measured[key] = sizes[min(sizes)]
    if mode == "record":
        with open(baseline_path, "w") as baseline:
            baseline.write("# instructions per element, `Benchmarks/instructions --record` (N1 = 1,000, N2 = 3,000; "
                           "scaling/…: the measured phase at N = 1,000)\n")
            for key in sorted(measured):
                baseline.write(f"{key}\t{measured[key]:.1f}\n")
        print(f"instructions: recorded {len(measured)} workloads in {baseline_path}")
        return 0
    recorded = {}
    with open(baseline_path) as baseline:
        for line in baseline:
            if line.startswith("#") or not line.strip():
                continue
            key, value = line.rstrip("\n").split("\t")
            recorded[key] = float(value)
    failures = 0
    for key in sorted(measured):
        now = measured[key]
        before = recorded.get(key)
        if before is None:
            print(f"  {key:40} {now:10.1f}  (not in the baseline)")
            continue
        change = (now - before) / before if before else 0.0
        verdict = "REGRESSED" if change > TOLERANCE and now - before > NOISE else "ok"
        failures += verdict != "ok"
        print(f"  {key:40} {before:10.1f} → {now:10.1f}  {change:+7.1%}  {verdict}")
    missing = sorted(set(recorded) - set(measured))
    for key in missing:
        print(f"  {key:40} in the baseline but not measured")
    grown = 0
    for key in sorted(growth):
        small, large = min(growth[key]), max(growth[key])
        factor = growth[key][large] / growth[key][small]
        verdict = "GROWS" if factor > GROWTH else "ok"
        grown += verdict != "ok"
        print(f"  {key:40} {growth[key][small]:10.1f} at {small:,} → {growth[key][large]:10.1f} at {large:,}"
              f"  {factor:5.2f}×  {verdict}")
    if failures:
        print(f"instructions: {failures} workload(s) need more than {TOLERANCE:.0%} more instructions than recorded")
    if grown:
        print(f"instructions: {grown} scaling workload(s) cost more than {GROWTH}× per element at the large size")
    if failures or grown:
        return 1
    print(f"instructions: no workload grew by more than 5 %, no scaling workload by more than {GROWTH}× with N")
    return 0


if __name__ == "__main__":
    sys.exit(main())
