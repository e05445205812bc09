import Benchmark
import Workloads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Every workload × implementation, named "WORKLOAD/IMPLEMENTATION". One iteration processes the
// workload's `elements` once; the scaling factor is that count where package-benchmark has one
// (1K, 1M), so its own `--scale` output is per element. `./bench` reads the raw samples instead and
// divides by `elements` itself.
//
// SLUICE_BENCH_QUICK=1 (`./bench --quick`) takes fewer samples, for iterating.

let benchmarks: @Sendable () -> Void = {
    let quick = getenv("SLUICE_BENCH_QUICK").map { String(cString: $0) != "0" } ?? false
    let metrics: [BenchmarkMetric] = [.wallClock, .mallocCountTotal, .instructions]
    // Raw counts: no automatic K/M units, so the exported samples are plain nanoseconds and counts.
    let units = Dictionary(uniqueKeysWithValues: metrics.map { ($0, BenchmarkUnits.count) })

    for workload in workloads {
        for implementation in Implementation.allCases {
            guard let body = workload.body(implementation) else { continue }
            let n = workload.elements
            let configuration = Benchmark.Configuration(
                metrics: metrics,
                timeUnits: .nanoseconds,
                units: units,
                warmupIterations: 1,
                scalingFactor: BenchmarkScalingFactor(rawValue: n) ?? .one,
                maxDuration: .seconds(quick ? 1 : 5),
                maxIterations: quick ? 5 : 50
            )
            let name = "\(workload.name)/\(implementation.rawValue)"
            switch body {
            case .sync(let run):
                Benchmark(name, configuration: configuration) { _ in
                    blackHole(run(n))
                }
            case .async(let run):
                Benchmark(name, configuration: configuration) { _ async in
                    blackHole(await run(n))
                }
            }
        }
    }
}
