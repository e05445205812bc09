import SluiceCore
import SluiceTesting
import Testing

/// `Merge4` … `Merge8`: each arity on the shared engine.
@Suite("Publishers.Merge4…Merge8")
struct MergeNTests {
    typealias Manual = ManualPublisher<Int, TestError>
    typealias J = Just<Int>

    /// Subscribes `merged` built over `count` manual upstreams and checks every arity-independent
    /// behaviour: order, demand forwarding and buffering, finishing only when all finish.
    func checkValuesDemandAndCompletion(count: Int, _ make: ([Manual]) -> AnyPublisher<Int, TestError>) {
        let upstreams = (0..<count).map { _ in Manual() }
        let subscriber = TestSubscriber<Int, TestError>(initialDemand: .max(1))
        make(upstreams).subscribe(subscriber)
        #expect(upstreams.allSatisfy { $0.subscription.requests == [.max(1)] })
        for (index, upstream) in upstreams.enumerated().reversed() { upstream.send(index) }
        #expect(subscriber.values == [count - 1])
        subscriber.request(.max(count))
        #expect(subscriber.values == Array((0..<count).reversed()))
        #expect(upstreams.allSatisfy { $0.subscription.requests == [.max(1), .max(count)] })
        for upstream in upstreams.dropLast() { upstream.send(completion: .finished) }
        #expect(subscriber.completion == nil)
        upstreams.last!.send(completion: .finished)
        #expect(subscriber.completion == .finished)
        #expect(upstreams.allSatisfy { $0.subscription.cancelCount == 0 })
        #expect(upstreams.allSatisfy { $0.subscriberDescription == "Merge" })
    }

    /// Failure of one upstream cancels all the others; cancel cancels all.
    func checkFailureAndCancel(count: Int, _ make: ([Manual]) -> AnyPublisher<Int, TestError>) {
        let upstreams = (0..<count).map { _ in Manual() }
        let subscriber = TestSubscriber<Int, TestError>()
        make(upstreams).subscribe(subscriber)
        upstreams[count / 2].send(completion: .failure(TestError(code: count)))
        #expect(subscriber.eventDescriptions == ["subscription(Merge)", "failure(TestError(code: \(count)))"])
        for (index, upstream) in upstreams.enumerated() {
            #expect(upstream.subscription.cancelCount == (index == count / 2 ? 0 : 1))
        }
        let others = (0..<count).map { _ in Manual() }
        let cancelling = TestSubscriber<Int, TestError>()
        make(others).subscribe(cancelling)
        cancelling.cancel()
        others[0].send(1)
        #expect(cancelling.values.isEmpty)
        #expect(others.allSatisfy { $0.subscription.cancelCount == 1 })
    }

    @Test func merge4() {
        let make = { (u: [Manual]) in Publishers.Merge4(u[0], u[1], u[2], u[3]).eraseToAnyPublisher() }
        checkValuesDemandAndCompletion(count: 4, make)
        checkFailureAndCancel(count: 4, make)
    }

    @Test func merge5() {
        let make = { (u: [Manual]) in Publishers.Merge5(u[0], u[1], u[2], u[3], u[4]).eraseToAnyPublisher() }
        checkValuesDemandAndCompletion(count: 5, make)
        checkFailureAndCancel(count: 5, make)
    }

    @Test func merge6() {
        let make = { (u: [Manual]) in
            Publishers.Merge6(u[0], u[1], u[2], u[3], u[4], u[5]).eraseToAnyPublisher()
        }
        checkValuesDemandAndCompletion(count: 6, make)
        checkFailureAndCancel(count: 6, make)
    }

    @Test func merge7() {
        let make = { (u: [Manual]) in
            Publishers.Merge7(u[0], u[1], u[2], u[3], u[4], u[5], u[6]).eraseToAnyPublisher()
        }
        checkValuesDemandAndCompletion(count: 7, make)
        checkFailureAndCancel(count: 7, make)
    }

