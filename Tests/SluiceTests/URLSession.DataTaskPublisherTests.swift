import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sluice
import SluiceExamples
import SluiceTesting
import Testing

/// The data task publisher against a real HTTP server on 127.0.0.1 that each test starts itself.
/// One test at a time: run side by side, a test's request could reach another test's server on a
/// port just freed and taken again, and Linux URLSession's shared connection pool mixes them up.
@Suite(.serialized) struct DataTaskPublisherTests {
    private typealias Output = URLSession.DataTaskPublisher.Output

    private static let largeBody: [UInt8] = (0..<(5 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 11) }

    private static func routes(_ path: String) -> LoopbackHTTPServer.Reply {
        switch path {
        case "/hello": .respond(status: 200, body: Array("Hello, Manny".utf8))
        case "/large": .respond(status: 200, body: largeBody)
        case "/slow": .holdUntilClientCloses
        case let path where path.hasPrefix("/n/"): .respond(status: 200, body: Array(path.dropFirst(3).utf8))
        default: .respond(status: 404, body: Array("no such page".utf8))
        }
    }

    /// Subscribes with unlimited demand and waits for the completion.
    private func fetch(_ publisher: URLSession.DataTaskPublisher) async -> ([Output], Subscribers.Completion<URLError>?) {
        let recorder = TestSubscriber<Output, URLError>()
        publisher.subscribe(recorder)
        await waitUntil { recorder.completion != nil }
        return (recorder.values, recorder.completion)   // nil if it never came
    }

