import SluiceCore
import SluiceTesting
import Testing

/// A connectable publisher that sends its values to the subscribers attached when connected.
private final class Gate: ConnectablePublisher, @unchecked Sendable {
    typealias Output = Int
    typealias Failure = Never
    let subject = PassthroughSubject<Int, Never>()
    let values: [Int]
    init(_ values: [Int]) { self.values = values }
    func receive<S: Subscriber>(subscriber: S) where S.Input == Int, S.Failure == Never {
        subject.subscribe(subscriber)
    }
    func connect() -> any Cancellable {
        values.publisher.subscribe(subject)
    }
}

@Suite("ConnectablePublisher")
struct ConnectablePublisherTests {
    @Test func nothingFlowsUntilConnect() {
        let gate: any ConnectablePublisher<Int, Never> = Gate([1, 2])
        let subscriber = TestSubscriber<Int, Never>()
        gate.subscribe(subscriber)
        #expect(subscriber.values.isEmpty)
        let connection = gate.connect()
        #expect(subscriber.values == [1, 2])
        #expect(subscriber.completion == .finished)
        connection.cancel()
    }
}
