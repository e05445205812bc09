// swift-tools-version:6.1
import PackageDescription

// The manifest for Swift 6.1 and later: the same package as `Package.swift` (the manifest of
// Swift 6.0, kept for its users) plus package traits, which Swift 6.0 cannot declare, and the
// server modules behind them. Keep the two identical otherwise (Compatibility/SendableProbes/run
// checks it).
//
// The trait `AppleConcurrencyShape` gives Sluice's public types exactly the `Sendable`
// conformances of Apple's Combine (and of its Foundation and Dispatch integration) in Apple's
// current SDK, no more: a library built for Apple's systems and for Linux enables it in its Linux
// CI, and there gets the concurrency errors Apple's compiler would give. Off by default.
//
//     .package(url: "https://github.com/sluice-swift/Sluice.git", from: "1.0.0",
//              traits: ["AppleConcurrencyShape"]),
//
// or, building Sluice itself: `swift build --traits AppleConcurrencyShape`.
// The `Combine` product: a module named `Combine` that re-exports Sluice, so that code written for
// Apple's systems (`import Combine`, `#if canImport(Combine)`) compiles unchanged where Apple's
// Combine does not exist. Where it does, Apple's framework must win, so a client depends on the
// product with a platform condition:
//
//     .product(name: "Combine", package: "Sluice",
//              condition: .when(platforms: [.linux, .android, .windows, .wasi, .openbsd]))
//
// and, in case a build system builds that dependency all the same, a host that has Apple's Combine
// gets the product with an empty module of another name: no module named `Combine` is ever built
// there to stand before Apple's. (The condition follows the platform built for; this check, the
// host, so cross-compiling from an Apple host to Linux gets no `Combine` module: `import Sluice`.)
#if canImport(Combine)
let combineTargets: [Target] = [.target(name: "SluiceCombineOnApple")]
let combineProduct = Product.library(name: "Combine", targets: ["SluiceCombineOnApple"])
#else
let combineTargets: [Target] = [
    .target(name: "Combine", dependencies: ["Sluice"]),
    .testTarget(name: "CombineTests", dependencies: ["Combine"]),
]
let combineProduct = Product.library(name: "Combine", targets: ["Combine"])
#endif

// The platforms without Apple's Combine.
let nonApple: [Platform] = [.linux, .android, .windows, .wasi, .openbsd]

// The server modules, behind package traits (sources, tests, scripts and guide in `Server/`):
// `Server` (SluiceNIO, SluiceFeed, SluicePostgres), `Hummingbird` (Server + SluiceHummingbird),
// `Vapor` (Server + SluiceVapor). Every package they use is a dependency only under its trait, so
// SwiftPM resolves none of them for a client that enables none, and no Vapor for a Hummingbird
// app. Their sources are wrapped in `#if Server` (`#if Hummingbird`, `#if Vapor`), so that the
// package builds without the traits too (the modules are then empty).
//
//     .package(url: "https://github.com/sluice-swift/Sluice.git", from: "1.0.0", traits: ["Hummingbird"]),
//     …
//     .product(name: "SluiceHummingbird", package: "Sluice"),   // SluicePostgres, SluiceFeed
//
// The server's tests, example app and benchmarks are `Server/Package.swift`, which takes this
// package by path with the trait on.
let serverProducts: [Product] = [
    .library(name: "SluiceNIO", targets: ["SluiceNIO"]),
    .library(name: "SluiceFeed", targets: ["SluiceFeed"]),
    .library(name: "SluicePostgres", targets: ["SluicePostgres"]),
    .library(name: "SluiceHummingbird", targets: ["SluiceHummingbird"]),
    .library(name: "SluiceVapor", targets: ["SluiceVapor"]),
]

let serverDependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
    .package(url: "https://github.com/apple/swift-collections.git", from: "1.1.0"),
    .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
    .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
    .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
    // Without its default traits: its swift-configuration support is not used here.
    .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
    .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
    .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.34.1"),
    .package(url: "https://github.com/vapor/vapor.git", from: "4.122.3"),
]

/// `product` of `package`, a dependency only when the trait `trait` is on.
func server(_ product: String, _ package: String, trait: String = "Server") -> Target.Dependency {
    .product(name: product, package: package, condition: .when(traits: [trait]))
}

