// swift-tools-version:6.0
import PackageDescription

// Swift 6 language mode (the tools version's default) gives complete concurrency checking.
let package = Package(
    name: "Sluice",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Sluice", targets: ["Sluice"]),
        .library(name: "SluiceCore", targets: ["SluiceCore"]),
        .library(name: "SluiceTesting", targets: ["SluiceTesting"]),
        .executable(name: "sluice-examples", targets: ["sluice-examples"]),
        .executable(name: "sluice-soak", targets: ["sluice-soak"]),
    ],
    targets: [
        .target(name: "SluiceSanitizer"),
        .target(name: "SluiceCore", dependencies: ["SluiceSanitizer"]),
        .target(name: "Sluice", dependencies: ["SluiceCore"]),
        .target(name: "SluiceTesting", dependencies: ["SluiceCore", "Sluice"]),
        .target(name: "SluiceExamples", dependencies: ["Sluice"]),
        .executableTarget(name: "sluice-examples", dependencies: ["SluiceExamples"]),
        .executableTarget(name: "sluice-soak", dependencies: ["Sluice"]),
        .testTarget(name: "SluiceCoreTests", dependencies: ["SluiceCore", "SluiceTesting"]),
        .testTarget(name: "SluiceTests", dependencies: ["Sluice", "SluiceTesting", "SluiceExamples"]),
        .testTarget(name: "SluiceTestingTests", dependencies: ["SluiceTesting"]),
        .testTarget(name: "SluiceExamplesTests", dependencies: ["SluiceExamples", "SluiceTesting"]),
    ]
)
