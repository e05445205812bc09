import Foundation
import PostgresNIO
import SluiceFeed
@testable import SluicePostgres
import Testing

/// The group committer's bound and cancellation, with the database held back by a frozen proxy: a
/// lane holds at most `maximumWaiting` appends, the next is refused at once as `busy` (429, not
/// stored), a caller cancelled while it waits leaves the queue and its event is never appended.
/// Nothing here waits out a timer: the hanging group ends when the proxy cuts its connection.
@Suite struct GroupCommitBoundTests {
    @Test func aLaneHoldsAtMostItsBoundAndACancelledCallerLeavesIt() async throws {
        try await TestDatabase.withLog { made in
            let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
            let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(port: proxy.port))
            let running = Task { await client.run() }
            defer { running.cancel() }
            let log = PostgresEventLog(client: client, prefix: made.prefix, timeout: .seconds(60),
                                       groupCommit: GroupCommit(lanes: 1, maximumWaiting: 3), makesTables: false)
            #expect(try await log.append("before", to: "t").position == 1)
            proxy.freeze()   // the connection carried so far passes nothing: the next group hangs
            let stuck = Task { try await log.append("stuck", to: "t") }
            #expect(await waitUntil { log.committer!.lanesNow[0] == (0, true) })   // taken into the hanging group
            let waiting = ["b", "c", "d"].map { text in Task { try await log.append(text, to: "t") } }
            #expect(await waitUntil { log.waitingAppends == 3 })
            // One more than the bound: refused at once, told apart from a failure of the database.
            do {
                _ = try await log.append("e", to: "t")
                Issue.record("an append beyond the bound was taken")
            } catch let error as PostgresEventLogError {
                #expect(error.kind == .busy && error.httpStatus == 429)
                #expect(error.httpHeaders.map(\.value) == ["1", "not-stored"])
            }
            // A caller cancelled while it waits leaves the queue at once.
            waiting[1].cancel()
            await #expect(throws: CancellationError.self) { try await waiting[1].value }
            #expect(log.waitingAppends == 2)
            // The hanging group's connection is cut (its outcome unknown); the others go on a new one.
            proxy.dropAll()
            await #expect(throws: PostgresEventLogError.self) { try await stuck.value }
            #expect(try await waiting[0].value.position == 2)
            #expect(try await waiting[2].value.position == 3)
            let rows = try await TestDatabase.run("SELECT payload FROM \(made.prefix)_events WHERE topic = 't' ORDER BY position")
            #expect(rows == ["before", "b", "d"])
            await proxy.close()
        }
    }
}
