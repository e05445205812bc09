// swift-tools-version:6.1
import PackageDescription

// The server modules' tests, example app and benchmarks. The modules themselves (SluiceNIO,
// SluiceFeed, SluicePostgres, SluiceHummingbird) are products of the repository's root package
// behind its trait `Server`, taken here by path with the trait on; their sources are in
// `Sources/`. Hummingbird is taken without its default traits: its swift-configuration support
// is not used here and would add to the build.
//
// Swift 6 language mode (the tools version's default): complete concurrency checking. `./test`
// builds with warnings as errors and runs the tests against a real PostgreSQL server.
let package = Package(
    name: "SluiceServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: "..", traits: ["Hummingbird", "Vapor"]),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
    ],
    targets: [
        .executableTarget(
            name: "sluice-nio-allocations",
            dependencies: [
                .product(name: "SluiceNIO", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // The fan-out alone, in process: Sluice beside async-algorithms' share(), for callgrind.
        .executableTarget(
            name: "sluice-fanout-inprocess",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceFeed", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
            ]),
        // The example apps: the same live feed on Hummingbird and on Vapor (one file each), and
        // what they share apart from the framework (settings, the page, the topic rule).
        .target(
            name: "LiveFeedExample",
            dependencies: [.product(name: "PostgresNIO", package: "postgres-nio")]),
        .executableTarget(
            name: "sluice-example-hummingbird",
            dependencies: [
                "LiveFeedExample",
                .product(name: "SluiceHummingbird", package: "Sluice"),
                .product(name: "SluicePostgres", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        .executableTarget(
            name: "sluice-example-vapor",
            dependencies: [
                "LiveFeedExample",
                .product(name: "SluiceVapor", package: "Sluice"),
                .product(name: "SluicePostgres", package: "Sluice"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]),
        // The server side of the fan-out benchmark: Sluice beside async-algorithms' share() and a
        // channel or stream per client, switched by --engine; with --postgres, instances sharing
        // an event log (the fleet test's).
        .executableTarget(
            name: "sluice-feed",
            dependencies: [
                "LiveFeedExample",
                .product(name: "SluiceHummingbird", package: "Sluice"),
                .product(name: "SluicePostgres", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "SluiceVapor", package: "Sluice"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .testTarget(
            name: "SluiceNIOTests",
            dependencies: [
                .product(name: "SluiceNIO", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        // glibc's malloc.h, for the tests' count of the bytes the allocator holds in use.
        .systemLibrary(name: "CMalloc", path: "Tests/CMalloc"),
        // What the server package's tests share (an SSE client over real sockets); no product.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "CMalloc",
                .product(name: "SluiceFeed", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Tests/ServerTestSupport"),
        .testTarget(
            name: "SluiceFeedTests",
            dependencies: [
                "ServerTestSupport",
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "SluiceFeed", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
            ]),
        .testTarget(
            name: "SluicePostgresTests",
            dependencies: [
                "ServerTestSupport",
                .product(name: "SluiceEventSource", package: "Sluice"),
                .product(name: "SluicePostgres", package: "Sluice"),
                .product(name: "SluiceHummingbird", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "SluiceVapor", package: "Sluice"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            ]),
        .testTarget(
            name: "SluiceHummingbirdTests",
            dependencies: [
                "ServerTestSupport",
                .product(name: "SluiceHummingbird", package: "Sluice"),
                .product(name: "SluiceEventSource", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // One suite of the feed's transports, run against Hummingbird and Vapor over real sockets.
        .testTarget(
            name: "FeedTransportTests",
            dependencies: [
                "ServerTestSupport",
                .product(name: "SluiceFeed", package: "Sluice"),
                .product(name: "SluiceHummingbird", package: "Sluice"),
                .product(name: "SluiceVapor", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The event log measured (bench/eventlog): appends per second, commit → delivery to an SSE client
        // of another process, catch-up from the table; and the NOTIFY-only way beside it.
        .executableTarget(
            name: "sluice-log-bench",
            dependencies: [
                .product(name: "SluicePostgres", package: "Sluice"),
                .product(name: "SluiceFeed", package: "Sluice"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The load clients' plain requests to an instance on loopback (sluice-fanout-load, sluice-stampede).
        .target(
            name: "LoadClient",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The fan-out benchmark's load generator (bench/fanout): SSE clients over loopback sockets, a
        // process apart from the server; no library target depends on it.
        .executableTarget(
            name: "sluice-fanout-load",
            dependencies: [
                "LoadClient",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
        // The stampede benchmark's load client (bench/stampede, StampedeTests): N browsers' EventSources
        // on one sluice-feed --postgres instance, an appender posting to another, the first instance
        // killed or the fleet restarted one at a time; every event counted per client.
        .executableTarget(
            name: "sluice-stampede",
            dependencies: [
                "LoadClient",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ]
)
