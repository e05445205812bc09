// sluice-log-bench: the PostgreSQL event log measured (bench/eventlog runs it).
//
//   sluice-log-bench appends --appenders N --seconds S [--topics one|each] [--batch B]
//       events appended per second, each append its own transaction (autocommit), N appenders at
//       once, all to one topic or each to a topic of its own; with B > 1, B events per append
//       (`append(contentsOf:)`); with --async-commit, the bench's connections commit with
//       `synchronous_commit = off` (a startup parameter): no wait for the WAL flush
//       With --no-group-commit, each standalone append is a transaction of its own (the log's
//       `groupCommit: nil`); by default appends made at the same time are committed together
//       (--linger-us U: the committer waits U µs before taking each group while appends come
//       together; 200 by default, as the log's; --lanes L: groups committed at once, 2 by default,
//       as the log's). With --keyed, each append has an idempotency
//       key of its own (`append(_:to:idempotencyKey:)`, a new key each time: every append appends).
//   sluice-log-bench append-latency --rate R --seconds S [--producers N] [--topics one|each]
//       each append's own latency (call → committed answer) at R appends per second in all,
//       spread over N producers (64), each sending on its own schedule without waiting for the
//       previous answer's turn to come (open loop: a slow answer does not slow the rate); p50, p99, max
//   sluice-log-bench notify --appenders N --seconds S
//       the same rate for a bare `SELECT pg_notify(...)` per transaction: the NOTIFY-only relay's way
//   sluice-log-bench latency --port P --rate R --count C
//       commit → delivery: C events appended at R per second; an SSE client of the sluice-feed
//       instance on port P (another process) times each event from the moment its append was
//       called (a transaction of one statement: the commit happens within the call, and the event
//       can arrive before the call returns) to its arrival; p50, p99, max; and the append's own
//       round trip, by which this overstates
//   sluice-log-bench notify-latency --rate R --count C
//       the same from the `pg_notify` call to a LISTEN connection's delivery (PostgresNotifications)
//   sluice-log-bench catchup --port P --behind N
//       appends N events, then an SSE client resumes from before them on the instance on port P:
//       the time until it has all N (read from the table, the instance's memory holding 1,024)
//
// The connection comes from SLUICE_PG_HOST, SLUICE_PG_PORT, SLUICE_PG_USER, SLUICE_PG_PASSWORD,
// SLUICE_PG_DATABASE, as for sluice-feed.
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres

let arguments = Array(CommandLine.arguments.dropFirst())
func option(_ name: String, _ fallback: String) -> String {
    guard let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count else { return fallback }
    return arguments[index + 1]
}
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }

let environment = ProcessInfo.processInfo.environment
var configuration = PostgresClient.Configuration(
    host: environment["SLUICE_PG_HOST"] ?? "127.0.0.1", port: environment["SLUICE_PG_PORT"].flatMap { Int($0) } ?? 5432,
    username: environment["SLUICE_PG_USER"] ?? "postgres", password: environment["SLUICE_PG_PASSWORD"],
    database: environment["SLUICE_PG_DATABASE"], tls: .disable)
let asyncCommit = arguments.contains("--async-commit")
if asyncCommit { configuration.options.additionalStartupParameters = [("synchronous_commit", "off")] }
var logger = Logger(label: "sluice-log-bench")
logger.logLevel = .error
let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
let running = Task { await client.run() }
let linger = Duration.microseconds(Int(option("linger-us", "200"))!)
let lanes = Int(option("lanes", "2"))!
let log = PostgresEventLog(client: client,
                           groupCommit: arguments.contains("--no-group-commit") ? nil : GroupCommit(linger: linger, lanes: lanes),
                           logger: logger)
try await log.migrate()
let run = UInt32.random(in: 0...UInt32.max)

func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.up)) - 1)]
}

func format(_ milliseconds: Double) -> String { String(format: "%.2f", milliseconds) }

/// Runs `body` in `appenders` tasks for `seconds`; the number of times it returned, per second.
func rate(appenders: Int, seconds: Double, _ body: @escaping @Sendable (Int) async throws -> Void) async throws -> Double {
    let deadline = now() + UInt64(seconds * 1e9)
    let counts = try await withThrowingTaskGroup(of: Int.self) { group in
        for index in 0..<appenders {
            group.addTask {
                var count = 0
                while now() < deadline {
                    try await body(index)
                    count += 1
                }
                return count
            }
        }
        return try await group.reduce(0, +)
    }
    return Double(counts) / seconds
}