    @Test func answersWithTheBodyAndTheResponse() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let (values, completion) = await fetch(URLSession.shared.dataTaskPublisher(for: server.url("/hello")))
        #expect(values.count == 1)
        #expect(values.first.map { String(decoding: $0.data, as: UTF8.self) } == "Hello, Manny")
        #expect((values.first?.response as? HTTPURLResponse)?.statusCode == 200)
        #expect(completion == .finished)
        #expect(server.requestedPaths == ["/hello"])
    }

    @Test func aNotFoundIsAValueNotAFailure() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let (values, completion) = await fetch(URLSession.shared.dataTaskPublisher(for: URLRequest(url: server.url("/missing"))))
        #expect((values.first?.response as? HTTPURLResponse)?.statusCode == 404)
        #expect(values.first.map { String(decoding: $0.data, as: UTF8.self) } == "no such page")
        #expect(completion == .finished)
    }

    @Test func aLargeBodyArrivesByteForByte() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let (values, completion) = await fetch(URLSession.shared.dataTaskPublisher(for: server.url("/large")))
        #expect(values.count == 1)
        #expect(values.first?.data == Data(Self.largeBody))
        #expect(completion == .finished)
    }

    @Test func aRefusedConnectionFailsWithAURLError() async throws {
        let url = URL(string: "http://127.0.0.1:\(try LoopbackHTTPServer.closedPort())/hello")!
        let (values, completion) = await fetch(URLSession.shared.dataTaskPublisher(for: url))
        #expect(values.isEmpty)
        guard case .failure(let error)? = completion else {
            Issue.record("expected a failure, got \(String(describing: completion))")
            return
        }
        #expect(error.code == .cannotConnectToHost)
    }

    @Test func nothingIsFetchedBeforeDemand() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let recorder = TestSubscriber<Output, URLError>(initialDemand: .none)
        URLSession.shared.dataTaskPublisher(for: server.url("/hello")).subscribe(recorder)
        #expect(!server.waitForRequests(1, timeout: 0.3))
        #expect(recorder.events.count == 1)   // the subscription only
        recorder.request(.max(1))
        await waitUntil { recorder.completion != nil }
        #expect(server.requestedPaths == ["/hello"])
        #expect(recorder.values.count == 1)
        #expect(recorder.completion == .finished)
    }

    @Test func cancellingASlowRequestClosesTheConnectionAndDeliversNothing() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let recorder = TestSubscriber<Output, URLError>()
        URLSession.shared.dataTaskPublisher(for: server.url("/slow")).subscribe(recorder)
        #expect(server.waitForRequests(1))
        recorder.cancel()
        #expect(server.waitForClientClose())
        try await Task.sleep(for: .milliseconds(100))
        #expect(recorder.values.isEmpty)
        #expect(recorder.completion == nil)
    }

    @Test func aHundredConcurrentRequestsAreEachAnsweredOnce() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let recorders = (0..<100).map { _ in TestSubscriber<Output, URLError>() }
        DispatchQueue.concurrentPerform(iterations: 100) { i in
            URLSession.shared.dataTaskPublisher(for: server.url("/n/\(i)")).subscribe(recorders[i])
        }
        await waitUntil(timeout: 60) { recorders.allSatisfy { $0.completion != nil } }
        for (i, recorder) in recorders.enumerated() {
            #expect(recorder.values.map { String(decoding: $0.data, as: UTF8.self) } == ["\(i)"])
            #expect(recorder.completion == .finished)
        }
        #expect(server.requestedPaths.count == 100)
        #expect(Set(server.requestedPaths).count == 100)
    }

    @Test func theSubscriberIsReleasedAfterCompletionAndAfterCancel() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        weak var completed: TestSubscriber<Output, URLError>?
        weak var cancelled: TestSubscriber<Output, URLError>?
        do {
            let recorder = TestSubscriber<Output, URLError>()
            completed = recorder
            URLSession.shared.dataTaskPublisher(for: server.url("/hello")).subscribe(recorder)
            await waitUntil { recorder.completion != nil }
            let other = TestSubscriber<Output, URLError>(initialDemand: .none)
            cancelled = other
            URLSession.shared.dataTaskPublisher(for: server.url("/hello")).subscribe(other)
            other.cancel()
        }
        await waitUntil { completed == nil && cancelled == nil }
        #expect(completed == nil)
        #expect(cancelled == nil)
    }

    /// The data task keeps the contract under the kit's single-threaded scenarios, each a real
    /// request to the loopback server (settle: long enough for a response to come back). The
    /// cross-thread cancel scenarios are left out: Linux FoundationNetworking traps ("a task that
    /// is not in the registry") when a task is cancelled just as it completes — a race inside
    /// URLSession that no publisher on top of it can close.
    @Test func keepsTheContract() async throws {
        let server = try LoopbackHTTPServer(route: Self.routes)
        defer { server.stop() }
        let url = server.url("/hello")
        // A session of its own: the other tests' requests on the shared session stay apart from
        // the many this one starts and cancels.
        let session = URLSession(configuration: .ephemeral)
        defer { session.invalidateAndCancel() }
        try await PublisherContract.verify(scenarios: PublisherContract.Scenario.singleThreaded, settle: .milliseconds(300)) {
            session.dataTaskPublisher(for: url)
        }
    }

    @Test func apiShape() {
        let url = URL(string: "http://127.0.0.1/x")!
        let publisher = URLSession.shared.dataTaskPublisher(for: url)
        #expect(publisher.request == URLRequest(url: url))
        #expect(publisher.session === URLSession.shared)
        #expect(publisher == URLSession.DataTaskPublisher(request: URLRequest(url: url), session: .shared))
        #expect(publisher != URLSession.shared.dataTaskPublisher(for: URL(string: "http://127.0.0.1/y")!))
        let recorder = TestSubscriber<Output, URLError>(initialDemand: .none)
        publisher.subscribe(recorder)
        #expect(recorder.eventDescriptions == ["subscription(DataTaskPublisher)"])
        let labels = recorder.subscription.map { Mirror(reflecting: $0).children.compactMap(\.label) }
        #expect(labels == ["task", "downstream", "parent", "demand"])
        recorder.cancel()
    }

    @Test func zeroDemandStopsTheProgram() async {
        await #expect(processExitsWith: .failure) {
            let recorder = TestSubscriber<Output, URLError>(initialDemand: .none)
            URLSession.shared.dataTaskPublisher(for: URL(string: "http://127.0.0.1/x")!).subscribe(recorder)
            recorder.request(.none)
        }
    }
}

/// Polls `condition` every few milliseconds until it holds or `timeout` seconds pass. Generous:
/// under Thread Sanitizer, with the whole suite running beside it on two cores, the 5 MiB body
/// has taken 20 seconds to arrive (3 seconds alone).
func waitUntil(timeout: Double = 60, _ condition: () -> Bool) async {
    let deadline = ContinuousClock.now + .seconds(timeout)
    while !condition(), ContinuousClock.now < deadline {
        try? await Task.sleep(for: .milliseconds(5))
    }
}
