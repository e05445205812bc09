import Foundation
import PostgresNIO

/// What the example apps read from their environment:
///
/// | variable | meaning | default |
/// | --- | --- | --- |
/// | `SLUICE_EXAMPLE_HOST`, `SLUICE_EXAMPLE_PORT` | where the app serves | `127.0.0.1`, `8080` (`0`: a free port) |
/// | `SLUICE_EXAMPLE_INSTANCE` | the instance's name, on its page | `example` |
/// | `SLUICE_EXAMPLE_TOKEN` | the bearer token that opens topics named `private.…` | none: they stay closed |
/// | `SLUICE_PG_HOST`, `SLUICE_PG_PORT`, `SLUICE_PG_USER`, `SLUICE_PG_PASSWORD`, `SLUICE_PG_DATABASE` | the PostgreSQL database of the event log | `127.0.0.1`, `5432`, `postgres`, none, the user's |
public struct ExampleSettings: Sendable {
    /// The address to serve on.
    public var host: String
    /// The port to serve on (0: one the system picks).
    public var port: Int
    /// The instance's name.
    public var instance: String
    /// Who may read and post `private.…` topics.
    public var access: TopicRule
    /// The event log's database.
    public var database: PostgresClient.Configuration

    /// The settings the environment gives.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        host = environment["SLUICE_EXAMPLE_HOST"] ?? "127.0.0.1"
        port = environment["SLUICE_EXAMPLE_PORT"].flatMap { Int($0) } ?? 8080
        instance = environment["SLUICE_EXAMPLE_INSTANCE"] ?? "example"
        access = TopicRule(token: environment["SLUICE_EXAMPLE_TOKEN"])
        database = PostgresClient.Configuration(
            host: environment["SLUICE_PG_HOST"] ?? "127.0.0.1",
            port: environment["SLUICE_PG_PORT"].flatMap { Int($0) } ?? 5432,
            username: environment["SLUICE_PG_USER"] ?? "postgres",
            password: environment["SLUICE_PG_PASSWORD"],
            database: environment["SLUICE_PG_DATABASE"],
            tls: .disable)
    }

    /// Says, on standard output and at once, where the app serves: `example <instance>: serving on
    /// http://<host>:<port>/` (scripts wait for this line).
    public func announce(port: Int) {
        FileHandle.standardOutput.write(Data("example \(instance): serving on http://\(host):\(port)/\n".utf8))
    }
}