switch arguments.first {
case "appends":
    let appenders = Int(option("appenders", "1"))!
    let seconds = Double(option("seconds", "10"))!
    let each = option("topics", "one") == "each"
    let batch = Int(option("batch", "1"))!
    let payload = String(repeating: "x", count: 200)
    let payloads = Array(repeating: payload, count: batch)
    let keyed = arguments.contains("--keyed")
    let counter = NIOLockedValueBox(0)
    let perSecond = try await rate(appenders: appenders, seconds: seconds) { index in
        let topic = each ? "bench-\(run)-\(index)" : "bench-\(run)"
        let key = keyed ? counter.withLockedValue { $0 += 1; return "bench-\(run)-\($0)" } : nil
        try await log.append(contentsOf: payloads, to: topic, idempotencyKey: key)
    }
    say("appends\t\(appenders)\t\(each ? "a topic each" : "one topic")\tbatch \(batch)\t\(keyed ? "keyed\t" : "")\(asyncCommit ? "async commit" : "sync commit")\t\(log.groupCommit.map { "group commit, \($0.lanes) lane(s)" } ?? "no group commit")\t\(Int(perSecond * Double(batch))) events/s")

case "append-latency":
    let rate = Double(option("rate", "5000"))!
    let seconds = Double(option("seconds", "10"))!
    let producers = Int(option("producers", "64"))!
    let each = option("topics", "one") == "each"
    let payload = String(repeating: "x", count: 200)
    let perProducer = Int(rate * seconds) / producers
    let interval = Double(producers) / rate
    let began = now()
    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
        for index in 0..<producers {
            group.addTask {
                let topic = each ? "latency-\(run)-\(index)" : "latency-\(run)"
                return try await withThrowingTaskGroup(of: Double.self) { sends in
                    for n in 0..<perProducer {
                        let due = began + UInt64((Double(n) + Double(index) / Double(producers)) * interval * 1e9)
                        if due > now() { try await Task.sleep(for: .nanoseconds(Int(due - now()))) }
                        sends.addTask {
                            let at = now()
                            do { try await log.append(payload, to: topic) } catch { return .infinity }   // failed: counted apart
                            return Double(now() - at) / 1e6
                        }
                    }
                    var all: [Double] = []
                    for try await latency in sends { all.append(latency) }
                    return all
                }
            }
        }
        var all: [Double] = []
        for try await some in group { all += some }
        return all.sorted()
    }
    let failed = latencies.filter(\.isInfinite).count
    let achieved = Double(latencies.count - failed) / (Double(now() - began) / 1e9)
    say("append-latency\t\(Int(rate))/s asked, \(Int(achieved))/s done\t\(producers) producers\t\(each ? "a topic each" : "one topic")\t\(log.groupCommit.map { "group commit, \($0.lanes) lane(s)" } ?? "no group commit")\tp50 \(format(percentile(latencies, 0.5)))\tp99 \(format(percentile(latencies, 0.99)))\tmax \(format(latencies.last ?? .nan)) ms\t\(failed) failed")

case "notify":
    let appenders = Int(option("appenders", "1"))!
    let seconds = Double(option("seconds", "10"))!
    let payload = String(repeating: "x", count: 200)
    let perSecond = try await rate(appenders: appenders, seconds: seconds) { _ in
        try await client.query("SELECT pg_notify('bench_\(unescaped: String(run))', \(payload))", logger: logger)
    }
    say("notify\t\(appenders)\tpg_notify only\t\(Int(perSecond))")

case "latency":
    let port = Int(option("port", "8080"))!
    let rate = Double(option("rate", "100"))!
    let count = Int(option("count", "1000"))!
    let topic = "latency-\(run)"
    let committed = NIOLockedValueBox([UInt64: UInt64]())
    let sse = try await SSETimer.connect(port: port, path: "/events/\(topic)", lastEventID: nil)
    try await Task.sleep(for: .milliseconds(500))   // the instance's feed and LISTEN are in place
    var roundTrips: [Double] = []
    for index in 0..<count {
        let at = now()
        let id = try await log.append("e\(index)", to: topic)
        roundTrips.append(Double(now() - at) / 1e6)
        committed.withLockedValue { $0[id.position] = at }
        try await Task.sleep(for: .nanoseconds(Int(1e9 / rate)))
    }
    while sse.arrivals.count < count { try await Task.sleep(for: .milliseconds(10)) }
    let commits = committed.withLockedValue { $0 }
    let latencies = sse.arrivals.compactMap { position, at in commits[position].map { Double(at &- $0) / 1e6 } }.sorted()
    roundTrips.sort()
    say("latency\t\(count) at \(Int(rate))/s\tp50 \(format(percentile(latencies, 0.5)))\tp99 \(format(percentile(latencies, 0.99)))\tmax \(format(latencies.last ?? .nan))\tappend round trip p50 \(format(percentile(roundTrips, 0.5)))")

