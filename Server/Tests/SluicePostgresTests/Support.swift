import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOPosix
@_exported import ServerTestSupport
import PostgresNIO
import Sluice
import SluicePostgres
import SluiceTesting
import Testing

/// The PostgreSQL server that `Server/test` starts for these tests (a real one, on loopback): its
/// address and credentials come from the environment.
enum TestDatabase {
    static func setting(_ name: String) throws -> String {
        try #require(ProcessInfo.processInfo.environment[name],
                     "\(name) is not set: run Server/test, which starts PostgreSQL for these tests")
    }

    static func configuration(password: String? = nil, database: String? = nil,
                              applicationName: String? = nil) throws -> PostgresConnection.Configuration {
        var configuration = PostgresConnection.Configuration(
            host: "127.0.0.1", port: Int(try setting("SLUICE_PG_PORT"))!, username: try setting("SLUICE_PG_USER"),
            password: try password ?? setting("SLUICE_PG_PASSWORD"), database: try database ?? setting("SLUICE_PG_DATABASE"),
            tls: .disable)
        if let applicationName {
            configuration.options.additionalStartupParameters = [("application_name", applicationName)]
        }
        return configuration
    }

    /// The server's log: every statement is logged (`log_statement = all`).
    static func log() throws -> String {
        try String(contentsOfFile: try setting("SLUICE_PG_LOG"), encoding: .utf8)
    }

    /// Runs `sql` on a connection of its own; returns the first column of each row as text.
    @discardableResult
    static func run(_ sql: String, database: String? = nil) async throws -> [String] {
        let logger = Logger(label: "test")
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.next(), configuration: try configuration(database: database), id: 1, logger: logger
        ).get()
        defer { Task { try? await connection.close() } }
        var texts: [String] = []
        for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger) {
            texts.append(try row.decode(String?.self) ?? "")
        }
        return texts
    }

    /// A loopback port that nothing listens on (bound by the system, then released).
    static func freePort() throws -> Int {
        let channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton).bind(host: "127.0.0.1", port: 0).wait()
        let port = channel.localAddress!.port!
        try channel.close().wait()
        return port
    }

    /// A channel name no other test uses.
    static func channel(_ name: String) -> String {
        "\(name)_\(UInt32.random(in: 0...UInt32.max))"
    }
}

extension TestSubscriber {
    /// The error the subscriber failed with, if it did.
    var failure: Failure? {
        if case .failure(let error)? = completion { return error }
        return nil
    }
}

extension PostgresNotificationEvent {
    var payload: Payload? {
        if case .notification(let payload) = self { return payload }
        return nil
    }

    var isListening: Bool {
        if case .listening = self { return true }
        return false
    }

    var reconnected: Bool {
        if case .gap(.reconnected) = self { return true }
        return false
    }

    var droppedCount: Int? {
        if case .gap(.dropped(let count)) = self { return count }
        return nil
    }
}

extension TestDatabase {
    /// The client's settings for the test server, `applicationName` naming its connections (so a
    /// test can terminate them).
    static func clientConfiguration(applicationName: String? = nil, port: Int? = nil, database: String? = nil) throws -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: "127.0.0.1", port: try port ?? Int(setting("SLUICE_PG_PORT"))!, username: try setting("SLUICE_PG_USER"),
            password: try setting("SLUICE_PG_PASSWORD"), database: try database ?? setting("SLUICE_PG_DATABASE"), tls: .disable)
        if let applicationName { configuration.options.additionalStartupParameters = [("application_name", applicationName)] }
        return configuration
    }

    /// A running `PostgresClient` and an event log in tables of their own (`t<random>_…`), for the
    /// duration of `body`.
    static func withLog<R>(applicationName: String? = nil, port: Int? = nil,
                           _ body: (PostgresEventLog) async throws -> R) async throws -> R {
        let client = PostgresClient(configuration: try clientConfiguration(applicationName: applicationName, port: port))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let log = PostgresEventLog(client: client, prefix: "t\(UInt32.random(in: 0...UInt32.max))")
        do {
            try await log.migrate()
            return try await body(log)
        } catch let error as PSQLError {
            throw Reflected(description: String(reflecting: error))
        }
    }

    /// Terminates every backend whose application name is `name`; returns how many there were.
    @discardableResult
    static func terminate(applicationName name: String) async throws -> Int {
        try await run("SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity WHERE application_name = '\(name)'").count
    }
}

/// A PostgresNIO error as `String(reflecting:)` tells it: its own description is the same for every
/// error (to keep queries and data out of logs), so a test failing on one would not say which.
struct Reflected: Error, CustomStringConvertible {
    let description: String
}

/// Collects what a publisher sends, thread-safely: a sink for tests that wait on events.
final class Collected<Value: Sendable>: Sendable {
    private let box = NIOLockedValueBox<[Value]>([])
    private let kept = NIOLockedValueBox<AnyCancellable?>(nil)

    init<P: Publisher>(_ publisher: P) where P.Output == Value, P.Failure == Never {
        let box = box
        kept.withLockedValue { $0 = publisher.sink { value in box.withLockedValue { $0.append(value) } } }
    }

    var values: [Value] { box.withLockedValue { $0 } }
    func cancel() { kept.withLockedValue { $0 }?.cancel() }
}
