// swift-tools-version:6.1
import PackageDescription

// Sluice's benchmarks: a package of their own, so that package-benchmark and OpenCombine never
// become dependencies of the library. README.md here explains the two commands that run them.
// Our targets use Swift 6 language mode (the tools version's default); CI builds this package with
// `-Xswiftc -warnings-as-errors` (the dependencies build without warnings too).

// The operators behind the optional workloads that Sluice has: the Sluice version of each workload
// named here compiles (`#if HAS_<NAME>`). Names: "FLATMAP", "MERGE", "ZIP", "COMBINELATEST",
// "VALUES" (`publisher.values`), "ASYNCSEQUENCEPUBLISHER" (`asyncSequence.asPublisher`, Sluice's own),
// "TIMELINE" (recording with SluiceTimeline, Sluice's own).
let sluiceHas: [String] = ["FLATMAP", "MERGE", "ZIP", "COMBINELATEST", "VALUES", "ASYNCSEQUENCEPUBLISHER", "TIMELINE"]

// The same list for OpenCombine 0.14.0, which has no merge, no combineLatest and no AsyncSequence →
// publisher bridge.
let openCombineHas: [String] = ["FLATMAP", "ZIP", "VALUES"]

let package = Package(
    name: "SluiceBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: ".."),
        .package(url: "https://github.com/OpenCombine/OpenCombine.git", exact: "0.14.0"),
        .package(url: "https://github.com/ordo-one/benchmark.git", exact: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Helpers shared by the implementations: an atomic total, running on two threads.
        .target(name: "WorkloadSupport"),
        // The same pipelines, file for file, written against each library: the two folders hold
        // identical files but for the `import` line (`./check-identical` verifies it), and but for
        // LibraryShim.swift, which gives what the libraries spell differently (their DispatchQueue
        // schedulers, from Sluice and OpenCombineDispatch) one spelling.
        .target(
            name: "SluiceWorkloads",
            dependencies: [
                "WorkloadSupport",
                .product(name: "SluiceCore", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTimeline", package: "Sluice"),
            ],
            swiftSettings: sluiceHas.map { .define("HAS_\($0)") }
        ),
        .target(
            name: "OpenCombineWorkloads",
            dependencies: [
                "WorkloadSupport",
                .product(name: "OpenCombine", package: "OpenCombine"),
                .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            ],
            swiftSettings: openCombineHas.map { .define("HAS_\($0)") }
        ),
        // The same work as a hand-written loop, a plain `for await` loop, and AsyncSequence operators.
        .target(name: "BaselineWorkloads", dependencies: ["WorkloadSupport"]),
        // The list of workloads, their sizes, and each one's implementations.
        .target(name: "Workloads", dependencies: ["SluiceWorkloads", "OpenCombineWorkloads", "BaselineWorkloads", "WorkloadSupport"]),
        // Runs one implementation of one workload at a given size (for callgrind), or checks that
        // all implementations compute the same checksum.
        .executableTarget(name: "workload-runner", dependencies: ["Workloads", "WorkloadSupport"]),
        // package-benchmark's suite: every workload × implementation.
        .executableTarget(
            name: "SluiceBenchmarks",
            dependencies: ["Workloads", .product(name: "Benchmark", package: "benchmark")],
            path: "Benchmarks/SluiceBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
