import SluiceCore
import SluiceTesting
import Testing

@Suite struct MeasureIntervalTests {
    @Test func measuresFromTheSubscriptionAndThenBetweenValues() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<String, TestError>()
        let subscriber = TestSubscriber<VirtualTime.Stride, TestError>()
        subject.measureInterval(using: scheduler).subscribe(subscriber)
        scheduler.advance(by: .ms(30))
        subject.send("a")
        scheduler.advance(by: .ms(5))
        subject.send("b")
        subject.send("c")
        subject.send(completion: .failure(TestError()))
        #expect(subscriber.values == [.ms(30), .ms(5), .ms(0)])
        #expect(subscriber.completion == .failure(TestError()))
    }

    @Test func demandPassesThrough() {
        let scheduler = VirtualScheduler()
        let subscriber = TestSubscriber<VirtualTime.Stride, Never>(initialDemand: .max(2))
        (1...5).publisher.measureInterval(using: scheduler).subscribe(subscriber)
        #expect(subscriber.values.count == 2)
        subscriber.request(.max(10))
        #expect(subscriber.values.count == 5)
        #expect(subscriber.completion == .finished)
    }

    @Test func cancelAndRelease() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        weak var weakSubscriber: TestSubscriber<VirtualTime.Stride, Never>?
        do {
            let s = TestSubscriber<VirtualTime.Stride, Never>()
            weakSubscriber = s
            subject.measureInterval(using: scheduler).subscribe(s)
            s.cancel()
            subject.send(1)
            #expect(s.values.isEmpty)
        }
        #expect(weakSubscriber == nil)
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify { (1...4).publisher.measureInterval(using: ImmediateScheduler.shared) }
    }
}