let serverTargets: [Target] = [
    // An `EventLoop` as a Combine scheduler, `EventLoopFuture` ↔ publisher (NIOCore only).
    .target(
        name: "SluiceNIO",
        dependencies: ["Sluice", server("NIOCore", "swift-nio"), server("NIOConcurrencyHelpers", "swift-nio")],
        path: "Server/Sources/SluiceNIO"),
    // The feed, transport-neutral: many clients of one stream of events, each at its own pace,
    // with ids that a client resumes from (no HTTP framework).
    .target(
        name: "SluiceFeed",
        dependencies: [
            "Sluice",
            server("ServiceLifecycle", "swift-service-lifecycle"),
            server("DequeModule", "swift-collections"),
            server("NIOCore", "swift-nio"),
            server("NIOPosix", "swift-nio"),   // the default event loops of the streams' timers
            server("NIOConcurrencyHelpers", "swift-nio"),
            server("Logging", "swift-log"),
            server("Metrics", "swift-metrics"),
        ],
        path: "Server/Sources/SluiceFeed"),
    // The event log in PostgreSQL, its listener, NOTIFY publishers (PostgresNIO).
    .target(
        name: "SluicePostgres",
        dependencies: [
            "Sluice",
            "SluiceNIO",
            "SluiceFeed",
            server("ServiceLifecycle", "swift-service-lifecycle"),
            server("PostgresNIO", "postgres-nio"),
            server("DequeModule", "swift-collections"),
            server("NIOCore", "swift-nio"),
            server("NIOPosix", "swift-nio"),
            server("NIOConcurrencyHelpers", "swift-nio"),
            server("Logging", "swift-log"),
            server("Metrics", "swift-metrics"),
            // A thrown PostgresEventLogError answers as it should in a route of either framework.
            server("Hummingbird", "hummingbird", trait: "Hummingbird"),
            server("HTTPTypes", "swift-http-types", trait: "Hummingbird"),
            server("Vapor", "vapor", trait: "Vapor"),
        ],
        path: "Server/Sources/SluicePostgres"),
    // The feed over Hummingbird: SSE and WebSocket endpoints, topics.
    .target(
        name: "SluiceHummingbird",
        dependencies: [
            "Sluice",
            "SluiceFeed",
            server("Hummingbird", "hummingbird", trait: "Hummingbird"),
            server("HTTPTypes", "swift-http-types", trait: "Hummingbird"),
            server("HummingbirdWebSocket", "hummingbird-websocket", trait: "Hummingbird"),
            server("ServiceLifecycle", "swift-service-lifecycle"),
            server("NIOCore", "swift-nio"),
            server("NIOPosix", "swift-nio"),
            server("NIOConcurrencyHelpers", "swift-nio"),
            server("NIOHTTP1", "swift-nio"),
            server("NIOHTTPTypes", "swift-nio-extras", trait: "Hummingbird"),
            server("NIOHTTPTypesHTTP1", "swift-nio-extras", trait: "Hummingbird"),
            server("Logging", "swift-log"),
        ],
        path: "Server/Sources/SluiceHummingbird"),
    // The feed over Vapor: SSE responses and WebSocket.
    .target(
        name: "SluiceVapor",
        dependencies: [
            "Sluice",
            "SluiceFeed",
            server("Vapor", "vapor", trait: "Vapor"),
            server("ServiceLifecycle", "swift-service-lifecycle"),
            server("Logging", "swift-log"),
            server("NIOCore", "swift-nio"),
            server("NIOConcurrencyHelpers", "swift-nio"),
        ],
        path: "Server/Sources/SluiceVapor"),
]

// The trait `TLS`: `https:` and `wss:` off Apple's systems through SwiftNIO SSL (BoringSSL on
// NIO's sockets), under the client's own HTTP and WebSocket code, so that the four schemes behave
// alike (demand, backpressure, failures), with custom trust roots and client certificates
// (`EventSource.Configuration.tls`). Its packages are dependencies only under the trait and off
// Apple's systems (where URLSession makes every connection): a client without it resolves none.
//
//     .package(url: "https://github.com/sluice-swift/Sluice.git", from: "1.0.0", traits: ["TLS"]),
//
// or `swift build --traits TLS --product sluice-tail`. The tests need the trait too:
// `swift test --traits TLS --scratch-path .build-tls --filter TLS`.
let tlsDependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
]

