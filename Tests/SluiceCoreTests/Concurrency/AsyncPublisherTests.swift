import SluiceCore
import SluiceTesting
import Testing

@Suite struct AsyncPublisherTests {
    @Test func iteratesValuesOneAtATime() async {
        var requests: [Subscribers.Demand] = []
        let publisher = (1...4).publisher.handleEvents(receiveRequest: { requests.append($0) })
        var seen: [Int] = []
        for await value in publisher.values { seen.append(value) }
        #expect(seen == [1, 2, 3, 4])
        #expect(requests.allSatisfy { $0 == .max(1) })
    }

    @Test func aFailureIsThrown() async {
        let publisher = [1, 2].publisher.setFailureType(to: TestError.self).append(Fail(error: TestError(code: 3)))
        var seen: [Int] = []
        await #expect(throws: TestError(code: 3)) {
            for try await value in publisher.values { seen.append(value) }
        }
        #expect(seen == [1, 2])
    }

    @Test func cancellingTheTaskCancelsTheSubscription() async {
        let subject = PassthroughSubject<Int, Never>()
        let cancelled = Flag()
        let subscribed = Flag()
        let task = Task {
            var count = 0
            let values = subject.handleEvents(receiveSubscription: { _ in subscribed.set() }, receiveCancel: { cancelled.set() }).values
            for await _ in values { count += 1 }
            return count
        }
        await waitUntil { subscribed.isSet }
        subject.send(1)
        task.cancel()
        _ = await task.value
        #expect(cancelled.isSet)
    }

    @Test func futureValue() async throws {
        let future = Future<Int, Never> { $0(.success(42)) }
        #expect(await future.value == 42)
        let failing = Future<Int, TestError> { $0(.failure(TestError(code: 7))) }
        await #expect(throws: TestError(code: 7)) { _ = try await failing.value }
    }
}
