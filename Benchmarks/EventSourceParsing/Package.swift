// swift-tools-version:6.1
import PackageDescription

// The parsing speed of SluiceEventSource's `EventStreamParser` beside mattt/EventSource 1.1.1's
// parser, on the same bytes, in one run. A package of its own (like the rest of Benchmarks/), so
// that mattt/EventSource never becomes a dependency of the library. Run it with
// `swift run -c release --package-path Benchmarks/EventSourceParsing`.
let package = Package(
    name: "EventSourceParsing",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Sluice", path: "../.."),
        .package(url: "https://github.com/mattt/EventSource", exact: "1.1.1"),
    ],
    targets: [
        .executableTarget(
            name: "eventsource-parsing",
            dependencies: [
                .product(name: "Sluice", package: "Sluice"),
                .product(name: "SluiceEventSource", package: "Sluice"),
                .product(name: "EventSource", package: "EventSource"),
            ]
        ),
    ]
)
