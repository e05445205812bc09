import SluiceCore
import SluiceTesting
import Testing

@Test func sequenceMapFilterSink() {
    var received: [Int] = []
    var completion: Subscribers.Completion<Never>?
    let cancellable = Publishers.Map(upstream: Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...10)) { $0 * 2 }
        .filter { $0 % 3 == 0 }
        .sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
    #expect(received == [6, 12, 18])
    #expect(completion == .finished)
    _ = cancellable
}

@Test func limitedDemandThroughFilter() {
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    Publishers.Sequence<ClosedRange<Int>, Never>(sequence: 1...10).filter { $0 % 2 == 0 }.subscribe(subscriber)
    #expect(subscriber.values == [2])
    subscriber.request(.max(2))
    #expect(subscriber.values == [2, 4, 6])
    subscriber.request(.unlimited)
    #expect(subscriber.values == [2, 4, 6, 8, 10])
    #expect(subscriber.completion == .finished)
}

@Test func passthroughSubjectDemand() {
    let subject = PassthroughSubject<Int, Never>()
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
    subject.subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subscriber.request(.max(1))
    subject.send(3)
    subject.send(completion: .finished)
    #expect(subscriber.eventDescriptions == ["subscription(PassthroughSubject)", "value(1)", "value(3)", "finished"])
}

@Test func currentValueSubjectConflates() {
    let subject = CurrentValueSubject<Int, Never>(0)
    let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
    subject.subscribe(subscriber)
    subject.send(1)
    subject.send(2)
    subscriber.request(.max(1))
    #expect(subscriber.values == [2])
    subject.value = 5
    #expect(subscriber.values == [2])
    subscriber.request(.max(5))
    #expect(subscriber.values == [2, 5])
    subject.send(6)
    #expect(subscriber.values == [2, 5, 6])
}

@Test func reentrantSend() {
    let subject = PassthroughSubject<Int, Never>()
    var received: [Int] = []
    let c = subject.sink { value in
        received.append(value)
        if value < 3 { subject.send(value + 1) }
    }
    subject.send(1)
    #expect(received == [1, 2, 3])
    _ = c
}
