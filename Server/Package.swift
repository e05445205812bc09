// swift-tools-version:6.0
import PackageDescription

// Sluice on a SwiftNIO server: a package of its own inside the repository, depending on Sluice by
// path, so that a user of the `Sluice` library never resolves SwiftNIO or PostgresNIO.
//
// - SluiceNIO: an `EventLoop` as a Combine scheduler, `EventLoopFuture` ↔ publisher (NIOCore only).
// - SluicePostgres: PostgreSQL LISTEN/NOTIFY as a publisher that reconnects, and a subscriber that
//   publishes each value with `pg_notify` (PostgresNIO).
//
// Swift 6 language mode (the tools version's default): complete concurrency checking. `./test`
// builds with warnings as errors and runs the tests against a real PostgreSQL server.
let package = Package(
    name: "SluiceServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SluiceNIO", targets: ["SluiceNIO"]),
        .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
    ],
    dependencies: [
        .package(name: "Sluice", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
    ],
    targets: [
        .target(
            name: "SluiceNIO",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .target(
            name: "SluicePostgres",
            dependencies: [
                "SluiceNIO",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .executableTarget(
            name: "sluice-nio-allocations",
            dependencies: [
                "SluiceNIO",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The fan-out alone, in process: Sluice beside async-algorithms' share(), for callgrind.
        .executableTarget(
            name: "sluice-fanout-inprocess",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]),
        .testTarget(
            name: "SluiceNIOTests",
            dependencies: [
                "SluiceNIO",
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "SluicePostgresTests",
            dependencies: [
                "SluicePostgres",
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
    ]
)
