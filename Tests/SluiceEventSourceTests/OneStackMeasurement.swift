#if TLS && !canImport(Darwin)
import Foundation
@testable import SluiceEventSource
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The measurement behind keeping `http:` and `ws:` on the module's POSIX sockets when the trait
/// `TLS` brings NIO (docs/FIGURES.md, "SluiceEventSource: one stack or two"): the time and the
/// process's CPU time per event of one stream of 100,000 small events over loopback, read by a
/// publisher with unlimited demand — `http:` on a POSIX socket, `http:` over NIO (the same client
/// code, no TLS), `https:` over NIO and SwiftNIO SSL. It asserts nothing about the numbers and
/// runs only when asked:
///
///     SLUICE_MEASURE_STACKS=1 swift test --traits TLS --scratch-path .build-tls -c release --filter OneStackMeasurement
@Suite("OneStackMeasurement", .serialized, .enabled(if: ProcessInfo.processInfo.environment["SLUICE_MEASURE_STACKS"] != nil))
struct OneStackMeasurement {
    static let count = 100_000

    /// The whole stream, written in large pieces: the server's part stays small.
    static let body: [UInt8] = Array((1...count).map { "id: \($0)\ndata: price \($0 % 997)\n\n" }.joined().utf8)

    /// Seconds of wall time and of the process's CPU time (user and system) that reading the
    /// stream at `url` took.
    private func read(_ url: URL, trust: TestCertificates) async throws -> (wall: Double, cpu: Double) {
        var configuration = EventSource.Configuration(bufferSize: 1_024)
        configuration.tls = EventSource.TLSOptions(trustRoots: [.file(trust.caFile)], proxy: .none)
        let subscriber = RecordingSubscriber()
        let startCPU = cpuSeconds()
        let start = ContinuousClock.now
        EventSource(url: url, configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: Self.count, limit: 300))
        let wall = (ContinuousClock.now - start) / .seconds(1)
        let cpu = cpuSeconds() - startCPU
        subscriber.cancel()
        return (wall, cpu)
    }

    private func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    @Test func timePerEventOnEachStack() async throws {
        let certificates = try TestCertificates.shared.get()
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            var offset = 0
            while offset < Self.body.count {
                let end = min(Self.body.count, offset + 262_144)
                guard connection.write(Array(Self.body[offset..<end])) else { return }
                offset = end
            }
            connection.waitForClientClose(limit: 300)
        }
        let front = try TLSFront(server)
        defer { front.stop() }
        let stacks: [(name: String, overNIO: Bool, url: URL)] = [
            ("http:  POSIX socket (kept)", false, server.url()),
            ("http:  NIO, no TLS", true, server.url()),
            ("https: NIO + SwiftNIO SSL", false, front.url()),
        ]
        print("SluiceEventSource, \(Self.count) events of \(Self.body.count / Self.count) bytes over loopback, publisher, unlimited demand; median of 5:")
        for stack in stacks {
            PlainSocket.plainOverNIO.withLock { $0 = stack.overNIO }
            defer { PlainSocket.plainOverNIO.withLock { $0 = false } }
            _ = try await read(stack.url, trust: certificates)   // warm-up
            var runs: [(wall: Double, cpu: Double)] = []
            for _ in 0..<5 { runs.append(try await read(stack.url, trust: certificates)) }
            let wall = runs.map(\.wall).sorted()[2]
            let cpu = runs.map(\.cpu).sorted()[2]
            let perEvent = { (seconds: Double) in String(format: "%.2f µs", seconds / Double(Self.count) * 1e6) }
            print("  \(stack.name): \(perEvent(wall)) per event (wall), \(perEvent(cpu)) CPU (process, server included)")
        }
    }
}
#endif
