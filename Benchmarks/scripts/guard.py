"""The instruction-count regression guard of `instructions --check` / `--record`.

    guard.py check BASELINE COUNTS    exit 1 if a workload grew by more than 5 % (and more than
                                      NOISE instructions per element) over BASELINE
    guard.py record BASELINE COUNTS   write BASELINE from COUNTS

COUNTS has lines "workload implementation n1 ir1 n2 ir2" (written by `instructions`); BASELINE is
a TSV of "workload/implementation <TAB> instructions per element".
"""
import sys

TOLERANCE = 0.05
# Below this many instructions per element a difference is noise, not growth: start-up does not
# cost exactly the same in the two runs whose difference is divided by N2 - N1 (the cheapest
# workload, CombineIdentifier() at ~15 per element, measured 14.5, 15.1 and 15.7 for one build).
NOISE = 1.5


def per_element(counts_path):
    result = {}
    with open(counts_path) as counts:
        for line in counts:
            name, implementation, n1, ir1, n2, ir2 = line.split()
            result[f"{name}/{implementation}"] = (int(ir2) - int(ir1)) / (int(n2) - int(n1))
    return result


def main():
    mode, baseline_path, counts_path = sys.argv[1:4]
    measured = per_element(counts_path)
    if mode == "record":
        with open(baseline_path, "w") as baseline:
            baseline.write("# instructions per element, `Benchmarks/instructions --record` (N1 = 1,000, N2 = 3,000)\n")
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
    if failures:
        print(f"instructions: {failures} workload(s) need more than {TOLERANCE:.0%} more instructions than recorded")
        return 1
    print("instructions: no workload grew by more than 5 %")
    return 0


if __name__ == "__main__":
    sys.exit(main())
