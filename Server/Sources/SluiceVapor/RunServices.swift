#if Vapor
import Logging
import NIOConcurrencyHelpers
import ServiceLifecycle
import Vapor

/// Runs swift-service-lifecycle `Service`s — a `PostgresClient`, a `PostgresEventLogListener`,
/// `PostgresTopicFeeds`, an ``/SluiceFeed/EventFeed`` — for a Vapor application, which has no `ServiceGroup`
/// of its own: they start when the application boots and shut down gracefully first when it
/// shuts down, before its server waits for the responses in flight (so the feeds' streams end
/// after their `shutdown` message instead of holding the server up).
///
/// ```swift
/// app.lifecycle.use(RunServices(postgres, listener, feeds, logger: app.logger))
/// ```
public final class RunServices: LifecycleHandler {
    private let group: ServiceGroup
    private let running = NIOLockedValueBox<Task<Void, any Error>?>(nil)

    /// Runs `services` in a `ServiceGroup` of their own (graceful shutdown on the application's
    /// shutdown, not on signals: Vapor handles those).
    public init(_ services: any Service..., logger: Logger) {
        group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
    }

    /// Starts the services.
    public func didBootAsync(_ application: Application) async throws {
        let group = group
        running.withLockedValue { $0 = Task { try await group.run() } }
    }

    /// Shuts the services down gracefully and waits until they have ended.
    public func shutdownAsync(_ application: Application) async {
        guard let task = running.withLockedValue({ $0 }) else { return }
        await group.triggerGracefulShutdown()
        do {
            try await task.value
        } catch {
            application.logger.error("services ended with an error", metadata: ["error": "\(error)"])
        }
    }
}
#endif
