import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceFeed
import Testing

/// The two example apps (`sluice-example-hummingbird`, `sluice-example-vapor`, built beside the
/// tests) are one HTTP behaviour: each test runs against both, as processes, on a database of its
/// own that starts empty (the log makes its tables).
@Suite(.serialized) struct ExampleAppsTests {
    enum Framework: String, CaseIterable, CustomTestStringConvertible {
        case hummingbird, vapor
        var testDescription: String { rawValue }
    }

    @Test(arguments: Framework.allCases)
    func postsAreValidatedIdempotentAndServedToAResumingClient(_ framework: Framework) async throws {
        try await withExampleApp(framework) { app in
            let client = try await SSEClient.connect(port: app.port, path: "/events/orders", lastEventID: EventID.origin.description)
            let first = try await app.request("POST", "/events/orders", body: Data("first".utf8), headers: ["Idempotency-Key": "order-1"])
            #expect(first.status == 202, "\(first.body)")
            let id = try #require(Self.id(in: first.body))
            #expect(id.position == 1)
            // The same key and body again: the same answer, nothing appended.
            let repeated = try await app.request("POST", "/events/orders", body: Data("first".utf8), headers: ["Idempotency-Key": "order-1"])
            #expect(repeated.status == 202 && Self.id(in: repeated.body) == id, "\(repeated.body)")
            // The same key with another body: 422.
            let reused = try await app.request("POST", "/events/orders", body: Data("other".utf8), headers: ["Idempotency-Key": "order-1"])
            #expect(reused.status == 422 && Self.reason(in: reused.body)?.contains("idempotency key") == true, "\(reused.body)")
            // What can never be appended: 4xx, before any query.
            // Each with its reason, in the framework's own error body.
            for (body, path, headers, status, reason) in [
                (Data(), "/events/orders", [:], 400, "UTF-8"),                                   // empty
                (Data([0x61, 0xFF, 0x62]), "/events/orders", [:], 400, "UTF-8"),                // not UTF-8
                (Data([0x61, 0x00, 0x62]), "/events/orders", [:], 400, "NUL"),                  // a NUL character
                (Data("x".utf8), "/events/a%20b", [:], 400, "topic name"),                       // a topic outside the rule
                (Data("x".utf8), "/events/orders", ["Idempotency-Key": String(repeating: "k", count: 256)], 400, "idempotency key"),
                (Data(count: (1 << 20) + 1), "/events/orders", [:], 413, nil),                  // over 1 MiB
            ] as [(Data, String, [String: String], Int, String?)] {
                let answer = try await app.request("POST", path, body: body, headers: headers)
                #expect(answer.status == status, "\(path) \(body.count) bytes: \(answer.status) \(answer.body)")
                if let reason { #expect(Self.reason(in: answer.body)?.contains(reason) == true, "\(path): \(answer.body)") }
            }
            let second = try await app.request("POST", "/events/orders", body: Data("second".utf8))
            #expect(second.status == 202 && Self.id(in: second.body)?.position == 2, "\(second.body)")
            // The resuming client got each event once, in order, under the ids the posts were given.
            #expect(await client.wait { $0.filter(\.isEvent).count == 2 })
            #expect(client.events.map(\.data) == [["first"], ["second"]])
            #expect(client.events.compactMap(\.eventID) == [id, Self.id(in: second.body)])
            #expect(try await TestDatabase.run("SELECT payload FROM sluice_log_events ORDER BY position", database: app.database)
                == ["first", "second"])
            await client.close()
        }
    }

    @Test(arguments: Framework.allCases)
    func privateTopicsTakeTheToken(_ framework: Framework) async throws {
        try await withExampleApp(framework, environment: ["SLUICE_EXAMPLE_TOKEN": "s3cret"]) { app in
            let nobody = try await SSEClient.connect(port: app.port, path: "/events/private.audit")
            let stranger = try await SSEClient.connect(port: app.port, path: "/events/private.audit", headers: [("Authorization", "Bearer nope")])
            // Resuming from the topic's origin: it gets the event posted below however late its
            // request reaches the app.
            let insider = try await SSEClient.connect(port: app.port, path: "/events/private.audit", lastEventID: EventID.origin.description,
                                                      headers: [("Authorization", "Bearer s3cret")])
            #expect(await nobody.wait { _ in nobody.status != nil } && nobody.status?.code == 401)
            #expect(await stranger.wait { _ in stranger.status != nil } && stranger.status?.code == 403)
            #expect(try await app.request("POST", "/events/private.audit", body: Data("x".utf8)).status == 401)
            #expect(try await app.request("POST", "/events/private.audit", body: Data("x".utf8), headers: ["Authorization": "Bearer nope"]).status == 403)
            let posted = try await app.request("POST", "/events/private.audit", body: Data("seen".utf8), headers: ["Authorization": "Bearer s3cret"])
            #expect(posted.status == 202, "\(posted.body)")
            #expect(await insider.wait { $0.contains(where: \.isEvent) })
            #expect(insider.events.map(\.data) == [["seen"]])
            for client in [nobody, stranger, insider] { await client.close() }
        }
    }

