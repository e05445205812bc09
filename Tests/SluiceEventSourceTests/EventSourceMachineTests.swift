import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// The state machine's transitions, without threads or sockets.
@Suite("EventStreamMachine")
struct EventSourceMachineTests {
    private let ignore = EventSourceConsumer(receive: { _ in .none }, complete: { _ in })

    private func machine(_ configuration: EventSource.Configuration = EventSource.Configuration()) -> EventStreamMachine<EventStreamParser> {
        EventStreamMachine<EventStreamParser>(configuration: configuration, consumer: ignore)
    }

    /// Opens `machine`'s first connection: its subscriber asks for one event, a connection that
    /// pauses with `pause` is attached and answered 200 with an event stream. The connection's id.
    private func open(_ machine: inout EventStreamMachine<EventStreamParser>, pause: EventStreamPauseMethod = .disconnect) -> UInt64 {
        let id = machine.request(.max(1)).connect!.id
        let attached = machine.attach(task(pause), id: id)
        #expect(attached)
        let allowed = machine.responded(id: id, status: 200, contentType: "text/event-stream").allow
        #expect(allowed)
        return id
    }

    /// A connection that never reads: the machine only holds it and names it in its actions.
    private func task(_ pause: EventStreamPauseMethod = .disconnect) -> IdleConnection {
        IdleConnection(pauseMethod: pause)
    }

    @Test func backoffDoublesUpToTheCapWithJitter() {
        let configuration = EventSource.Configuration(reconnectionTime: .seconds(1), maximumBackoff: .seconds(10), jitter: 0.5)
        #expect(configuration.delay(afterFailures: 0, reconnectionTime: .seconds(1), random: 0.9) == .seconds(1))
        #expect(configuration.delay(afterFailures: 1, reconnectionTime: .seconds(1), random: 0) == .seconds(2))
        #expect(configuration.delay(afterFailures: 2, reconnectionTime: .seconds(1), random: 0) == .seconds(4))
        #expect(configuration.delay(afterFailures: 3, reconnectionTime: .seconds(1), random: 0) == .seconds(8))
        #expect(configuration.delay(afterFailures: 4, reconnectionTime: .seconds(1), random: 0) == .seconds(10))
        #expect(configuration.delay(afterFailures: 1_000, reconnectionTime: .seconds(1), random: 0) == .seconds(10))
        #expect(configuration.delay(afterFailures: 3, reconnectionTime: .seconds(1), random: 1) == .seconds(4))
        #expect(configuration.delay(afterFailures: 3, reconnectionTime: .seconds(1), random: 0.5) == .seconds(6))
        let steady = EventSource.Configuration(jitter: 0)
        #expect(steady.delay(afterFailures: 2, reconnectionTime: .milliseconds(100), random: 0.7) == .milliseconds(400))
    }

    @Test func theFirstDemandConnects() {
        var machine = machine()
        #expect(machine.phase == .idle)
        let actions = machine.request(.max(1))
        #expect(actions.connect?.id != nil)
        #expect(actions.connect?.lastEventID == "")
        #expect(machine.phase == .connecting(actions.connect!.id))
        let again = machine.request(.max(1))
        #expect(again.connect == nil)
    }

