#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Publishers {
    /// A publisher that raises a debugger signal when a provided closure needs to stop the
    /// process in the debugger.
    ///
    /// When any of the provided closures returns `true`, this publisher raises the `SIGTRAP`
    /// signal to stop the process in the debugger. Otherwise, this publisher passes through values
    /// and completions as-is.
    public struct Breakpoint<Upstream: Publisher>: Publisher {
        /// The kind of values published by this publisher: the upstream's.
        public typealias Output = Upstream.Output

        /// The kind of errors this publisher might publish: the upstream's.
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that executes when the publisher receives a subscription, and can raise a
        /// debugger signal by returning a true Boolean value.
        public let receiveSubscription: ((any Subscription) -> Bool)?

        /// A closure that executes when the publisher receives output from the upstream
        /// publisher, and can raise a debugger signal by returning a true Boolean value.
        public let receiveOutput: ((Upstream.Output) -> Bool)?

        /// A closure that executes when the publisher receives completion, and can raise a
        /// debugger signal by returning a true Boolean value.
        public let receiveCompletion: ((Subscribers.Completion<Upstream.Failure>) -> Bool)?

        /// Creates a breakpoint publisher with the provided upstream publisher and breakpoint
        /// closures.
        ///
        /// - Parameters:
        ///   - upstream: The publisher from which this publisher receives elements.
        ///   - receiveSubscription: A closure that executes when the publisher receives a
        ///     subscription, and can raise a debugger signal by returning a true Boolean value.
        ///   - receiveOutput: A closure that executes when the publisher receives output from the
        ///     upstream publisher, and can raise a debugger signal by returning a true Boolean
        ///     value.
        ///   - receiveCompletion: A closure that executes when the publisher receives completion,
        ///     and can raise a debugger signal by returning a true Boolean value.
        @inlinable
        public init(upstream: Upstream,
                    receiveSubscription: ((any Subscription) -> Bool)? = nil,
                    receiveOutput: ((Upstream.Output) -> Bool)? = nil,
                    receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil) {
            self.upstream = upstream
            self.receiveSubscription = receiveSubscription
            self.receiveOutput = receiveOutput
            self.receiveCompletion = receiveCompletion
        }

        /// Attaches the subscriber behind a pass-through subscriber that checks each event.
        ///
        /// As Apple's, it has no subscription of its own: the upstream's subscription reaches the
        /// subscriber unchanged, and every event is checked and passed on, whatever came before.
        @inlinable @inline(__always)
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            let inner = BreakpointSubscriber(
                downstream: subscriber, receiveSubscription: receiveSubscription, receiveOutput: receiveOutput,
                receiveCompletion: receiveCompletion)
            upstream.attachSubscriber(inner)
        }
    }
}

/// The subscriber `breakpoint` puts upstream: raises `SIGTRAP` when a check returns `true`, then
/// passes the event on (described as "Breakpoint", with an empty mirror).
@usableFromInline
struct BreakpointSubscriber<Downstream: Subscriber>: Subscriber, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible
{
    @usableFromInline typealias Input = Downstream.Input
    @usableFromInline typealias Failure = Downstream.Failure

    @usableFromInline let downstream: Downstream
    @usableFromInline let receiveSubscription: ((any Subscription) -> Bool)?
    @usableFromInline let receiveOutput: ((Input) -> Bool)?
    @usableFromInline let receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)?
    @usableFromInline let combineIdentifier = CombineIdentifier()

    @inlinable
    init(downstream: Downstream, receiveSubscription: ((any Subscription) -> Bool)?,
         receiveOutput: ((Input) -> Bool)?, receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)?) {
        self.downstream = downstream
        self.receiveSubscription = receiveSubscription
        self.receiveOutput = receiveOutput
        self.receiveCompletion = receiveCompletion
    }

    @inlinable
    func receive(subscription: any Subscription) {
        if receiveSubscription?(subscription) == true { BreakpointTrap.raise() }
        downstream.receive(subscription: subscription)
    }

    @inlinable
    func receive(_ input: Input) -> Subscribers.Demand {
        if receiveOutput?(input) == true { BreakpointTrap.raise() }
        return downstream.receive(input)
    }

    @inlinable
    func receive(completion: Subscribers.Completion<Failure>) {
        if receiveCompletion?(completion) == true { BreakpointTrap.raise() }
        downstream.receive(completion: completion)
    }

    @usableFromInline var description: String { "Breakpoint" }
    @usableFromInline var customMirror: Mirror { Mirror(self, children: [:]) }
    @usableFromInline var playgroundDescription: Any { description }
}

@usableFromInline
package enum BreakpointTrap {
    private static let lock = Lock()
    nonisolated(unsafe) private static var action: (@Sendable () -> Void)?

    /// Replaces what a breakpoint does (`nil` restores raising `SIGTRAP`).
    package static func setAction(_ newAction: (@Sendable () -> Void)?) {
        lock.withLock { action = newAction }
    }

    /// Stops the process in the debugger (or runs the test's action).
    @usableFromInline
    package static func raise() {
        if let action = lock.withLock({ action }) {
            action()
            return
        }
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        _ = SluiceCore_raise(SIGTRAP)
        #endif
    }
}

#if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
/// `raise(3)`, named so that it doesn't clash with ``BreakpointTrap/raise()``.
private func SluiceCore_raise(_ signal: Int32) -> Int32 {
    raise(signal)
}
#endif

extension Publisher {
    /// Raises a debugger signal when a provided closure needs to stop the process in the
    /// debugger.
    ///
    /// When any of the provided closures returns `true`, this publisher raises the `SIGTRAP`
    /// signal to stop the process in the debugger. Otherwise, this publisher passes through
    /// values and completions as-is.
    ///
    /// - Parameters:
    ///   - receiveSubscription: A closure that executes when the publisher receives a
    ///     subscription. Return `true` from this closure to raise `SIGTRAP`, or `false` to
    ///     continue.
    ///   - receiveOutput: A closure that executes when the publisher receives a value. Return
    ///     `true` from this closure to raise `SIGTRAP`, or `false` to continue.
    ///   - receiveCompletion: A closure that executes when the publisher receives a completion.
    ///     Return `true` from this closure to raise `SIGTRAP`, or `false` to continue.
    /// - Returns: A publisher that raises a debugger signal when one of the provided closures
    ///   returns `true`.
    @inlinable
    public func breakpoint(
        receiveSubscription: ((any Subscription) -> Bool)? = nil,
        receiveOutput: ((Output) -> Bool)? = nil,
        receiveCompletion: ((Subscribers.Completion<Failure>) -> Bool)? = nil
    ) -> Publishers.Breakpoint<Self> {
        Publishers.Breakpoint(upstream: self, receiveSubscription: receiveSubscription,
                              receiveOutput: receiveOutput, receiveCompletion: receiveCompletion)
    }

    /// Raises a debugger signal upon receiving a failure.
    ///
    /// When the upstream publisher fails with an error, this publisher raises the `SIGTRAP`
    /// signal, which stops the process in the debugger. Otherwise, this publisher passes through
    /// values and completions as-is.
    ///
    /// - Returns: A publisher that raises a debugger signal upon receiving a failure.
    @inlinable
    public func breakpointOnError() -> Publishers.Breakpoint<Self> {
        breakpoint(receiveCompletion: { completion in
            if case .failure = completion { return true }
            return false
        })
    }
}
