import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import SluiceFeed

/// sluice-feed: one stream of events to every SSE and WebSocket client, through the engine chosen
/// with `--engine`; with `--postgres`, shared by every instance on one PostgreSQL channel. See
/// ``FeedOptions`` for the command line, ``FeedRoutes`` for the HTTP protocol.
@main
struct FeedServer {
    static func main() async throws {
        let options: FeedOptions
        do {
            options = try FeedOptions.parse(CommandLine.arguments.dropFirst())
        } catch {
            FileHandle.standardError.write(Data("sluice-feed: \(error)\n\(FeedOptions.usage)\n".utf8))
            exit(2)
        }
        let instance = options.instance
        // A line of the server's log, on standard output, unbuffered (scripts wait for some).
        let say: @Sendable (String) -> Void = { line in
            FileHandle.standardOutput.write(Data("sluice-feed \(instance): \(line)\n".utf8))
        }
        OpenFileLimit.raise()
        // Every metric (the feeds', the listener's) into one registry, which GET /metrics shows.
        let metrics = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics))

        let engine: any FanOutEngine = switch options.engine {
        case .sluice: options.topics.map { TopicsEngine(topics: $0, policy: options.slowClientPolicy) as any FanOutEngine }
            ?? SluiceEngine(policy: options.slowClientPolicy)
        case .shareBounded: makeShareEngine(policy: .bounded(1))
        case .shareLatest: makeShareEngine(policy: .bufferingLatest(options.buffer), latest: options.buffer)
        case .channel: ChannelPerClientEngine()
        case .stream: StreamPerClientEngine(buffer: options.buffer)
        }
        let input = FeedInput(engine: engine)
        let bench = if let engine = engine as? TopicsEngine {
            BenchRun { seq, text in engine.publish(text, toTopic: BenchTopics.topic(ofEvent: seq, among: engine.names.count)) }
        } else {
            BenchRun { _, text in input.publish(text) }
        }
        var logger = Logger(label: "sluice-feed")
        logger.logLevel = ProcessInfo.processInfo.environment["SLUICE_FEED_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
        let backend = options.postgres ? EventLogBackend(logger: logger, partitionLimit: options.partitionLimit) : nil
        let routes = FeedRoutes(options: options, engine: engine, input: input, bench: bench, backend: backend, metrics: metrics)
        // The PostgreSQL client runs from here on; it stops after the service group. The log makes
        // its tables before its first query (the listener's start, or an append).
        let client = backend.map { backend in Task { await backend.client.run() } }
        defer { client?.cancel() }
        if let backend {
            let listener = backend.listener
            Task {
                for await state in listener.statePublisher.values {
                    if state.isListening { say("listening for the event log's wake-ups") }
                    if case .reconnecting(_, let attempts, _) = state, attempts == 1 { say("event log listener reconnecting") }
                }
            }
        }
        let app = Application(
            router: routes.httpRouter(),
            server: .eventStreams(
                routes.eventStreamRoutes(), webSocketRouter: routes.webSocketRouter(),
                gate: ConnectionGate(logger: logger),   // ConnectionLimits' defaults, under the raised open-file limit
                configuration: .init(http1: .init(
                    additionalChannelHandlers: options.writeBuffer.map { [WriteBufferLimit(highWaterMark: $0)] } ?? []))),
            configuration: .init(address: .hostname(options.host, port: options.port), backlog: 4_096),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? options.port
                say("engine \(options.engine.rawValue), serving on http://\(options.host):\(port)/")
            },
            logger: logger)

        // Graceful shutdown on SIGINT or SIGTERM: the services stop in reverse order, so the feed
        // first (the benchmark's timer stops, every stream gets its last event and ends), then the
        // HTTP server, which then has no stream to wait for. A client that does not read its last
        // event is cut off by the feed's grace period (Sluice's engine) or the group's limit.
        // Vapor's requests are not tasks of this group, so the feeds must finish before its server
        // stops (it waits for the responses in flight): the topic feeds shut down before it.
        let server: any Service = if options.framework == .vapor, let sluice = engine as? SluiceEngine {
            VaporFeedServer(routes: routes, engine: sluice, say: say)
        } else {
            app
        }
        let backendServices: [any Service] = backend.map { [$0.listener, $0.trimmer] } ?? []
        let afterServer: [any Service] = backend.map { [$0.feeds] } ?? []
        var configuration = ServiceGroupConfiguration(
            services: backendServices.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) } + [
                .init(service: server)] + afterServer.map { .init(service: $0) } + [
                .init(service: EngineShutdown(engine: engine, bench: bench),
                      successTerminationBehavior: .gracefullyShutdownGroup),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(10)
        configuration.maximumCancellationDuration = .seconds(5)
        try await ServiceGroup(configuration: configuration).run()
        say("stopped")
    }
}