    @Test func failedAttemptsBackOffAndAStreamThatSendsResetsThem() {
        var machine = machine(EventSource.Configuration(reconnectionTime: .seconds(1), maximumBackoff: .seconds(30), jitter: 0))
        var id = machine.request(.unlimited).connect!.id
        var delays: [Duration] = []
        for status in [503, 429, 408, 500] {
            let (allow, actions) = machine.responded(id: id, status: status, contentType: nil)
            #expect(!allow)
            let timer = try! #require(actions.reconnect)
            delays.append(timer.delay)
            id = machine.timerFired(id: timer.id).connect!.id
        }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8), .seconds(16)])
        let allowed = machine.responded(id: id, status: 200, contentType: "text/event-stream; charset=utf-8").allow
        #expect(allowed)
        #expect(machine.failures == 4)   // open, but nothing sent yet
        _ = machine.received(id: id, Data(": hello\n".utf8))
        #expect(machine.failures == 0)
        // The stream ends: the reconnection time, no backoff.
        let ended = machine.completed(id: id, error: nil)
        #expect(ended.reconnect?.delay == .seconds(1))
    }

    @Test func eachAttemptAndEachFailureIsReportedWithTheWaitBeforeTheNext() {
        var machine = machine(EventSource.Configuration(reconnectionTime: .seconds(1), maximumBackoff: .seconds(30), jitter: 0))
        let first = machine.request(.unlimited)
        #expect(first.reports == [.connecting(attempt: 1, lastEventID: "")])
        let refused = machine.completed(id: first.connect!.id, error: .connectionRefused(address: "127.0.0.1:9"))
        #expect(refused.reports == [.attemptFailed(attempt: 1, error: .connectionRefused(address: "127.0.0.1:9"), retryIn: .seconds(2))])
        let second = machine.timerFired(id: refused.reconnect!.id)
        #expect(second.reports == [.connecting(attempt: 2, lastEventID: "")])
        let (_, unavailable) = machine.responded(id: second.connect!.id, status: 503, contentType: nil)
        #expect(unavailable.reports == [.attemptFailed(attempt: 2, error: .status(503), retryIn: .seconds(4))])
        let third = machine.timerFired(id: unavailable.reconnect!.id)
        let (_, open) = machine.responded(id: third.connect!.id, status: 200, contentType: "text/event-stream")
        #expect(open.reports == [.connected])
        _ = machine.received(id: third.connect!.id, Data("id: e-1\ndata: x\n\n".utf8))
        let lost = machine.completed(id: third.connect!.id, error: .connectionLost("reset by peer"))
        #expect(lost.reports == [.disconnected(error: .connectionLost("reset by peer"), reconnectIn: .seconds(1))])
        let resumed = machine.timerFired(id: lost.reconnect!.id)
        #expect(resumed.reports == [.connecting(attempt: 1, lastEventID: "e-1")])
        let (_, forbidden) = machine.responded(id: resumed.connect!.id, status: 403, contentType: nil)
        #expect(forbidden.reports == [.attemptFailed(attempt: 1, error: .status(403), retryIn: nil)])
        #expect(machine.phase == .finished)
    }

    @Test func maximumAttemptsEndsTheStreamWithTheLastFailure() {
        var machine = machine(EventSource.Configuration(reconnectionTime: .seconds(1), jitter: 0, maximumAttempts: 2))
        let id = machine.request(.unlimited).connect!.id
        let first = machine.completed(id: id, error: .timedOut)
        #expect(first.reports == [.attemptFailed(attempt: 1, error: .timedOut, retryIn: .seconds(2))])
        let second = machine.timerFired(id: first.reconnect!.id)
        let last = machine.completed(id: second.connect!.id, error: .hostNotFound(host: "feed.invalid", detail: "unknown"))
        #expect(last.reports == [.attemptFailed(attempt: 2, error: .hostNotFound(host: "feed.invalid", detail: "unknown"), retryIn: nil)])
        #expect(last.reconnect == nil)
        #expect(machine.phase == .finished)
    }

    @Test func maximumRetryTimeEndsTheStreamWhenTheNextAttemptWouldStartPastIt() {
        let clock = TestClock()
        var machine = EventStreamMachine<EventStreamParser>(
            configuration: EventSource.Configuration(reconnectionTime: .seconds(1), maximumBackoff: .seconds(30), jitter: 0,
                                                     maximumRetryTime: .seconds(10)),
            consumer: ignore, now: { clock.now })
        var id = machine.request(.unlimited).connect!.id
        var waits: [Duration?] = []
        while machine.phase != .finished {
            let actions = machine.completed(id: id, error: .connectionRefused(address: "127.0.0.1:9"))
            guard case .attemptFailed(_, _, let retryIn) = actions.reports.last else {
                Issue.record("expected a failed attempt, got \(actions.reports)")
                return
            }
            waits.append(retryIn)
            guard let timer = actions.reconnect else { break }
            clock.advance(by: timer.delay)
            id = machine.timerFired(id: timer.id).connect!.id
        }
        // Waits of 2 and 4 s end 6 s after the first failure; one of 8 s more would end past 10 s.
        #expect(waits == [.seconds(2), .seconds(4), nil])
        #expect(machine.failures == 3)
    }

    @Test func retryAfterLengthensTheWait() {
        var machine = machine(EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .seconds(1), jitter: 0))
        let id = machine.request(.unlimited).connect!.id
        let (_, actions) = machine.responded(id: id, status: 503, contentType: nil, retryAfter: .seconds(5))
        #expect(actions.reconnect?.delay == .seconds(5))
    }

    @Test func anEventLargerThanTheLimitEndsTheStream() {
        var machine = machine(EventSource.Configuration(maximumEventSize: 100))
        let id = machine.request(.unlimited).connect!.id
        _ = machine.responded(id: id, status: 200, contentType: "text/event-stream")
        // Whole events of any number are fine; one event's data growing past the limit is not.
        _ = machine.received(id: id, Data(String(repeating: "data: 0123456789\n\n", count: 20).utf8))
        #expect(machine.phase == .streaming(id))
        _ = machine.received(id: id, Data(String(repeating: "data: 0123456789\n", count: 6).utf8))
        #expect(machine.phase == .streaming(id))
        let actions = machine.received(id: id, Data("data: 0123456789\ndata: 0123456789\ndata: 012345678901234".utf8))   // 66 + 22 + 21 bytes
        #expect(machine.phase == .finished)
        #expect(!actions.drain)   // the delivery loop the first events started is still due to run
        // The delivery loop: the 20 whole events, then the failure.
        var delivered = 0
        while true {
            switch machine.nextStep(adding: .none) {
            case .deliver: delivered += 1; continue
            case .complete(let completion, _): #expect(completion == .failure(.eventTooLarge(limit: 100)))
            case .stop: Issue.record("stopped without the completion")
            }
            break
        }
        #expect(delivered == 20)
    }

    @Test func retryFromTheStreamSetsTheReconnectionTime() {
        var machine = machine()
        let id = machine.request(.unlimited).connect!.id
        _ = machine.responded(id: id, status: 200, contentType: "text/event-stream")
        _ = machine.received(id: id, Data("retry: 250\n\n".utf8))
        #expect(machine.reconnectionTime == .milliseconds(250))
        let ended = machine.completed(id: id, error: nil)
        #expect(ended.reconnect?.delay == .milliseconds(250))
    }

    @Test func statusesThatRetryingCannotChangeEndTheStream() {
        for (status, contentType) in [(401, "text/plain"), (403, nil), (404, nil), (301, nil), (200, "application/json")] {
            var machine = machine()
            let id = machine.request(.unlimited).connect!.id
            let (allow, actions) = machine.responded(id: id, status: status, contentType: contentType)
            #expect(!allow)
            #expect(actions.reconnect == nil)
            #expect(actions.drain)   // the completion is delivered
            #expect(machine.phase == .finished)
        }
    }

    @Test func aFullBufferStopsTheReadingAndHalfEmptyRestartsIt() {
        var machine = machine(EventSource.Configuration(bufferSize: 4, readAhead: 0))
        let id = open(&machine)
        let frames = (1...8).map { "id: \($0)\ndata: \($0)\n\n" }.joined()
        let actions = machine.received(id: id, Data(frames.utf8))
        #expect(actions.drain)
        // The delivery loop takes one, then stops: the buffer is full, the connection is closed.
        guard case .deliver(let event, _) = machine.nextStep(adding: .none) else { Issue.record("no delivery"); return }
        #expect(event.message?.data == "1")
        guard case .stop(let stop) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
        #expect(machine.buffer.count == 4)
        #expect(stop.cancel != nil)
        #expect(machine.phase == .disconnected)
        #expect(machine.lastEventID == "5")
        // Taking two leaves two (half): the rest of what arrived is parsed first, so the buffer
        // fills again without a new connection.
        for _ in 0..<2 {
            _ = machine.request(.max(1))
            guard case .deliver = machine.nextStep(adding: .none) else { Issue.record("no delivery"); return }
            guard case .stop(let again) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
            #expect(again.connect == nil)
        }
        #expect(machine.buffer.count == 4)
        #expect(machine.lastEventID == "7")
    }

    @Test func aFullBufferKeepsTheConnectionWhileWhatWaitsBehindItFitsTheReadAhead() {
        var machine = machine(EventSource.Configuration(bufferSize: 2, readAhead: 64))
        let id = open(&machine)
        // 1 delivered, 2 buffered, and 30 bytes (two events) held unparsed behind them: under the read-ahead.
        _ = machine.received(id: id, Data((1...5).map { "id: \($0)\ndata: \($0)\n\n" }.joined().utf8))
        guard case .deliver = machine.nextStep(adding: .none) else { Issue.record("no delivery"); return }
        guard case .stop(let kept) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
        #expect(kept.cancel == nil)
        #expect(machine.phase == .streaming(id))
        // 60 bytes more: 90 held, past the read-ahead: closed, to resume after the last parsed event.
        let closed = machine.received(id: id, Data((6...9).map { "id: \($0)\ndata: \($0)\n\n" }.joined().utf8))
        #expect(closed.cancel != nil)
        #expect(machine.phase == .disconnected)
        #expect(machine.lastEventID == "3")
        // What was held is delivered before the client reconnects: 4 to 9 without a connection.
        var delivered: [String] = []
        var connect: (id: UInt64, lastEventID: String, topics: [String])?
        while connect == nil, delivered.count < 10 {
            _ = machine.request(.max(1))
            guard case .deliver(let event, _) = machine.nextStep(adding: .none) else { Issue.record("no delivery"); return }
            delivered.append(event.message!.data)
            guard case .stop(let after) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
            connect = after.connect
        }
        #expect(delivered == ["2", "3", "4", "5", "6", "7", "8"])
        #expect(connect?.lastEventID == "9")
    }

    @Test func aSuspendedTaskIsResumedAtHalfTheBuffer() {
        var machine = machine(EventSource.Configuration(bufferSize: 2))
        let id = open(&machine, pause: .suspend)
        _ = machine.received(id: id, Data("data: 1\n\ndata: 2\n\ndata: 3\n\n".utf8))
        _ = machine.nextStep(adding: .none)
        guard case .stop(let stop) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
        #expect(stop.pause?.id == id)
        #expect(machine.phase == .suspended(id))
        #expect(machine.isSuspended(id))
        _ = machine.request(.max(2))
        _ = machine.nextStep(adding: .none)
        _ = machine.nextStep(adding: .none)
        guard case .stop(let resume) = machine.nextStep(adding: .none) else { Issue.record("no stop"); return }
        #expect(resume.pause?.id == id)
        #expect(machine.phase == .streaming(id))
        #expect(!machine.isSuspended(id))
    }

    @Test func cancelLetsGoOfEverything() {
        var machine = machine()
        let id = machine.request(.unlimited).connect!.id
        let dataTask = task()
        let attached = machine.attach(dataTask, id: id)
        #expect(attached)
        let actions = machine.cancel()
        #expect(actions.cancel === dataTask)
        #expect(machine.phase == .finished)
        // What the connection still reports is ignored.
        let allowed = machine.responded(id: id, status: 200, contentType: "text/event-stream").allow
        #expect(!allowed)
        let drain = machine.received(id: id, Data("data: x\n\n".utf8)).drain
        #expect(!drain)
        #expect(machine.buffer.isEmpty)
    }

    @Test func aRefusalAfterTheStreamOpenedBacksOffAndAFailureEndsIt() {
        var machine = machine(EventSource.Configuration(reconnectionTime: .seconds(1), maximumBackoff: .seconds(30), jitter: 0))
        var id = machine.request(.unlimited).connect!.id
        var delays: [Duration] = []
        for _ in 0..<3 {
            // Open, then closed "try again later" before sending anything: the backoff grows.
            #expect(machine.responded(id: id, .stream).allow)
            let actions = machine.ended(id: id, with: .retry(.closed(code: 1013, reason: ""), retryAfter: nil))
            let timer = try! #require(actions.reconnect)
            delays.append(timer.delay)
            id = machine.timerFired(id: timer.id).connect!.id
        }
        #expect(delays == [.seconds(2), .seconds(4), .seconds(8)])
        #expect(machine.responded(id: id, .stream).allow)
        _ = machine.ended(id: id, with: .failure(.closed(code: 1008, reason: "policy")))
        #expect(machine.phase == .finished)
        // A report of an earlier connection changes nothing.
        #expect(machine.ended(id: id - 1, with: .retry(.closed(code: 1013, reason: "late"), retryAfter: nil)).reconnect == nil)
    }
}

/// A connection that never reads, pausing with `pauseMethod`.
private final class IdleConnection: EventStreamConnection {
    let pauseMethod: EventStreamPauseMethod
    init(pauseMethod: EventStreamPauseMethod) { self.pauseMethod = pauseMethod }
    func cancel() {}
    func suspend() {}
    func resume() {}
}

/// A clock the test moves.
private final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var instant = ContinuousClock.now

    var now: ContinuousClock.Instant { lock.withLock { instant } }

    func advance(by duration: Duration) { lock.withLock { instant += duration } }
}