/// `product` of `package`, a dependency only with the trait `TLS` and off Apple's systems.
func tls(_ product: String, _ package: String) -> Target.Dependency {
    .product(name: product, package: package, condition: .when(platforms: nonApple, traits: ["TLS"]))
}

/// What the client (and its tests) take under the trait `TLS`.
let tlsClient: [Target.Dependency] = [
    tls("NIOCore", "swift-nio"), tls("NIOPosix", "swift-nio"), tls("NIOTLS", "swift-nio"), tls("NIOSSL", "swift-nio-ssl"),
]

// Swift 6 language mode (the tools version's default) gives complete concurrency checking.
let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceCore", targets: ["SluiceCore"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .library(name: "SluiceTimeline", targets: ["SluiceTimeline"]),
        .library(name: "SluiceEventSource", targets: ["SluiceEventSource"]),
        combineProduct,
        .executable(name: "sluice-examples", targets: ["sluice-examples"]),
        .executable(name: "sluice-soak", targets: ["sluice-soak"]),
        .executable(name: "sluice-tail", targets: ["sluice-tail"]),
    ] + serverProducts,
    traits: [
        .trait(
            name: "AppleConcurrencyShape",
            description: "Sluice's public Sendable conformances are exactly those of Apple's Combine in Apple's current SDK, no more: a Linux build then rejects what Apple's compiler would."
        ),
        .trait(
            name: "Server",
            description: "The server modules SluiceNIO, SluiceFeed and SluicePostgres, and their packages: SwiftNIO, PostgresNIO, swift-log, swift-metrics, swift-service-lifecycle. Without a server trait a client resolves no package besides Sluice."
        ),
        .trait(
            name: "Hummingbird",
            description: "Server, and SluiceHummingbird: the feed's SSE and WebSocket endpoints for Hummingbird 2.",
            enabledTraits: ["Server"]
        ),
        .trait(
            name: "TLS",
            description: "SluiceEventSource reads https: and wss: off Apple's systems through SwiftNIO SSL, under its own HTTP and WebSocket client (as http: and ws:), with custom trust roots and client certificates; sluice-tail follows https: and wss: feeds. Brings swift-nio and swift-nio-ssl."
        ),
        .trait(
            name: "Vapor",
            description: "Server, and SluiceVapor: the feed's SSE responses and WebSocket for Vapor 4.",
            enabledTraits: ["Server"]
        ),
    ],
    dependencies: serverDependencies + tlsDependencies,
    targets: [
        .target(name: "SluiceSanitizer"),
        .target(name: "SluiceCore", dependencies: ["SluiceSanitizer"]),
        .target(name: "Sluice", dependencies: ["SluiceCore"]),
        .target(name: "SluiceTesting", dependencies: ["SluiceCore", "Sluice"]),
        .target(name: "SluiceTimeline", dependencies: ["SluiceCore"]),
        .testTarget(name: "SluiceTimelineTests", dependencies: ["SluiceTimeline", "SluiceCore"]),
        // A client of Server-Sent Events streams: Foundation and the Combine API only (Apple's
        // Combine on Apple's systems, Sluice elsewhere).
        .target(name: "SluiceEventSource", dependencies: [.target(name: "Sluice", condition: .when(platforms: nonApple))] + tlsClient),
        .testTarget(name: "SluiceEventSourceTests", dependencies: [
            "SluiceEventSource",
            .target(name: "Sluice", condition: .when(platforms: nonApple)),
            .target(name: "SluiceTesting", condition: .when(platforms: nonApple)),
        ] + tlsClient),
        .executableTarget(name: "sluice-tail", dependencies: ["SluiceEventSource"]),
        .target(name: "SluiceExamples", dependencies: ["Sluice", "SluiceTimeline"]),
        .executableTarget(name: "sluice-examples", dependencies: ["SluiceExamples"]),
        .executableTarget(name: "sluice-soak", dependencies: ["Sluice"]),
        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore", "SluiceTesting"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting", "SluiceExamples"]),
        .testTarget(name: "SluiceTestingTests", dependencies: ["SluiceTesting"]),
        .testTarget(name: "SluiceExamplesTests", dependencies: ["SluiceExamples", "SluiceTesting"]),
    ] + combineTargets + serverTargets
)