case "notify-latency":
    let rate = Double(option("rate", "100"))!
    let count = Int(option("count", "1000"))!
    let channel = "latency_\(run)"
    let sent = NIOLockedValueBox([Int: UInt64]())
    let received = NIOLockedValueBox([Int: UInt64]())
    let listening = PostgresConnection.Configuration(
        host: configuration.host ?? "127.0.0.1", port: configuration.port ?? 5432, username: configuration.username,
        password: configuration.password, database: configuration.database, tls: .disable)
    let ready = NIOLockedValueBox(false)
    let cancellable = PostgresNotifications(channel: channel, configuration: listening)
        .sink(receiveCompletion: { _ in }) { event in
            switch event {
            case .listening: ready.withLockedValue { $0 = true }
            case .notification(let text): received.withLockedValue { $0[Int(text)!] = now() }
            default: break
            }
        }
    while !ready.withLockedValue({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
    var roundTrips: [Double] = []
    for index in 0..<count {
        let at = now()
        sent.withLockedValue { $0[index] = at }
        try await client.query("SELECT pg_notify(\(channel), \(String(index)))", logger: logger)
        roundTrips.append(Double(now() - at) / 1e6)
        try await Task.sleep(for: .nanoseconds(Int(1e9 / rate)))
    }
    while received.withLockedValue({ $0.count }) < count { try await Task.sleep(for: .milliseconds(10)) }
    let sends = sent.withLockedValue { $0 }
    let latencies = received.withLockedValue { $0 }.compactMap { index, at in sends[index].map { Double(at &- $0) / 1e6 } }.sorted()
    roundTrips.sort()
    say("notify-latency\t\(count) at \(Int(rate))/s\tp50 \(format(percentile(latencies, 0.5)))\tp99 \(format(percentile(latencies, 0.99)))\tmax \(format(latencies.last ?? .nan))\tpg_notify round trip p50 \(format(percentile(roundTrips, 0.5)))")
    cancellable.cancel()

case "catchup":
    let port = Int(option("port", "8080"))!
    let behind = Int(option("behind", "10000"))!
    let topic = "catchup-\(run)"
    let start = try await log.head(of: topic)
    // The instance's feed exists and follows the topic before the events are appended, as it
    // would for a topic in use; the client then resumes from before all of them.
    let watcher = try await SSETimer.connect(port: port, path: "/events/\(topic)", lastEventID: nil)
    try await Task.sleep(for: .milliseconds(500))
    let payload = String(repeating: "x", count: 200)
    try await withThrowingTaskGroup(of: Void.self) { group in
        for part in 0..<8 {
            group.addTask {
                for _ in stride(from: part, to: behind, by: 8) { try await log.append(payload, to: topic) }
            }
        }
        try await group.waitForAll()
    }
    while watcher.arrivals.count < behind { try await Task.sleep(for: .milliseconds(10)) }
    let began = now()
    let resumed = try await SSETimer.connect(port: port, path: "/events/\(topic)", lastEventID: start.description)
    while resumed.arrivals.count < behind { try await Task.sleep(for: .milliseconds(1)) }
    let took = Double(resumed.arrivals.last!.at &- began) / 1e6
    let inOrder = resumed.arrivals.map(\.position) == (1...UInt64(behind)).map { $0 }
    say("catchup\t\(behind) behind\t\(format(took)) ms\t\(inOrder ? "all, in order" : "NOT IN ORDER")")

default:
    say("usage: sluice-log-bench appends|notify|latency|notify-latency|catchup [options] (see the source's first lines)")
    exit(2)
}
running.cancel()

/// An SSE client that records when each event (by its position) arrives.
final class SSETimer: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    private var pending: [UInt8] = []
    private let box = NIOLockedValueBox([(position: UInt64, at: UInt64)]())

    var arrivals: [(position: UInt64, at: UInt64)] { box.withLockedValue { $0 } }

    static func connect(port: Int, path: String, lastEventID: String?) async throws -> SSETimer {
        let timer = SSETimer()
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(timer)
                }
            }.connect(host: "127.0.0.1", port: port).get()
        var headers = HTTPHeaders([("Host", "127.0.0.1:\(port)")])
        if let lastEventID { headers.add(name: "Last-Event-ID", value: lastEventID) }
        channel.write(HTTPClientRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers)),
                      promise: nil)
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        return timer
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .body(let buffer) = unwrapInboundIn(data) else { return }
        let at = now()
        pending += buffer.readableBytesView
        var start = 0
        var found: [(UInt64, UInt64)] = []
        while let newline = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
            let line = pending[start..<newline]
            if line.starts(with: Array("id: ".utf8)), let dash = line.lastIndex(of: UInt8(ascii: "-")),
               let position = UInt64(String(decoding: pending[(dash + 1)..<newline], as: UTF8.self)) {
                found.append((position, at))
            }
            start = newline + 1
        }
        pending.removeFirst(start)
        if !found.isEmpty { box.withLockedValue { $0 += found.map { (position: $0.0, at: $0.1) } } }
    }
}
