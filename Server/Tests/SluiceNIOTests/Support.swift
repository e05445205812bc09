import Foundation
import NIOCore
import NIOPosix
import Sluice
import SluiceTesting
import Synchronization

/// A lock-protected value for the tests' closures.
final class Shared<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.withLock { stored } }
    func mutate(_ body: (inout Value) -> Void) { lock.withLock { body(&stored) } }
}

/// Waits until `condition` holds, polling; gives up after `timeout` seconds (generous: the tests
/// wait on events, never on durations).
func waitUntil(timeout: Double = 60, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(2))
    }
}

/// Runs `body` with a one-thread event loop group that it shuts down afterwards.
func withLoop<T>(_ body: (any EventLoop) async throws -> T) async rethrows -> T {
    let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    let result = try await body(group.next())
    try? await group.shutdownGracefully()
    return result
}

/// Whatever the process writes to standard error while `body` runs (file descriptor 2 is sent to
/// a file meanwhile: NIO prints its errors there).
func capturingStandardError(_ body: () async throws -> Void) async rethrows -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("stderr-\(UUID().uuidString)").path
    _ = FileManager.default.createFile(atPath: path, contents: nil)
    let file = open(path, O_WRONLY)
    let saved = dup(2)
    fflush(nil)
    dup2(file, 2)
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(file)
        try? FileManager.default.removeItem(atPath: path)
    }
    try await body()
    fflush(nil)
    return (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
}

extension TestSubscriber {
    /// The error the subscriber failed with, if it did.
    var failure: Failure? {
        if case .failure(let error)? = completion { return error }
        return nil
    }

    /// Whether the subscriber finished (successfully).
    var isFinished: Bool {
        if case .finished? = completion { return true }
        return false
    }
}
