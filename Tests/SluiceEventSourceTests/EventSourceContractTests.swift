// The contract kit is written against Sluice: off Apple's systems, where EventSource publishes
// through Sluice, it checks EventSource as it checks every built-in publisher.
#if !(canImport(Darwin) && canImport(Combine))
import Foundation
import SluiceEventSource
import SluiceTesting
import Testing

@Suite("EventSource contract", .timeLimit(.minutes(1)))
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
}
#endif
