import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("Publishers.Mapper")
struct MapperTests {
    struct Failure: Error, Equatable {}

    @Test func mapsEveryValue() {
        let publisher: Publishers.Mapper<Publishers.Sequence<[Int], Never>, String> =
            [1, 2, 3, 4].publisher.mapper { "\($0)" }
        let subscriber = TestSubscriber<String, Never>()
        publisher.subscribe(subscriber)
        #expect(subscriber.values == ["1", "2", "3", "4"])
        #expect(subscriber.completion == .finished)
    }

    @Test func passesDemandThrough() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(2))
        [1, 2, 3].publisher.mapper { $0 * 10 }.subscribe(subscriber)
        #expect(subscriber.values == [10, 20])
        #expect(subscriber.completion == nil)
        subscriber.request(.max(1))
        #expect(subscriber.values == [10, 20, 30])
        #expect(subscriber.completion == .finished)
    }

    @Test func passesReturnedDemandUpstream() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1), demandPerValue: .max(1))
        [1, 2, 3].publisher.mapper { $0 + 1 }.subscribe(subscriber)
        #expect(subscriber.values == [2, 3, 4])
    }

    @Test func passesTheUpstreamSubscriptionAndFailure() {
        let subject = PassthroughSubject<Int, Failure>()
        let subscriber = TestSubscriber<Int, Failure>()
        subject.mapper { -$0 }.subscribe(subscriber)
        subject.send(1)
        subject.send(completion: .failure(Failure()))
        subject.send(2)
        #expect(subscriber.eventDescriptions.first == "subscription(PassthroughSubject)")
        #expect(subscriber.values == [-1])
        #expect(subscriber.completion == .failure(Failure()))
    }

    @Test func cancelReachesTheUpstream() {
        let subject = PassthroughSubject<Int, Never>()
        let subscriber = TestSubscriber<Int, Never>()
        subject.mapper { $0 }.subscribe(subscriber)
        subject.send(1)
        subscriber.cancel()
        subject.send(2)
        #expect(subscriber.values == [1])
    }

    @Test func behavesLikeTheBuiltInMap() {
        let mine = TestSubscriber<String, Never>(initialDemand: .max(2))
        let builtIn = TestSubscriber<String, Never>(initialDemand: .max(2))
        PepBoys().mapper { $0.uppercased() }.subscribe(mine)
        PepBoys().map { $0.uppercased() }.subscribe(builtIn)
        mine.request(.max(1))
        builtIn.request(.max(1))
        #expect(mine.eventDescriptions == builtIn.eventDescriptions)
        #expect(mine.values == ["MANNY", "MOE", "JACK"])
    }

    // MARK: The contract kit

    @Test func keepsTheContractOverASequence() async throws {
        try await PublisherContract.verify { (1...5).publisher.mapper { $0 * 10 } }
    }

    @Test func keepsTheContractOverPepBoys() async throws {
        try await PublisherContract.verify { PepBoys().mapper { $0.count } }
    }

    @Test func keepsTheContractOverASubject() async throws {
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.mapper { "\($0)" }) {
                for value in 1...3 { subject.send(value) }
                subject.send(completion: .finished)
            }
        }
    }
}