    @Test(arguments: Framework.allCases)
    func thePageReadinessMetricsAndAGracefulStop(_ framework: Framework) async throws {
        try await withExampleApp(framework) { app in
            let page = try await app.request("GET", "/")
            #expect(page.status == 200 && page.body.contains(#"new EventSource(topics.length ? "/events?" + query : "/events/lobby")"#))
            #expect(await waitUntilAsync { try await app.request("GET", "/ready").status == 200 })
            let client = try await SSEClient.connect(port: app.port, path: "/events/lobby")
            #expect(await client.wait { $0.contains { $0.retry != nil } })
            // The page's other stream: several topics on one connection.
            let topics = try await SSEClient.connect(port: app.port, path: "/events?topic=lobby&topic=news")
            #expect(await topics.wait { $0.contains { $0.retry != nil } })
            #expect(topics.status == .ok)
            await topics.close()
            let metrics = try await app.request("GET", "/metrics")
            #expect(metrics.status == 200 && metrics.body.contains("sluice_feed_clients{") && metrics.body.contains("sluice_log_listener_connected"), "\(metrics.body.prefix(400))")
            // SIGTERM: the stream ends and the process exits, by itself, in time.
            kill(app.pid, SIGTERM)
            #expect(await waitUntil(timeout: 30) { waitpid(app.pid, nil, WNOHANG) != 0 }, "\(framework) did not stop after SIGTERM")
            #expect(await client.wait { _ in client.ended })
            await client.close()
        }
    }

    @Test(arguments: Framework.allCases)
    func withoutItsDatabaseItAnswers503(_ framework: Framework) async throws {
        try await withExampleApp(framework, environment: ["SLUICE_PG_PORT": "\(try freeLoopbackPort())"]) { app in
            // (At once: each waits for the log's limit, 10 s, to get a connection.)
            async let posted = app.request("POST", "/events/orders", body: Data("lost".utf8))
            async let ready = app.request("GET", "/ready")
            let reader = try await SSEClient.connect(port: app.port, path: "/events/orders")
            #expect(await reader.wait(timeout: 60) { _ in reader.status != nil } && reader.status?.code == 503)
            #expect(reader.headers?.first(name: "Retry-After") == "1")
            let post = try await posted
            #expect(post.status == 503, "\(post.body)")
            #expect(post.headers["Retry-After"] == "1" && post.headers["Sluice-Outcome"] == "not-stored")
            #expect(Self.reason(in: post.body)?.isEmpty == false, "\(post.body)")
            #expect(try await ready.status == 503)
            await reader.close()
        }
    }

    // MARK: The app under test

    /// A running example app.
    struct App {
        let pid: pid_t
        let port: Int
        /// Its database.
        let database: String

        /// The status, the headers named in `headerNames` and the body of a request.
        func request(_ method: String, _ path: String, body: Data? = nil, headers: [String: String] = [:])
            async throws -> (status: Int, headers: [String: String], body: String) {
            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
            request.httpMethod = method
            request.httpBody = body
            request.timeoutInterval = 120
            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
            let (data, response) = try await URLSession.shared.data(for: request)
            let http = response as? HTTPURLResponse
            let named = ["Retry-After", "Sluice-Outcome"].reduce(into: [String: String]()) { $0[$1] = http?.value(forHTTPHeaderField: $1) }
            return (http?.statusCode ?? 0, named, String(decoding: data, as: UTF8.self))
        }
    }

    /// Runs `framework`'s example on a port of its own and an empty database of its own (dropped
    /// afterwards), with `environment` over the test's, until `body` returns; then stops it.
    private func withExampleApp(_ framework: Framework, environment: [String: String] = [:],
                                _ body: (App) async throws -> Void) async throws {
        let database = "example_\(UInt32.random(in: 0...UInt32.max))"
        _ = try await TestDatabase.run("CREATE DATABASE \(database)")
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("sluice-example-\(framework.rawValue)").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("example-\(framework)-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: output) }
        let pid = try spawn([binary], output: output.path, environment: [
            "SLUICE_EXAMPLE_PORT": "0", "SLUICE_EXAMPLE_INSTANCE": "test", "SLUICE_PG_DATABASE": database,
        ].merging(environment) { $1 })
        var failure: (any Error)?
        do {
            var port: Int?
            let started = await waitUntil(timeout: 120) {
                let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
                if let range = text.range(of: #"on http://127\.0\.0\.1:\d+"#, options: .regularExpression) {
                    port = Int(text[range].split(separator: ":").last!)
                    return true
                }
                return waitpid(pid, nil, WNOHANG) != 0   // it ended
            }
            guard started, let port else {
                throw FleetFailure("the \(framework) example did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
            }
            try await body(App(pid: pid, port: port, database: database))
        } catch {
            failure = error
        }
        kill(pid, SIGKILL)
        _ = await exitStatus(of: pid)
        _ = try? await TestDatabase.run("DROP DATABASE \(database) WITH (FORCE)")
        if let failure { throw failure }
    }

    /// The reason an error's body gives, in either framework's shape: Hummingbird's
    /// `{"error":{"message":"…"}}`, Vapor's `{"error":true,"reason":"…"}`.
    static func reason(in body: String) -> String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        if let reason = object["reason"] as? String { return reason }
        return (object["error"] as? [String: Any])?["message"] as? String
    }

    /// The id in a `POST`'s answer (`{"id":"<id>"}`).
    static func id(in body: String) -> EventID? {
        guard let start = body.range(of: #""id":""#), let end = body[start.upperBound...].firstIndex(of: "\"") else { return nil }
        return EventID(String(body[start.upperBound..<end]))
    }
}
