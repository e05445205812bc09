import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("ControlPublisher")
struct ControlPublisherTests {
    @Test func deliversTheControlTypedAsItsOwnClass() {
        let field = TextField(text: "Moe")
        let publisher: ControlPublisher<TextField> = field.publisher(for: .editingChanged)
        let subscriber = TestSubscriber<TextField, Never>()
        publisher.subscribe(subscriber)
        field.sendActions(for: .editingChanged)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.values.first === field)
        #expect(subscriber.values.first?.text == "Moe")   // no cast needed
    }

    @Test func reportsTheChosenEventOnly() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>()
        control.publisher(for: .valueChanged).subscribe(subscriber)
        control.sendActions(for: .primaryActionTriggered)
        control.sendActions(for: .touchUpInside)
        #expect(subscriber.values.isEmpty)
        control.sendActions(for: .valueChanged)
        control.sendActions(for: [.valueChanged, .touchUpInside])
        #expect(subscriber.values.count == 2)
    }

    @Test func defaultsToThePrimaryAction() {
        let control = Control()
        #expect(control.publisher().event == .primaryActionTriggered)
        let subscriber = TestSubscriber<Control, Never>()
        control.publisher().subscribe(subscriber)
        control.sendActions(for: .primaryActionTriggered)
        #expect(subscriber.values.count == 1)
    }

    @Test func becomesATargetOnlyOnceDemandArrives() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>(initialDemand: .none)
        control.publisher().subscribe(subscriber)
        #expect(control.registeredActionCount == 0)
        control.sendActions(for: .primaryActionTriggered)
        subscriber.request(.max(1))
        #expect(control.registeredActionCount == 1)
        subscriber.request(.max(1))   // still one registration
        #expect(control.registeredActionCount == 1)
        #expect(subscriber.values.isEmpty)
    }

    @Test func dropsEventsWhileThereIsNoDemand() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>(initialDemand: .max(1))
        control.publisher().subscribe(subscriber)
        control.sendActions(for: .primaryActionTriggered)
        control.sendActions(for: .primaryActionTriggered)   // no demand left: dropped
        #expect(subscriber.values.count == 1)
        subscriber.request(.max(1))
        control.sendActions(for: .primaryActionTriggered)
        #expect(subscriber.values.count == 2)
    }

    @Test func demandReturnedFromReceiveIsHonoured() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        control.publisher().subscribe(subscriber)
        for _ in 0..<3 { control.sendActions(for: .primaryActionTriggered) }
        #expect(subscriber.values.count == 3)
    }

    @Test func cancelStopsAndRemovesTheTarget() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>()
        control.publisher().subscribe(subscriber)
        control.sendActions(for: .primaryActionTriggered)
        #expect(control.registeredActionCount == 1)
        subscriber.cancel()
        #expect(control.registeredActionCount == 0)
        control.sendActions(for: .primaryActionTriggered)
        #expect(subscriber.values.count == 1)
        #expect(subscriber.completion == nil)   // it never completes
    }

    @Test func cancelFromInsideReceiveRemovesTheTarget() {
        let control = Control()
        let subscriber = TestSubscriber<Control, Never>()
        subscriber.onValue = { _, subscriber in
            subscriber.cancel()
            return .none
        }
        control.publisher().subscribe(subscriber)
        control.sendActions(for: .primaryActionTriggered)
        control.sendActions(for: .primaryActionTriggered)
        #expect(subscriber.values.count == 1)
        #expect(control.registeredActionCount == 0)
    }

    @Test func aDeallocatedSubscriptionRemovesItsTarget() {
        let control = Control()
        let subscriber = HoldingSubscriber<Control, Never>()
        control.publisher().subscribe(subscriber)
        weak let subscription = subscriber.subscription.map { $0 as AnyObject }
        #expect(control.registeredActionCount == 1)

        subscriber.subscription = nil   // dropped, not cancelled
        #expect(subscription == nil)
        #expect(control.registeredActionCount == 0)   // deinit removed the target
    }

    @Test func doesNotRetainTheControl() {
        var control: Control? = Control()
        weak let weakControl = control
        let subscriber = TestSubscriber<Control, Never>()
        let publisher = control!.publisher()
        publisher.subscribe(subscriber)
        control = nil
        #expect(weakControl == nil)
        subscriber.cancel()   // cancelling after the control went away is harmless
        #expect(subscriber.values.isEmpty)
    }

    @Test func eachSubscriberIsItsOwnTarget() {
        let control = Control()
        let first = TestSubscriber<Control, Never>()
        let second = TestSubscriber<Control, Never>()
        let publisher = control.publisher()
        publisher.subscribe(first)
        publisher.subscribe(second)
        #expect(control.registeredActionCount == 2)
        control.sendActions(for: .primaryActionTriggered)
        first.cancel()
        control.sendActions(for: .primaryActionTriggered)
        #expect(first.values.count == 1)
        #expect(second.values.count == 2)
        #expect(control.registeredActionCount == 1)
    }

    @Test func sinkAndAnyCancellableWork() {
        let control = Control()
        var taps = 0
        let cancellable = control.publisher().sink { _ in taps += 1 }
        control.sendActions(for: .primaryActionTriggered)
        cancellable.cancel()
        control.sendActions(for: .primaryActionTriggered)
        #expect(taps == 1)
        #expect(control.registeredActionCount == 0)
    }

    // MARK: The contract kit

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            let control = Control()
            return PublisherContract.Fixture(control.publisher(for: .valueChanged)) {
                for _ in 0..<5 { control.sendActions(for: .valueChanged) }
            }
        }
    }
}
