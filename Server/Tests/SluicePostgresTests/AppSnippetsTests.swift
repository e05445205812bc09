import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
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

    /// A database of its own for `body`, dropped afterwards, with nothing in it but the apps' own
    /// table (`purchases`): the log's tables are not there — the app makes them.
    private func withEmptyDatabase(_ body: (PostgresClient.Configuration) async throws -> Void) async throws {
        let name = "snippet_\(UInt32.random(in: 0...UInt32.max))"
        _ = try await TestDatabase.run("CREATE DATABASE \(name)")
        do {
            _ = try await TestDatabase.run("CREATE TABLE purchases (id int PRIMARY KEY)", database: name)
            #expect(try await TestDatabase.run("SELECT to_regclass('sluice_log_topics')::text", database: name) == [""])
            try await body(try TestDatabase.clientConfiguration(database: name))
            #expect(try await TestDatabase.run("SELECT to_regclass('sluice_log_topics')::text", database: name) == ["sluice_log_topics"])
        } catch {
            _ = try? await TestDatabase.run("DROP DATABASE \(name) WITH (FORCE)")
            throw error
        }
        _ = try await TestDatabase.run("DROP DATABASE \(name) WITH (FORCE)")
    }

    /// A purchase posted to the app at `port` reaches a client that resumed from before the topic's
    /// first event (`_-0`, the head of a topic never published).
    /// With `alsoOnAConnectionOfTopics`, a connection of two topics (`purchases` and `refunds`),
    /// resumed from before either's first event, gets it too, named by its topic.
    private func checkPurchase(port: Int, database: String, alsoOnAConnectionOfTopics: Bool = false) async throws {
        let client = try await SSEClient.connect(port: port, path: "/events/purchases", lastEventID: EventID.origin.description)
        let topics = ["purchases", "refunds"]
        let both = alsoOnAConnectionOfTopics
            ? try await SSEClient.connect(port: port, path: "/events?topic=purchases&topic=refunds",
                                          lastEventID: TopicCursor(topics: topics, positions: [.origin, .origin]).description)
            : nil
        let id = Int.random(in: 1...1_000_000)
        let (status, body) = try await post("http://127.0.0.1:\(port)/purchases/\(id)")
        #expect(status == 200, "\(body)")
        let event = try #require(EventID(body))
        #expect(event.position == 1)
        #expect(await client.wait { $0.contains(where: \.isEvent) })
        #expect(client.events.first?.eventID == event)
        #expect(client.events.first?.data == [#"{"purchase":\#(id)}"#])
        if let both {
            #expect(await both.wait { $0.contains(where: \.isTopicEvent) })
            let first = both.frames.first(where: \.isTopicEvent)
            #expect(first?.event == "purchases" && first?.data == [#"{"purchase":\#(id)}"#])
            #expect(first?.rawID.flatMap { TopicCursor($0, topics: topics) }?.positions == [event, .origin])
            await both.close()
        }
        #expect(try await TestDatabase.run("SELECT id::text FROM purchases", database: database) == ["\(id)"])
        await client.close()
    }

    @Test func theHummingbirdAppServesAPurchasesEventFromAnEmptyDatabase() async throws {
        try await withEmptyDatabase { database in
            let port = try freeLoopbackPort()
            let app = Task { try await runPurchasesApp(database: database, port: port) }
            defer { app.cancel() }
            try await waitForPort(port)
            try await checkPurchase(port: port, database: database.database!, alsoOnAConnectionOfTopics: true)
            app.cancel()
            _ = await app.result
        }
    }

    @Test func theVaporAppServesAPurchasesEventFromAnEmptyDatabase() async throws {
        try await withEmptyDatabase { database in
            try await withVaporApp { app in try await configure(app, database: database) } run: { port in
                try await checkPurchase(port: port, database: database.database!)
            }
        }
    }

    /// With the app's database unreachable, its routes answer 503 with `Retry-After` (a client
    /// tries again later), not 500: the log's errors answer for themselves in both frameworks.
    private func checkUnavailable(port: Int) async throws {
        async let posted = answer("POST", "http://127.0.0.1:\(port)/purchases/\(Int.random(in: 1...1_000_000))")
        async let read = answer("GET", "http://127.0.0.1:\(port)/events/purchases")
        let (post, get) = try await (posted, read)
        for (status, headers, body) in [post, get] {
            #expect(status == 503, "\(body)")
            #expect(headers["Retry-After"] == "1")
        }
        #expect(post.headers["Sluice-Outcome"] == "not-stored")
    }

    @Test func theHummingbirdAppAnswers503WhileItsDatabaseIsUnreachable() async throws {
        let database = try TestDatabase.clientConfiguration(port: try freeLoopbackPort())
        let port = try freeLoopbackPort()
        let app = Task { try await runPurchasesApp(database: database, port: port) }
        defer { app.cancel() }
        try await waitForPort(port)
        try await checkUnavailable(port: port)
        app.cancel()
        _ = await app.result
    }

    @Test func theVaporAppAnswers503WhileItsDatabaseIsUnreachable() async throws {
        let database = try TestDatabase.clientConfiguration(port: try freeLoopbackPort())
        try await withVaporApp { app in try await configure(app, database: database) } run: { port in
            try await checkUnavailable(port: port)
        }
    }

    /// The status, the headers asked for (by name, in any case) and the body of a `method` request
    /// to `url`.
    private func answer(_ method: String, _ url: String) async throws -> (status: Int, headers: [String: String], body: String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        let headers = ["Retry-After", "Sluice-Outcome"].reduce(into: [String: String]()) { headers, name in
            headers[name] = http?.value(forHTTPHeaderField: name)
        }
        return (http?.statusCode ?? 0, headers, String(decoding: data, as: UTF8.self))
    }

    /// Waits until something accepts connections on `port`.
    private func waitForPort(_ port: Int) async throws {
        let ready = await waitUntilAsync {
            (try? await SSEClient.connect(port: port, path: "/")).map { client in Task { await client.close() }; return true } ?? false
        }
        #expect(ready)
    }
}
