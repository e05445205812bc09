import SluiceCore
import SluiceTesting
import Testing

@Suite struct DebounceTests {
    @Test func publishesTheLatestValueAfterAPause() {
        let scheduler = VirtualScheduler()
        let searches = PassthroughSubject<String, Never>()
        let subscriber = TestSubscriber<String, Never>()
        searches.debounce(for: .ms(300), scheduler: scheduler).subscribe(subscriber)
        searches.send("s")
        scheduler.advance(by: .ms(100))
        searches.send("sw")
        scheduler.advance(by: .ms(299))
        #expect(subscriber.values.isEmpty)
        scheduler.advance(by: .ms(1))
        #expect(subscriber.values == ["sw"])
        searches.send("swi")
        scheduler.advance(by: .seconds(10))
        #expect(subscriber.values == ["sw", "swi"])   // the timer fires once, not every 300 ms
    }

    @Test func completionDropsAPendingValue() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, TestError>()
        let finished = TestSubscriber<Int, TestError>()
        subject.debounce(for: .ms(10), scheduler: scheduler).subscribe(finished)
        subject.send(1)
        subject.send(completion: .finished)
        scheduler.run()
        #expect(finished.values.isEmpty)
        #expect(finished.completion == .finished)

        let failing = PassthroughSubject<Int, TestError>()
        let failed = TestSubscriber<Int, TestError>()
        failing.debounce(for: .ms(10), scheduler: scheduler).subscribe(failed)
        failing.send(1)
        scheduler.run()
        failing.send(completion: .failure(TestError()))
        scheduler.run()
        #expect(failed.values == [1])
        #expect(failed.completion == .failure(TestError()))
    }

    @Test func aValueDueWithoutDemandIsDropped() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .none)
        subject.debounce(for: .ms(10), scheduler: scheduler).subscribe(subscriber)
        subject.send(1)
        scheduler.run()
        subscriber.request(.max(1))
        #expect(subscriber.values.isEmpty)
        subject.send(2)
        scheduler.run()
        #expect(subscriber.values == [2])
    }

    @Test func cancelStopsThePendingValue() {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.debounce(for: .ms(10), scheduler: scheduler).subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        #expect(scheduler.pendingCount == 0)   // the timer is cancelled too
        scheduler.run()
        #expect(subscriber.values.isEmpty)
    }

    @Test func releasesTheSubscriber() {
        let scheduler = VirtualScheduler()
        weak var weakSubscriber: TestSubscriber<Int, Never>?
        let subject = PassthroughSubject<Int, Never>()
        do {
            let s = TestSubscriber<Int, Never>()
            weakSubscriber = s
            subject.debounce(for: .ms(10), scheduler: scheduler).subscribe(s)
            subject.send(1)
            s.cancel()
        }
        #expect(weakSubscriber == nil)
    }

    @Test func valuesFromTwoThreadsEndInOneValue() async {
        let scheduler = VirtualScheduler()
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.debounce(for: .ms(10), scheduler: scheduler).subscribe(subscriber)
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<2 { group.addTask { for i in 0..<500 { subject.send(t * 1000 + i) } } }
        }
        scheduler.run()
        #expect(subscriber.values.count == 1)
    }
}
