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

/// A loopback URL with `scheme` at a port nothing listens on (the system gave it to a server that
/// stopped), and that port.
private func closedPort(scheme: String = "http") throws -> (url: URL, address: String) {
    let server = try LoopbackServer { $0.close() }
    server.stop()
    return (URL(string: "\(scheme)://127.0.0.1:\(server.port)/events")!, "127.0.0.1:\(server.port)")
}

/// The failed attempts among `events`.
private func failures(_ events: [EventSource.ConnectionEvent]) -> [(attempt: Int, error: EventSourceError, retryIn: Duration?)] {
    events.compactMap { event in
        guard case .attemptFailed(let attempt, let error, let retryIn) = event else { return nil }
        return (attempt, error, retryIn)
    }
}

@Suite("EventSource.ConnectionEvent", .timeLimit(.minutes(1)))
struct ConnectionEventTests {
    @Test(arguments: Reader.allCases)
    func aRefusedConnectionIsReportedWithTheWaitBeforeTheNextAttempt(reader: Reader) async throws {
        let (url, address) = try closedPort()
        let reports = Recorder<EventSource.ConnectionEvent>()
        // The default backoff (seconds): the first failure is told long before the next attempt.
        var request = URLRequest(url: url)
        request.setValue("e-7", forHTTPHeaderField: "Last-Event-ID")
        let source = switch reader {
        case .ownClient: EventSource(request: request) { reports.append($0) }
        case .dataTask: EventSource(request: request, session: URLSession(configuration: .default)) { reports.append($0) }
        }
        let subscriber = RecordingSubscriber()
        source.subscribe(subscriber)
        #expect(await reports.wait(forCount: 2))
        // The test may resume after the next attempt began (a loaded machine): the first two
        // reports are the attempt and its failure, and whatever follows is the next attempt.
        let values = reports.values
        #expect(values.first == .connecting(attempt: 1, lastEventID: "e-7"))
        let failed = failures(Array(values.prefix(2)))
        #expect(failed.count == 1)
        if values.count > 2 { #expect(values[2] == .connecting(attempt: 2, lastEventID: "e-7")) }
        #expect(failed.first?.attempt == 1)
        #expect(failed.first?.error == .connectionRefused(address: address))
        let wait = try #require(failed.first?.retryIn)
        #expect(wait >= .milliseconds(1500) && wait <= .seconds(6))   // 2 × 3 s, half of it jitter
        #expect(values[1].description.hasPrefix("Attempt 1 failed: The connection to \(address) was refused"))
        #expect(subscriber.completions.values.isEmpty)
        subscriber.cancel()
    }

    @Test func aBoundedClientFailsAfterItsLastAttempt() async throws {
        let (url, address) = try closedPort()
        let reports = Recorder<EventSource.ConnectionEvent>()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5),
                                                      maximumAttempts: 3)
        let subscriber = RecordingSubscriber()
        EventSource(url: url, configuration: configuration) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.gaveUp(attempts: 3, lastFailure: .connectionRefused(address: address)))])
        let failed = failures(reports.values)
        #expect(failed.map(\.attempt) == [1, 2, 3])
        #expect(failed.map { $0.retryIn == nil } == [false, false, true])
        #expect(reports.values.filter { if case .connecting = $0 { true } else { false } }.count == 3)
    }

    @Test func aClientBoundedInTimeFailsAsAnAsyncSequence() async throws {
        let (url, address) = try closedPort()
        let reports = Recorder<EventSource.ConnectionEvent>()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(5), maximumBackoff: .milliseconds(20),
                                                      maximumRetryTime: .milliseconds(100))
        do {
            for try await event in EventSource(url: url, configuration: configuration, onConnectionEvent: { reports.append($0) }).events {
                Issue.record("no event expected, got \(event)")
            }
            Issue.record("the sequence ended without an error")
        } catch let error as EventSourceError {
            guard case .gaveUp(let attempts, let lastFailure) = error else {
                Issue.record("expected gaveUp, got \(error)")
                return
            }
            #expect(attempts >= 2)
            #expect(lastFailure == .connectionRefused(address: address))
            #expect(failures(reports.values).count == attempts)
            #expect(failures(reports.values).last?.retryIn == nil)
        }
    }

    @Test func anEventSocketReportsItsAttemptsToo() async throws {
        let (url, address) = try closedPort(scheme: "ws")
        let reports = Recorder<EventSource.ConnectionEvent>()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5),
                                                      maximumAttempts: 2)
        let subscriber = RecordingSubscriber()
        EventSocket(url: url, configuration: configuration) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.gaveUp(attempts: 2, lastFailure: .connectionRefused(address: address)))])
        #expect(failures(reports.values).map(\.attempt) == [1, 2])
    }

    @Test func aStatusThatRetryingCannotChangeIsReportedAndEndsTheStream() async throws {
        let server = try LoopbackServer { $0.respond(status: 404, reason: "Not Found") }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url()) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.failure(.status(404))])
        #expect(reports.values == [.connecting(attempt: 1, lastEventID: ""), .attemptFailed(attempt: 1, error: .status(404), retryIn: nil)])
    }

    @Test func aNameThatDoesNotResolveIsReported() async throws {
        // `.invalid` never resolves (RFC 6761); the resolver's answer may take a while.
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: URL(string: "http://sluice-test.invalid/events")!, configuration: .init(maximumAttempts: 1)) {
            reports.append($0)
        }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1, limit: 60))
        guard case .failure(.gaveUp(1, .hostNotFound(let host, _))) = subscriber.completions.values.first else {
            Issue.record("expected hostNotFound, got \(subscriber.completions.values)")
            return
        }
        #expect(host == "sluice-test.invalid")
        #expect(failures(reports.values).count == 1)
    }

    @Test func aTLSHandshakeWithAPlainServerIsReportedAsTLS() async throws {
        // https: to a port that answers in plain HTTP: the handshake fails.
        let server = try LoopbackServer(readsRequests: false) { $0.respond(status: 400, reason: "Bad Request") }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        let url = URL(string: "https://127.0.0.1:\(server.port)/events")!
        EventSource(url: url, configuration: .init(maximumAttempts: 1)) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        guard case .failure(.gaveUp(1, .tlsFailed(let detail))) = subscriber.completions.values.first else {
            Issue.record("expected tlsFailed, got \(subscriber.completions.values)")
            return
        }
        #expect(!detail.isEmpty)
        #expect(failures(reports.values).count == 1)
    }

    @Test func aProtocolErrorIsReportedAndEndsTheStream() async throws {
        let server = try LoopbackServer { connection in
            connection.write("SSH-2.0-OpenSSH_9.6\r\n\r\n")
            connection.close()
        }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url()) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        let failure = EventSourceError.protocolViolation("not an HTTP response: SSH-2.0-OpenSSH_9.6")
        #expect(subscriber.completions.values == [.failure(failure)])
        #expect(reports.values.last == .attemptFailed(attempt: 1, error: failure, retryIn: nil))
    }

    @Test func connectsAndResumesAreReported() async throws {
        let server = try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\n\nid: e-1\ndata: one\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url()) { reports.append($0) }.subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        #expect(subscriber.completions.values == [.finished])
        let values = reports.values
        #expect(values.first == .connecting(attempt: 1, lastEventID: ""))
        #expect(values.dropFirst().first == .connected)
        // The server closed the stream: the client resumes after the server's retry: time.
        #expect(values.dropFirst(2).first == .disconnected(error: nil, reconnectIn: .milliseconds(10)))
        #expect(values.dropFirst(3) == [.connecting(attempt: 1, lastEventID: "e-1")])
    }
}
