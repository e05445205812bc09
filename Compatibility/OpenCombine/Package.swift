// swift-tools-version:5.9
import PackageDescription

// Sluice standing in for OpenCombine 0.14.0 in a package graph.
//
// Libraries that use Combine off Apple's systems (Point-Free's combine-schedulers,
// swift-dependencies, forks of TCA) depend on "https://github.com/OpenCombine/OpenCombine.git" and
// import its `OpenCombineShim` module (or `OpenCombine`). This package has the same identity
// (its folder is named OpenCombine) and the same four products; each module re-exports Sluice.
// A root package that lists it as a local dependency, `.package(path: ".../Compatibility/OpenCombine")`,
// replaces OpenCombine everywhere in its graph: SwiftPM lets a root package's local dependency
// stand in for a remote one with the same identity. See README.md, "Sluice in place of OpenCombine".
//
// The Sluice package is the checkout two folders up; a local dependency is named by its folder.
let sluice = Context.packageDirectory.split(separator: "/").dropLast(2).last.map(String.init) ?? "Sluice"

let package = Package(
    name: "OpenCombine",
    products: [
        .library(name: "OpenCombine", targets: ["OpenCombine"]),
        .library(name: "OpenCombineShim", targets: ["OpenCombineShim"]),
        .library(name: "OpenCombineDispatch", targets: ["OpenCombineDispatch"]),
        .library(name: "OpenCombineFoundation", targets: ["OpenCombineFoundation"]),
    ],
    dependencies: [.package(path: "../..")],
    targets: [
        .target(name: "OpenCombine", dependencies: [.product(name: "Sluice", package: sluice)]),
        .target(name: "OpenCombineShim", dependencies: ["OpenCombine"]),
        .target(name: "OpenCombineDispatch", dependencies: ["OpenCombine"]),
        .target(name: "OpenCombineFoundation", dependencies: ["OpenCombine"]),
    ]
)
