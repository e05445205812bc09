import ServiceLifecycle

/// The server's own part of a graceful shutdown, as a service: waits for it, then stops the
/// benchmark's timer and PostgreSQL, and finishes the engine — every client gets its last event
/// (`event: shutdown`) and its stream ends.
struct EngineShutdown: Service {
    let engine: any FanOutEngine
    let bench: BenchRun

    func run() async throws {
        try? await gracefulShutdown()
        bench.stop()
        engine.finish()
    }
}
