// swift-tools-version:6.1
import PackageDescription

// Sluice on a SwiftNIO server: a package of its own inside the repository, depending on Sluice by
// path, so that a user of the `Sluice` library never resolves SwiftNIO or PostgresNIO.
//
// - SluiceNIO: an `EventLoop` as a Combine scheduler, `EventLoopFuture` ↔ publisher (NIOCore only).
// - SluicePostgres: PostgreSQL LISTEN/NOTIFY as a publisher that reconnects, and a subscriber that
//   publishes each value with `pg_notify` (PostgresNIO).
// - SluiceHTTP: a publisher's values to many HTTP clients as Server-Sent Events (and WebSocket
//   messages), each client a subscriber with its own demand and a policy for falling behind
//   (Hummingbird, hummingbird-websocket, swift-service-lifecycle). Hummingbird is taken without its
//   default traits: its swift-configuration support is not used here and would add to the build.
//   What these add to a cold `swift build --build-tests` (debug, 2-core machine, 2026-11-27): the
//   package without SluiceHTTP took 9 min 28 s (757 s of CPU); adding SluiceHTTP and its
//   dependencies to that build took 1 min 6 s more (110 s of CPU, +15 %): most of what Hummingbird
//   needs (SwiftNIO, NIOHTTP1, swift-nio-ssl, swift-crypto) PostgresNIO already brings.
//
// Swift 6 language mode (the tools version's default): complete concurrency checking. `./test`
// builds with warnings as errors and runs the tests against a real PostgreSQL server.
let package = Package(
    name: "SluiceServer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "SluiceNIO", targets: ["SluiceNIO"]),
        .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
        .library(name: "SluiceFeed", targets: ["SluiceFeed"]),
        .library(name: "SluiceHTTP", targets: ["SluiceHTTP"]),
    ],
    dependencies: [
        .package(name: "Sluice", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-async-algorithms.git", from: "1.1.4"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        .target(
            name: "SluiceNIO",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The feed, transport-neutral: many clients of one stream of events, each at its own pace,
        // with ids that a client resumes from (Sluice, NIOCore; no HTTP framework).
        .target(
            name: "SluiceFeed",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .target(
            name: "SluicePostgres",
            dependencies: [
                "SluiceNIO",
                "SluiceFeed",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        .target(
            name: "SluiceHTTP",
            dependencies: [
                "SluiceFeed",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "DequeModule", package: "swift-collections"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
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
        // The live example server (two instances sharing PostgreSQL, a page showing the feed) and
        // the server side of the fan-out benchmark: Sluice beside async-algorithms' share() and a
        // channel or stream per client, switched by --engine.
        .executableTarget(
            name: "sluice-feed",
            dependencies: [
                "SluiceHTTP",
                "SluicePostgres",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
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
        // What the server package's tests share (an SSE client over real sockets); no product.
        .target(
            name: "ServerTestSupport",
            dependencies: [
                "SluiceFeed",
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
                "SluiceFeed",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceTesting", package: "Sluice"),
            ]),
        .testTarget(
            name: "SluicePostgresTests",
            dependencies: [
                "ServerTestSupport",
                "SluicePostgres",
                "SluiceHTTP",
                .product(name: "SluiceTesting", package: "Sluice"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]),
        .testTarget(
            name: "SluiceHTTPTests",
            dependencies: [
                "ServerTestSupport",
                "SluiceHTTP",
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
        // The event log measured (bench/eventlog): appends per second, commit → delivery to an SSE client
        // of another process, catch-up from the table; and the NOTIFY-only way beside it.
        .executableTarget(
            name: "sluice-log-bench",
            dependencies: [
                "SluicePostgres",
                "SluiceFeed",
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]),
        // The fan-out benchmark's load generator (bench/fanout): SSE clients over loopback sockets, a
        // process apart from the server; no library target depends on it.
        .executableTarget(
            name: "sluice-fanout-load",
            dependencies: [
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]),
    ]
)
