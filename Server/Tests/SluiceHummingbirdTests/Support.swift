import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle
import Sluice
import SluiceHummingbird
@_exported import ServerTestSupport
import Testing

/// The suites that run a server and clients on loopback: one at a time (each test in order), so
/// that their timings and resident-memory readings are not disturbed by one another.
@Suite(.serialized) enum OverLoopback {}

/// A Hummingbird application on a loopback port the system picks, run in a `ServiceGroup` (as a
/// server runs it), for the duration of `body`; shut down gracefully afterwards.
func withServer<R>(_ router: Router<BasicRequestContext>, server: HTTPServerBuilder = .http1(), services: [any Service] = [],
                   _ body: (_ port: Int, _ group: ServiceGroup) async throws -> R) async throws -> R {
    let (ports, portSink) = AsyncStream<Int>.makeStream()
    var logger = Logger(label: "SluiceHummingbirdTests")
    logger.logLevel = ProcessInfo.processInfo.environment["SLUICE_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .warning
    let app = Application(router: router, server: server, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                          services: services,
                          onServerRunning: { channel in portSink.yield(channel.localAddress!.port!) }, logger: logger)
    let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
    let running = Task { try await group.run() }
    var iterator = ports.makeAsyncIterator()
    let port = try #require(await iterator.next())
    do {
        let result = try await body(port, group)
        await group.triggerGracefulShutdown()
        try await running.value
        return result
    } catch {
        await group.triggerGracefulShutdown()
        try? await running.value
        throw error
    }
}
