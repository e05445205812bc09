import Foundation
import PostgresNIO
import Sluice
import SluicePostgres

/// `--postgres`: every instance's feed hears one PostgreSQL channel, and a posted event goes out
/// on it (`pg_notify`), so that an event posted to any instance reaches the clients of all.
///
/// - In: `PostgresNotifications` on ``channel`` (its own connection, reconnecting), each
///   notification's payload published into this instance's ``FeedInput``; a gap is logged.
/// - Out: ``post(_:)`` sends the text through a subject, a buffer of 1,024 posts, and a
///   `PostgresNotifier` (its demand: the queries in flight), so a burst of posts waits in the
///   buffer instead of being dropped by the subject for want of demand.
final class PostgresRelay: Sendable {
    /// The channel every instance listens and notifies on.
    static let channel = "sluice_feed"

    private let outgoing = PassthroughSubject<String, Never>()
    private let kept: [AnyCancellable]

    /// Starts listening; `say` gets what is worth a line in the server's log (`listening` when
    /// `LISTEN` is in place: from then on, what any instance posts reaches this one).
    init(configuration: PostgresConnection.Configuration, input: FeedInput, say: @escaping @Sendable (String) -> Void) {
        let listening = PostgresNotifications(channel: Self.channel, configuration: configuration)
            .sink(receiveCompletion: { completion in
                if case .failure(let error) = completion { say("PostgreSQL notifications stopped: \(error)") }
            }, receiveValue: { event in
                switch event {
                case .listening: say("listening for PostgreSQL notifications on \(Self.channel)")
                case .notification(let text): input.publish(text)
                case .gap(let gap): say("PostgreSQL notifications may have been missed: \(gap)")
                case .undecodable(let text, let error): say("undecodable notification \(text): \(error)")
                }
            })
        let notifier = outgoing
            .buffer(size: 1_024, prefetch: .byRequest, whenFull: .dropNewest)
            .notifyPostgres(channel: Self.channel, configuration: configuration)
        let failures = notifier.outcomes.sink { outcome in
            if case .failed(let text, let error) = outcome { say("not sent to PostgreSQL (\(text.prefix(40))): \(error)") }
        }
        kept = [listening, AnyCancellable(notifier), failures]
    }

    /// Sends `text` to every instance (this one included, when PostgreSQL delivers it back).
    func post(_ text: String) { outgoing.send(text) }

    /// Stops listening and notifying.
    func stop() { kept.forEach { $0.cancel() } }

    /// The connection settings from `SLUICE_PG_HOST` (127.0.0.1), `SLUICE_PG_PORT` (5432),
    /// `SLUICE_PG_USER`, `SLUICE_PG_PASSWORD`, `SLUICE_PG_DATABASE` (the names `Server/test` sets).
    static func configurationFromEnvironment() -> PostgresConnection.Configuration {
        let environment = ProcessInfo.processInfo.environment
        return PostgresConnection.Configuration(
            host: environment["SLUICE_PG_HOST"] ?? "127.0.0.1",
            port: environment["SLUICE_PG_PORT"].flatMap { Int($0) } ?? 5432,
            username: environment["SLUICE_PG_USER"] ?? "postgres",
            password: environment["SLUICE_PG_PASSWORD"],
            database: environment["SLUICE_PG_DATABASE"],
            tls: .disable)
    }
}
