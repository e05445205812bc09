import Foundation

/// A value behind a lock, for tests whose `@Sendable` callbacks record something.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value { lock.withLock { stored } }

    func update(_ change: (inout Value) -> Void) { lock.withLock { change(&stored) } }
}