    @Test func merge8() {
        let make = { (u: [Manual]) in
            Publishers.Merge8(u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7]).eraseToAnyPublisher()
        }
        checkValuesDemandAndCompletion(count: 8, make)
        checkFailureAndCancel(count: 8, make)
    }

    @Test func synchronousUpstreamsDeliverInOrderAtEveryArity() {
        func run<P: Publisher>(_ publisher: P) -> [Int] where P.Output == Int, P.Failure == Never {
            let subscriber = TestSubscriber<Int, Never>()
            publisher.subscribe(subscriber)
            #expect(subscriber.completion == .finished)
            return subscriber.values
        }
        let j = (1...8).map { Just($0) }
        #expect(run(j[0].merge(with: j[1], j[2], j[3])) == [1, 2, 3, 4])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4])) == [1, 2, 3, 4, 5])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5])) == [1, 2, 3, 4, 5, 6])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6])) == [1, 2, 3, 4, 5, 6, 7])
        #expect(run(j[0].merge(with: j[1], j[2], j[3], j[4], j[5], j[6], j[7])) == [1, 2, 3, 4, 5, 6, 7, 8])
    }

    @Test func reentrantRequestFromReceive() {
        let subscriber = TestSubscriber<Int, Never>(initialDemand: .max(1))
        subscriber.onValue = { _, subscriber in
            subscriber.request(.max(1))
            return .none
        }
        Publishers.Merge8([1, 2].publisher, [3].publisher, [4].publisher, [5].publisher, [6].publisher,
                          [7].publisher, [8].publisher, [9, 10].publisher).subscribe(subscriber)
        #expect(subscriber.values == Array(1...10))
        #expect(subscriber.completion == .finished)
    }

    @Test func fourThreadsIntoFourSubjects() {
        let subjects = (0..<4).map { _ in PassthroughSubject<Int, Never>() }
        let result = runMergeStress(subjects: subjects, perSource: 2_000,
                                    merged: subjects[0].merge(with: subjects[1], subjects[2], subjects[3]))
        #expect(result.values.count == 8_000)
        #expect(result.overlaps == 0)
        #expect(result.perSourceOrderHolds(sources: 4, perSource: 2_000))
        #expect(result.finished)
    }

    @Test func releasesTheSubscriber() {
        let s = (0..<8).map { _ in PassthroughSubject<Int, Never>() }
        #expect(!subscriberSurvives({ Publishers.Merge8(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).subscribe($0) },
                                    end: { $0.cancel() }))
        #expect(!subscriberSurvives({ Publishers.Merge4(s[0], s[1], s[2], s[3]).subscribe($0) }, end: { _ in
            for subject in s { subject.send(completion: .finished) }
        }))
    }

    @Test func keepsTheContract() async throws {
        try await PublisherContract.verify {
            Publishers.Merge4((1...3).publisher, (4...6).publisher, (7...9).publisher, (10...12).publisher)
        }
        try await PublisherContract.verify {
            Publishers.Merge8((1...3).publisher, (4...6).publisher, (7...9).publisher, (10...12).publisher,
                              (13...15).publisher, (16...18).publisher, (19...21).publisher, (22...24).publisher)
        }
    }

    @Test func propertiesAndEquatable() {
        let j = (1...8).map { Just($0) }
        let m4 = Publishers.Merge4(j[0], j[1], j[2], j[3])
        #expect(m4.d == j[3] && m4 == Publishers.Merge4(j[0], j[1], j[2], j[3]))
        #expect(m4 != Publishers.Merge4(j[0], j[1], j[2], j[4]))
        let m5 = Publishers.Merge5(j[0], j[1], j[2], j[3], j[4])
        #expect(m5.e == j[4] && m5 == Publishers.Merge5(j[0], j[1], j[2], j[3], j[4]))
        #expect(m5 != Publishers.Merge5(j[0], j[1], j[2], j[3], j[5]))
        let m6 = Publishers.Merge6(j[0], j[1], j[2], j[3], j[4], j[5])
        #expect(m6.f == j[5] && m6 == Publishers.Merge6(j[0], j[1], j[2], j[3], j[4], j[5]))
        #expect(m6 != Publishers.Merge6(j[0], j[1], j[2], j[3], j[4], j[6]))
        let m7 = Publishers.Merge7(j[0], j[1], j[2], j[3], j[4], j[5], j[6])
        #expect(m7.g == j[6] && m7 == Publishers.Merge7(j[0], j[1], j[2], j[3], j[4], j[5], j[6]))
        #expect(m7 != Publishers.Merge7(j[0], j[1], j[2], j[3], j[4], j[5], j[7]))
        let m8 = Publishers.Merge8(j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[7])
        #expect(m8.h == j[7] && m8 == Publishers.Merge8(j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[7]))
        #expect(m8 != Publishers.Merge8(j[0], j[1], j[2], j[3], j[4], j[5], j[6], j[0]))
    }

    @Test func types() {
        let j = Just(1)
        #expect(type(of: j.merge(with: j, j, j)) == Publishers.Merge4<J, J, J, J>.self)
        #expect(type(of: j.merge(with: j, j, j, j)) == Publishers.Merge5<J, J, J, J, J>.self)
        #expect(type(of: j.merge(with: j, j, j, j, j)) == Publishers.Merge6<J, J, J, J, J, J>.self)
        #expect(type(of: j.merge(with: j, j, j, j, j, j)) == Publishers.Merge7<J, J, J, J, J, J, J>.self)
        #expect(type(of: j.merge(with: j, j, j, j, j, j, j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
        let m4 = Publishers.Merge4(j, j, j, j)
        #expect(type(of: m4.merge(with: j)) == Publishers.Merge5<J, J, J, J, J>.self)
        #expect(type(of: m4.merge(with: j, j)) == Publishers.Merge6<J, J, J, J, J, J>.self)
        #expect(type(of: m4.merge(with: j, j, j)) == Publishers.Merge7<J, J, J, J, J, J, J>.self)
        #expect(type(of: m4.merge(with: j, j, j, j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
        let m5 = Publishers.Merge5(j, j, j, j, j)
        #expect(type(of: m5.merge(with: j)) == Publishers.Merge6<J, J, J, J, J, J>.self)
        #expect(type(of: m5.merge(with: j, j)) == Publishers.Merge7<J, J, J, J, J, J, J>.self)
        #expect(type(of: m5.merge(with: j, j, j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
        let m6 = Publishers.Merge6(j, j, j, j, j, j)
        #expect(type(of: m6.merge(with: j)) == Publishers.Merge7<J, J, J, J, J, J, J>.self)
        #expect(type(of: m6.merge(with: j, j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
        let m7 = Publishers.Merge7(j, j, j, j, j, j, j)
        #expect(type(of: m7.merge(with: j)) == Publishers.Merge8<J, J, J, J, J, J, J, J>.self)
    }
}
