import Dispatch
import SluiceCore
import Testing

private final class Model: @unchecked Sendable {
    var value = 0
    var history: [Int] = []
    var observedValue: Int = 0 {
        didSet { history.append(observedValue) }
    }
}

@Suite("Subscribers.Assign")
struct AssignTests {
    @Test func requestsUnlimitedAndAssignsEachValue() {
        let publisher = ManualPublisher<Int, Never>()
        let model = Model()
        let assign = Subscribers.Assign(object: model, keyPath: \Model.observedValue)
        publisher.subscribe(assign)
        #expect(publisher.subscription.requests == [.unlimited])
        #expect(publisher.send(1) == .none)
        #expect(publisher.send(2) == .none)
        #expect(model.history == [1, 2])
        #expect(model.observedValue == 2)
    }

    @Test func exposesObjectAndKeyPath() {
        let model = Model()
        let assign = Subscribers.Assign(object: model, keyPath: \Model.value)
        #expect(assign.object === model)
        #expect(assign.keyPath == \Model.value)
    }

    @Test func releasesTheObjectOnCompletion() {
        let publisher = ManualPublisher<Int, Never>()
        weak var weakModel: Model?
        let assign: Subscribers.Assign<Model, Int>
        do {
            let model = Model()
            weakModel = model
            assign = Subscribers.Assign(object: model, keyPath: \Model.value)
        }
        publisher.subscribe(assign)
        publisher.send(4)
        #expect(weakModel?.value == 4)
        publisher.send(completion: .finished)
        #expect(weakModel == nil)
        #expect(assign.object == nil)
        // Values after completion are dropped (there is no object any more) and do not crash.
        publisher.send(5)
        #expect(publisher.subscription.cancelCount == 0)
    }

    @Test func cancelReleasesTheObjectAndCancelsUpstreamOnce() {
        let publisher = ManualPublisher<Int, Never>()
        weak var weakModel: Model?
        let assign: Subscribers.Assign<Model, Int>
        do {
            let model = Model()
            weakModel = model
            assign = Subscribers.Assign(object: model, keyPath: \Model.value)
        }
        publisher.subscribe(assign)
        assign.cancel()
        assign.cancel()
        #expect(weakModel == nil)
        #expect(assign.object == nil)
        #expect(publisher.subscription.cancelCount == 1)
    }

    @Test func cancelsASecondSubscription() {
        let first = ManualPublisher<Int, Never>()
        let second = ManualPublisher<Int, Never>()
        let assign = Subscribers.Assign(object: Model(), keyPath: \Model.value)
        first.subscribe(assign)
        second.subscribe(assign)
        #expect(second.subscription.cancelCount == 1)
        #expect(second.subscription.requests.isEmpty)
        #expect(first.subscription.cancelCount == 0)
    }

    @Test func cancelsASubscriptionArrivingAfterCompletionOrCancel() {
        let assign = Subscribers.Assign(object: Model(), keyPath: \Model.value)
        assign.cancel()
        let publisher = ManualPublisher<Int, Never>()
        publisher.subscribe(assign)
        #expect(publisher.subscription.cancelCount == 1)
        #expect(publisher.subscription.requests.isEmpty)
    }

    @Test func assignOperatorKeepsTheObjectUntilCancelled() {
        let subject = PassthroughSubject<Int, Never>()
        weak var weakModel: Model?
        let cancellable: AnyCancellable
        do {
            let model = Model()
            weakModel = model
            cancellable = subject.assign(to: \.value, on: model)
        }
        subject.send(7)
        #expect(weakModel?.value == 7)
        cancellable.cancel()
        #expect(weakModel == nil)
    }

    @Test func assignOperatorReleasesTheObjectWhenTheCancellableIsReleased() {
        let publisher = ManualPublisher<Int, Never>()
        weak var weakModel: Model?
        var cancellable: AnyCancellable?
        do {
            let model = Model()
            weakModel = model
            cancellable = publisher.assign(to: \.value, on: model)
        }
        #expect(weakModel != nil)
        cancellable = nil
        #expect(publisher.subscription.cancelCount == 1)
        publisher.detachAll()
        #expect(weakModel == nil)
        _ = cancellable
    }

    @Test func assignOperatorWithASequence() {
        let model = Model()
        let cancellable = [1, 2, 3].publisher.assign(to: \.observedValue, on: model)
        #expect(model.history == [1, 2, 3])
        #expect(model.observedValue == 3)
        _ = cancellable
    }

    @Test func propertySetterMayCancelReentrantly() {
        final class SelfCancelling {
            var cancellable: AnyCancellable?
            var values: [Int] = []
            var value = 0 {
                didSet {
                    values.append(value)
                    if value == 2 { cancellable?.cancel() }
                }
            }
        }
        let subject = PassthroughSubject<Int, Never>()
        let object = SelfCancelling()
        object.cancellable = subject.assign(to: \.value, on: object)
        subject.send(1)
        subject.send(2)
        subject.send(3)
        #expect(object.values == [1, 2])
    }

    @Test func concurrentValuesAndCancelDoNotCrash() {
        let subject = PassthroughSubject<Int, Never>()
        let model = Model()
        let assign = Subscribers.Assign(object: model, keyPath: \Model.value)
        subject.subscribe(assign)
        DispatchQueue.concurrentPerform(iterations: 4) { index in
            if index == 0 {
                assign.cancel()
            } else {
                for value in 0..<500 { subject.send(value) }
            }
        }
        #expect(assign.object == nil)
    }

    @Test func descriptions() {
        let assign = Subscribers.Assign(object: Model(), keyPath: \Model.value)
        #expect(String(describing: assign) == "Assign Model.")
        #expect(assign.playgroundDescription as? String == "Assign Model.")
        let labels = assign.customMirror.children.map(\.label)
        #expect(labels == ["object", "keyPath", "status"])
    }

    @Test func ignoresValuesOutsideItsSubscription() {
        // As Apple's: nothing is assigned before the subscription arrives, nor after the end.
        let model = Model()
        let assign = Subscribers.Assign(object: model, keyPath: \Model.value)
        #expect(assign.receive(12) == .none)
        #expect(model.value != 12)
        let publisher = ManualPublisher<Int, Never>()
        publisher.subscribe(assign)
        publisher.send(42)
        #expect(model.value == 42)
        publisher.send(completion: .finished)
        #expect(assign.receive(100) == .none)
        #expect(model.value == 42)
    }
}
