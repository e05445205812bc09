// The `Combine` module for systems without Apple's Combine: Sluice under Combine's name.
//
// Code written for Apple's systems says `import Combine`, or guards it with
// `#if canImport(Combine)`. With this module in its package graph that code compiles unchanged on
// Linux, Android, Windows, WASI and OpenBSD: `import Combine` brings in Sluice — the publishers,
// subscribers, operators and subjects of SluiceCore, and the Foundation and Dispatch integration
// (`DispatchQueue`, `RunLoop` and `OperationQueue` as schedulers, `Timer`, `NotificationCenter`,
// `URLSession`, the JSON coders) — and `canImport(Combine)` becomes true.
//
// Depend on it only where Apple's Combine does not exist, so that Apple's framework wins on
// Apple's systems (the article "Using Combine libraries off Apple's systems" explains why):
//
//     .product(name: "Combine", package: "Sluice",
//              condition: .when(platforms: [.linux, .android, .windows, .wasi, .openbsd]))
@_exported import Sluice
