// The contract kit is written against Sluice: off Apple's systems, where EventSource publishes
// through Sluice, it checks EventSource as it checks every built-in publisher.
#if !(canImport(Darwin) && canImport(Combine))
import Foundation
@testable import SluiceEventSource
import SluiceTesting
import Testing

// The limit is the contract kit's own tests' (three minutes): a verification takes ~4 s alone, but
// in a parallel run under Thread Sanitizer every verification in the process shares two cores and
// takes about as long as the whole run (62 s here, 74 s on CI).
@Suite("EventSource contract", .timeLimit(.minutes(3)))
struct EventSourceContractTests {
    @Test func eventSourceKeepsThePublisherContract() async throws {
        // A feed of five events that resumes after Last-Event-ID and answers 204 once all were
        // sent: each subscription publishes the five events (over one connection or several, as
        // its demand makes the client stop and resume), then finishes.
        let server = try LoopbackServer { connection in
            let after = Int(connection.request.headers["last-event-id"]?.dropFirst(2) ?? "0") ?? 0
            guard after < 5 else { return connection.respond(status: 204, reason: "No Content") }
            connection.writeStreamHead()
            connection.write((after + 1...5).map { "id: e-\($0)\ndata: \($0)\n\n" }.joined())
            connection.close()
        }
        let url = server.url()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5),
                                                      bufferSize: 2)
        try await PublisherContract.verify(settle: .milliseconds(300), timeout: .seconds(5)) {
            EventSource(url: url, configuration: configuration)
        }
    }

    @Test func eventSocketKeepsThePublisherContract() async throws {
        // The same feed over a WebSocket: resumes after `lastEventId`, 204 once all were sent.
        let server = try LoopbackServer { connection in
            let after = Int(connection.lastEventId?.dropFirst(2) ?? "0") ?? 0
            guard after < 5 else { return connection.respond(status: 204, reason: "No Content") }
            connection.acceptWebSocket()
            connection.write((after + 1...5).flatMap { LoopbackServer.Connection.event($0) } + LoopbackServer.Connection.close(1000))
            _ = connection.waitForClientClose()
        }
        let url = server.webSocketURL()
        let configuration = EventSource.Configuration(reconnectionTime: .milliseconds(1), maximumBackoff: .milliseconds(5),
                                                      bufferSize: 2)
        try await PublisherContract.verify(settle: .milliseconds(300), timeout: .seconds(5)) {
            EventSocket(url: url, configuration: configuration)
        }
    }
}
#endif
