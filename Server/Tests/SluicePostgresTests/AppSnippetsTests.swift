import Foundation
import PostgresNIO
import SluiceFeed
import SluicePostgres
import Testing

/// The two apps of Server/README.md ("A live feed in a Hummingbird app", "… in a Vapor app"): the
/// README shows them as they are written here, and each serves a purchase's event, committed with
/// its row, to a client that resumes with `Last-Event-ID`.
@Suite(.serialized) struct AppSnippetsTests {
    /// The README has each app's text, as in its file.
    @Test(arguments: ["HummingbirdAppSnippet.swift", "VaporAppSnippet.swift"])
    func theReadmeShowsTheAppAsTested(file: String) throws {
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        let source = try String(contentsOf: here.appendingPathComponent(file), encoding: .utf8)
        let readme = try String(contentsOf: here.appendingPathComponent("../../README.md"), encoding: .utf8)
        let begin = try #require(source.range(of: "// README: "))
        let end = try #require(source.range(of: "// README: end"))
        let snippet = source[source.index(after: source[begin.upperBound...].firstIndex(of: "\n")!)..<end.lowerBound]
        #expect(snippet.split(separator: "\n").count < 40)
        #expect(readme.contains(snippet), "Server/README.md does not show \(file) as it is")
    }

    /// The table the apps write to, the log's tables, and where the log's topic stands.
    private func prepare() async throws -> EventID {
        _ = try await TestDatabase.run("CREATE TABLE IF NOT EXISTS purchases (id int PRIMARY KEY)")
        _ = try await TestDatabase.run("DELETE FROM purchases")
        let client = PostgresClient(configuration: try TestDatabase.clientConfiguration())
        let running = Task { await client.run() }
        defer { running.cancel() }
        let log = PostgresEventLog(client: client)   // the apps' tables: the default prefix
        try await log.migrate()
        return try await log.head(of: "purchases")
    }

    /// A purchase posted to the app at `port` reaches a client that resumed after `before`.
    private func checkPurchase(port: Int, after before: EventID) async throws {
        let client = try await SSEClient.connect(port: port, path: "/events/purchases", lastEventID: before.description)
        let id = Int.random(in: 1...1_000_000)
        let (status, body) = try await post("http://127.0.0.1:\(port)/purchases/\(id)")
        #expect(status == 200)
        let event = try #require(EventID(body))
        #expect(await client.wait { $0.contains(where: \.isEvent) })
        #expect(client.events.first?.eventID == event)
        #expect(client.events.first?.data == [#"{"purchase":\#(id)}"#])
        #expect(try await TestDatabase.run("SELECT id::text FROM purchases") == ["\(id)"])
        await client.close()
    }

    @Test func theHummingbirdAppServesAPurchasesEvent() async throws {
        let before = try await prepare()
        let port = try freeLoopbackPort()
        let app = Task { try await runPurchasesApp(database: try TestDatabase.clientConfiguration(), port: port) }
        defer { app.cancel() }
        try await waitForPort(port)
        try await checkPurchase(port: port, after: before)
        app.cancel()
        _ = await app.result
    }

    @Test func theVaporAppServesAPurchasesEvent() async throws {
        let before = try await prepare()
        try await withVaporApp { app in try await configure(app, database: try TestDatabase.clientConfiguration()) } run: { port in
            try await checkPurchase(port: port, after: before)
        }
    }

    /// Waits until something accepts connections on `port`.
    private func waitForPort(_ port: Int) async throws {
        let ready = await waitUntilAsync {
            (try? await SSEClient.connect(port: port, path: "/")).map { client in Task { await client.close() }; return true } ?? false
        }
        #expect(ready)
    }
}
