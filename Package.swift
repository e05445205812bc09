// swift-tools-version:6.0
import PackageDescription

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
    ],
    targets: [
        .target(name: "SluiceSanitizer"),
        .target(name: "SluiceCore", dependencies: ["SluiceSanitizer"]),
        .target(name: "Sluice", dependencies: ["SluiceCore"]),
        .target(name: "SluiceTesting", dependencies: ["SluiceCore", "Sluice"]),
        .target(name: "SluiceTimeline", dependencies: ["SluiceCore"]),
        .testTarget(name: "SluiceTimelineTests", dependencies: ["SluiceTimeline", "SluiceCore"]),
        // A client of Server-Sent Events streams: Foundation and the Combine API only (Apple's
        // Combine on Apple's systems, Sluice elsewhere).
        .target(name: "SluiceEventSource", dependencies: [.target(name: "Sluice", condition: .when(platforms: nonApple))]),
        .testTarget(name: "SluiceEventSourceTests", dependencies: [
            "SluiceEventSource",
            .target(name: "Sluice", condition: .when(platforms: nonApple)),
            .target(name: "SluiceTesting", condition: .when(platforms: nonApple)),
        ]),
        .executableTarget(name: "sluice-tail", dependencies: ["SluiceEventSource"]),
        .target(name: "SluiceExamples", dependencies: ["Sluice", "SluiceTimeline"]),
        .executableTarget(name: "sluice-examples", dependencies: ["SluiceExamples"]),
        .executableTarget(name: "sluice-soak", dependencies: ["Sluice"]),
        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore", "SluiceTesting"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting", "SluiceExamples"]),
        .testTarget(name: "SluiceTestingTests", dependencies: ["SluiceTesting"]),
        .testTarget(name: "SluiceExamplesTests", dependencies: ["SluiceExamples", "SluiceTesting"]),
    ] + combineTargets
)
