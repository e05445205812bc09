#if TLS && !canImport(Darwin)
import Foundation
@testable import SluiceEventSource
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The measurement behind keeping `http:` and `ws:` on the module's POSIX sockets when the trait
/// `TLS` brings NIO (docs/FIGURES.md, "One stack or two"): the time and the
/// process's CPU time per event of one stream of 100,000 small events (or 10,000 larger ones)
/// over loopback, read by a
/// publisher with unlimited demand — `http:` on a POSIX socket, `http:` over NIO (the same client
/// code, no TLS), `https:` over NIO and SwiftNIO SSL. It asserts nothing about the numbers and
/// runs only when asked:
///
///     SLUICE_MEASURE_STACKS=1 swift test --traits TLS --scratch-path .build-tls -c release --filter OneStackMeasurement
@Suite("OneStackMeasurement", .serialized, .enabled(if: ProcessInfo.processInfo.environment["SLUICE_MEASURE_STACKS"] != nil))
struct OneStackMeasurement {
    /// Padding in each event's data: `SLUICE_MEASURE_PADDING` bytes (none by default).
    static let padding = String(repeating: "x", count: Int(ProcessInfo.processInfo.environment["SLUICE_MEASURE_PADDING"] ?? "") ?? 0)

    /// 100,000 events (10,000 with padding).
    static let count = padding.isEmpty ? 100_000 : 10_000

    /// The whole stream, written in large pieces: the server's part stays small.
    static let body: [UInt8] = Array((1...count).map { "id: \($0)\ndata: price \($0 % 997)\(padding)\n\n" }.joined().utf8)

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

    /// Bytes the process's code holds from malloc — in use, not resident, so that memory freed
    /// and reused between rounds, and glibc's arenas per thread, do not blur the figure: glibc's
    /// `malloc_info` totals, what the arenas have from the system less their free chunks, plus
    /// the chunks mapped on their own.
    private func heapBytes() -> Int {
        typealias MallocInfo = @convention(c) (Int32, UnsafeMutablePointer<FILE>?) -> Int32
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info"), let file = tmpfile() else { return 0 }
        defer { fclose(file) }
        _ = unsafeBitCast(symbol, to: MallocInfo.self)(0, file)
        rewind(file)
        var text = ""
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            text += String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        // The totals follow the last </heap>.
        let totals = text.components(separatedBy: "</heap>").last ?? ""
        func size(_ element: String) -> Int {
            guard let range = totals.range(of: element), let start = totals[range.upperBound...].range(of: "size=\"") else { return 0 }
            return Int(totals[start.upperBound...].prefix { $0.isNumber }) ?? 0
        }
        return size("<system type=\"current\"") - size("<total type=\"fast\"") - size("<total type=\"rest\"")
            + size("<total type=\"mmap\"")
    }

    /// The process's threads (`/proc/self/status`).
    private func threads() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("Threads:") }
            .flatMap { Int($0.dropFirst(8).trimmingCharacters(in: .whitespaces)) } ?? 0
    }

    @Test func memoryPerOpenStreamOnEachStack() async throws {
        let certificates = try TestCertificates.shared.get()
        let streams = 200
        let server = try LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write("id: 1\ndata: open\n\n")
            connection.waitForClientClose(limit: 300)
        }
        let front = try TLSFront(server)
        defer { front.stop() }
        var configuration = EventSource.Configuration()
        configuration.tls = EventSource.TLSOptions(trustRoots: [.file(certificates.caFile)], proxy: .none)
        let stacks: [(name: String, overNIO: Bool, url: URL)] = [
            ("http:  POSIX socket (kept)", false, server.url()),
            ("http:  NIO, no TLS", true, server.url()),
            ("https: NIO + SwiftNIO SSL", false, front.url()),
        ]
        print("SluiceEventSource, \(streams) open streams of one event each over loopback, per open stream (the in-process server's share included):")
        for stack in stacks {
            PlainSocket.plainOverNIO.withLock { $0 = stack.overNIO }
            defer { PlainSocket.plainOverNIO.withLock { $0 = false } }
            for round in 0..<3 {   // the first rounds warm up (NIO's threads, the TLS context)
                let (heapBefore, threadsBefore) = (heapBytes(), threads())
                let subscribers = (0..<streams).map { _ in RecordingSubscriber() }
                for subscriber in subscribers { EventSource(url: stack.url, configuration: configuration).subscribe(subscriber) }
                for subscriber in subscribers { #expect(await subscriber.events.wait(forCount: 1, limit: 120)) }
                let (heap, threadCount) = (heapBytes() - heapBefore, threads() - threadsBefore)
                let closedBefore = server.closed.values.count
                for subscriber in subscribers { subscriber.cancel() }
                if round == 2 {
                    print("  \(stack.name): \(heap / streams / 1024) KiB of heap, \(String(format: "%.2f", Double(threadCount) / Double(streams))) threads")
                }
                #expect(await waitUntil(limit: 60) { server.closed.values.count >= closedBefore + streams })
            }
        }
    }
}
#endif
