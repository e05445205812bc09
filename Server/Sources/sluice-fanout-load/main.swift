// The fan-out benchmark's load generator: a process of its own, apart from the server, that opens N
// Server-Sent Events streams to `sluice-feed` on loopback (raw NIO, HTTP/1.1), some of them stalled
// (connected, never reading), asks the server to emit events at a fixed rate, and checks that every
// healthy client got every event in order. Each event's data is "<sequence> <CLOCK_MONOTONIC ns when
// the server emitted it>": one clock on one machine, so the delivery latency is receive − emission.
//
//   sluice-fanout-load --port P [--clients 1000] [--stalled-percent 0] [--count 1000] [--rate 100]
//                      [--churn-seconds 0] [--churn-concurrency 32] [--grace 15] [--deadline 300]
//                      [--topics 100 --follow 10 [--topic-path /sub/]]
//
// With --topics T --follow K, every connection follows K of T topics (`t0` … `t<T-1>`), drawn for
// each client from its index (`ClientTopics`), on one connection: `GET /events?topic=t3&topic=t17…`
// (Sluice), or `GET <topic-path>t3,t17,…` (Nchan's multiplexed subscriber). The server sends event
// `seq` to topic `BenchTopics.topic(ofEvent:among:)` (the same function as sluice-feed's and
// bench/nchan-shim.py's), so each client knows which events it must get: exactly those of its
// topics, in order. Deliveries are the events received; each is one event to one connection.
//
// The run: wait until the server has no client; read GET /stats (resident bytes with none); connect
// the N clients (a stalled one asks for a small receive buffer and stops reading once the response
// head is in); wait until /stats counts N clients; read /stats again (resident bytes with N idle
// clients, CPU seconds, counters); POST /bench/start; wait until every healthy client has every event
// (or, once the server has published them all, no client has received anything for 3 s, or `count /
// rate + grace` seconds have passed); read /stats (CPU seconds, counters); then, with the N clients
// still connected, open and close streams for `--churn-seconds` (`--churn-concurrency` at a time,
// each one connect, response head, close); close everything.
//
// Prints one line of JSON on standard output and a human summary on standard error. Exits 0 when the
// run completed (whatever was lost: the numbers say it), 2 when it could not be set up, 3 at the
// deadline.
import Foundation
import LoadClient
import Histogram
import NIOCore
import NIOHTTP1
import NIOPosix

/// Opens one Server-Sent Events stream from `loop` to the server on loopback `port` (an
/// ``EventStreamClient`` in the pipeline after NIO's HTTP client handlers). `connected` succeeds
/// once the response head has come, and fails if the connection does; `receiveBuffer` sets the
/// socket's `SO_RCVBUF` (a stalled client's small window).
func openStream(on loop: any EventLoop, port: Int, timeout: TimeAmount, receiveBuffer: Int?, stalled: Bool,
                record: LoopRecord, expected: ExpectedEvents, uri: String = "/events",
                connected: EventLoopPromise<Void>) -> EventLoopFuture<any Channel> {
    var bootstrap = ClientBootstrap(group: loop).connectTimeout(timeout)
    if let receiveBuffer {
        bootstrap = bootstrap.channelOption(ChannelOptions.socketOption(.so_rcvbuf), value: SocketOptionValue(receiveBuffer))
    }
    let channel = bootstrap
        .channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers()
                try channel.pipeline.syncOperations.addHandler(
                    EventStreamClient(stalled: stalled, record: record, expected: expected, uri: uri, connected: connected))
            }
        }
        .connect(host: "127.0.0.1", port: port)
    channel.cascadeFailure(to: connected)
    return channel
}

// MARK: Options

struct Options: Sendable {
    var port = 0
    var clients = 1_000
    var stalledPercent = 0.0
    var count = 1_000
    var rate = 100
    var churnSeconds = 0.0
    var churnConcurrency = 32
    var grace = 15.0
    var deadline = 300.0
    var stalledReceiveBuffer = 4_096
    /// Each event's data size in bytes (`size` of `/bench/start`); 0: the bare "<seq> <ns>".
    var size = 0
    /// With `--topics T --follow K`: each client follows K of the server's T topics on one connection.
    var topics: Int?
    var follow = 10
    /// Where a connection of several topics subscribes: `nil`, `/events?topic=a&topic=b…`; a path,
    /// that path followed by the topics' names separated by commas (Nchan's `/sub/a,b,…`).
    var topicPath: String?

    init(_ arguments: [String]) {
        var index = 1
        func value() -> String {
            index += 1
            guard index < arguments.count else { fail("\(arguments[index - 1]) needs a value") }
            return arguments[index]
        }
        func number<T: LosslessStringConvertible>(_ type: T.Type) -> T {
            let name = arguments[index]
            let text = value()
            guard let number = T(text) else { fail("\(name): not a number: \(text)") }
            return number
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--port": port = number(Int.self)
            case "--clients": clients = number(Int.self)
            case "--stalled-percent": stalledPercent = number(Double.self)
            case "--count": count = number(Int.self)
            case "--rate": rate = number(Int.self)
            case "--churn-seconds": churnSeconds = number(Double.self)
            case "--churn-concurrency": churnConcurrency = number(Int.self)
            case "--grace": grace = number(Double.self)
            case "--deadline": deadline = number(Double.self)
            case "--stalled-receive-buffer": stalledReceiveBuffer = number(Int.self)
            case "--size": size = number(Int.self)
            case "--topics": topics = number(Int.self)
            case "--follow": follow = number(Int.self)
            case "--topic-path": topicPath = value()
            case "--help", "-h":
                FileHandle.standardError.write(Data("""
                    usage: sluice-fanout-load --port P [--clients N] [--stalled-percent X] [--count C] [--rate R]
                                              [--churn-seconds S] [--churn-concurrency K] [--grace S] [--deadline S]
                                              [--stalled-receive-buffer BYTES] [--size BYTES]
                                              [--topics T --follow K [--topic-path PATH]]

                    """.utf8))
                exit(0)
            default: fail("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard port > 0 else { fail("--port is required") }
        guard clients > 0, count > 0, rate > 0, churnConcurrency > 0 else { fail("clients, count, rate must be positive") }
        guard (0...100).contains(stalledPercent) else { fail("--stalled-percent: 0 to 100") }
        if let topics, !(1...topics).contains(follow) { fail("--follow: 1 to --topics") }
    }
}

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sluice-fanout-load: \(message)\n".utf8))
    exit(status)
}

func note(_ message: String) {
    FileHandle.standardError.write(Data("\(message)\n".utf8))
}

func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

func seconds(since start: UInt64) -> Double {
    Double(monotonicNanoseconds() - start) / 1e9
}

/// Ten thousand sockets need more than the usual soft limit of 1,024 descriptors: take the hard one.
func raiseFileLimit() -> UInt64 {
    var limit = rlimit()
    getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    if limit.rlim_cur < limit.rlim_max {
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
    return UInt64(limit.rlim_cur)
}

// MARK: What the clients measure

/// What the clients of one event loop measured; touched on that loop only.
final class LoopRecord: @unchecked Sendable {
    var latencies = Histogram<UInt64>(highestTrackableValue: 600_000_000_000, numberOfSignificantValueDigits: .three)
    /// Events received in order by healthy clients.
    var received = 0
    /// Events a healthy client skipped (a later one came first), counted when the later one comes.
    var skipped = 0
    /// Events that came after a later one, or twice.
    var outOfOrder = 0
    var clientsWithLoss = 0
    var clientsOutOfOrder = 0
    var complete = 0
    /// Healthy clients whose stream ended before the last event.
    var closedEarly = 0
    /// Events a healthy client never got because its stream ended before them.
    var cutOff = 0
    /// Stalled clients the server closed (seen only if the close reaches a client that does not read: rarely).
    var stalledClosed = 0
    /// Set once the run's POST is sent: events emitted before it belong to no run of this process.
    var runStart: UInt64 = .max

    func add(_ other: LoopRecord) {
        latencies.add(other.latencies)
        received += other.received
        skipped += other.skipped
        outOfOrder += other.outOfOrder
        clientsWithLoss += other.clientsWithLoss
        clientsOutOfOrder += other.clientsOutOfOrder
        complete += other.complete
        closedEarly += other.closedEarly
        cutOff += other.cutOff
        stalledClosed += other.stalledClosed
    }
}

/// One SSE client. A healthy one parses each `data: <sequence> <ns>` line as the bytes come, with no
/// allocation per event, and checks the sequence; a stalled one stops reading once the response head
/// is in, so the server's writes to it back up in the socket buffers and then in the server.
final class EventStreamClient: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    private enum State { case prefix(Int), sequence, nanoseconds, skip }
    private static let prefix = Array("data: ".utf8)

    let stalled: Bool
    let record: LoopRecord
    let expected: ExpectedEvents
    let uri: String
    let connected: EventLoopPromise<Void>
    /// The index in `expected` of the next event due.
    private var next = 0
    private var state = State.prefix(0)
    private var sequence = 0
    private var emitted: UInt64 = 0
    private var done = false
    private var lossCounted = false
    private var outOfOrderCounted = false

    init(stalled: Bool, record: LoopRecord, expected: ExpectedEvents, uri: String, connected: EventLoopPromise<Void>) {
        self.stalled = stalled
        self.record = record
        self.expected = expected
        self.uri = uri
        self.connected = connected
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        head.headers.add(name: "Host", value: "127.0.0.1")
        head.headers.add(name: "Accept", value: "text/event-stream")
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard head.status == .ok else {
                connected.fail(LoadError.status(head.status.code, ""))
                context.close(promise: nil)
                return
            }
            if stalled { try? context.channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false) }
            if !stalled, expected.count == 0 {   // a client whose topics get no event is complete at once
                done = true
                record.complete += 1
            }
            connected.succeed()
        case .body(let buffer):
            guard !stalled, !done else { return }
            let now = monotonicNanoseconds()
            buffer.withUnsafeReadableBytes { bytes in
                for byte in bytes { consume(byte, now: now) }
            }
        case .end:
            context.close(promise: nil)
        }
    }

    @inline(__always)
    private func consume(_ byte: UInt8, now: UInt64) {
        if byte == UInt8(ascii: "\n") {
            if case .nanoseconds = state { received(sequence, emitted: emitted, now: now) }
            state = .prefix(0)
            return
        }
        switch state {
        case .prefix(let matched):
            if byte == Self.prefix[matched] {
                if matched + 1 == Self.prefix.count {
                    state = .sequence
                    sequence = 0
                } else {
                    state = .prefix(matched + 1)
                }
            } else {
                state = .skip
            }
        case .sequence:
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                sequence = sequence &* 10 &+ Int(byte &- UInt8(ascii: "0"))
            } else if byte == UInt8(ascii: " ") {
                state = .nanoseconds
                emitted = 0
            } else {
                state = .skip
            }
        case .nanoseconds:
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                emitted = emitted &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
            } else if byte != UInt8(ascii: "\r") {
                state = .skip
            }
        case .skip:
            break
        }
    }

    private func received(_ sequence: Int, emitted: UInt64, now: UInt64) {
        guard !done, emitted >= record.runStart, sequence < expected.events else { return }
        // An event before the next one due, twice, or of a topic the client does not follow.
        guard let index = expected.index(of: sequence, from: next) else {
            record.outOfOrder += 1
            if !outOfOrderCounted { outOfOrderCounted = true; record.clientsOutOfOrder += 1 }
            return
        }
        if index > next {
            record.skipped += index - next
            if !lossCounted { lossCounted = true; record.clientsWithLoss += 1 }
        }
        next = index + 1
        record.received += 1
        if !record.latencies.record(now > emitted ? now - emitted : 0) {
            _ = record.latencies.record(record.latencies.highestTrackableValue)
        }
        if next == expected.count {
            done = true
            record.complete += 1
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if stalled {
            record.stalledClosed += 1
        } else if !done {
            record.closedEarly += 1
            record.cutOff += expected.count - next
        }
        connected.fail(LoadError.closed)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// The events of a run that one client must get, in order: every one of the `events` (a stream of
/// one feed), or those of its topics (`sequences`, ascending).
struct ExpectedEvents: Sendable {
    /// The events of the run.
    let events: Int
    /// With topics: the client's events among them.
    let sequences: [Int]?

    /// How many events the client must get.
    var count: Int { sequences?.count ?? events }

    /// The index among the client's events of event `sequence`, when it is one of them at or after
    /// the index `from`; `nil` otherwise.
    func index(of sequence: Int, from: Int) -> Int? {
        guard let sequences else { return sequence >= from ? sequence : nil }
        var low = from, high = sequences.count
        while low < high {
            let middle = (low + high) / 2
            if sequences[middle] < sequence { low = middle + 1 } else { high = middle }
        }
        return low < sequences.count && sequences[low] == sequence ? low : nil
    }
}

/// With `--topics`: which topics each client follows, and which events it must get.
struct ClientTopics: Sendable {
    let topics: Int
    let follow: Int
    /// The topic of each event of the run.
    let topicOfEvent: [Int]

    init(topics: Int, follow: Int, events: Int) {
        self.topics = topics
        self.follow = follow
        topicOfEvent = (0..<events).map { Self.topic(ofEvent: $0, among: topics) }
    }

    /// The topics client `index` follows: `follow` distinct ones, drawn by SplitMix64 from the index.
    func topics(ofClient index: Int) -> [Int] {
        var chosen: [Int] = []
        var draw = UInt64(index) &* 0x1_0000
        while chosen.count < follow {
            let topic = Int(Self.mix(draw) % UInt64(topics))
            draw &+= 1
            if !chosen.contains(topic) { chosen.append(topic) }
        }
        return chosen
    }

    /// The events client `index` must get.
    func expected(ofClient index: Int) -> ExpectedEvents {
        var followed = [Bool](repeating: false, count: topics)
        for topic in topics(ofClient: index) { followed[topic] = true }
        return ExpectedEvents(events: topicOfEvent.count, sequences: topicOfEvent.indices.filter { followed[topicOfEvent[$0]] })
    }

    /// The request path of client `index`: `/events?topic=t3&topic=t17…`, or `<path>t3,t17,…`.
    func uri(ofClient index: Int, path: String?) -> String {
        let names = topics(ofClient: index).map { "t\($0)" }
        if let path { return path + names.joined(separator: ",") }
        return "/events?" + names.map { "topic=\($0)" }.joined(separator: "&")
    }

    /// The topic of event `seq`: as sluice-feed's `BenchTopics.topic(ofEvent:among:)` and
    /// bench/nchan-shim.py's `topic_of_event` draw it.
    static func topic(ofEvent seq: Int, among topics: Int) -> Int {
        Int(mix(UInt64(seq)) % UInt64(topics))
    }

    /// SplitMix64's output for state `x`.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// `method uri` to the server on loopback `port`: its status and body.
func request(_ method: HTTPMethod, _ uri: String, port: Int, on loop: any EventLoop) throws -> (status: UInt, body: String) {
    try send(method, uri, port: port, on: loop).wait()
}

/// The server's GET /stats, its numbers as Doubles (and its strings kept as they are).
struct ServerStats {
    var numbers: [String: Double] = [:]
    var strings: [String: String] = [:]

    subscript(_ name: String) -> Double { numbers[name] ?? 0 }

    static func read(port: Int, on loop: any EventLoop) throws -> ServerStats {
        let (status, body) = try request(.GET, "/stats", port: port, on: loop)
        guard status == 200, let object = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else {
            throw LoadError.status(status, "")
        }
        var stats = ServerStats()
        for (key, value) in object {
            if let number = value as? NSNumber { stats.numbers[key] = number.doubleValue }
            if let text = value as? String { stats.strings[key] = text }
        }
        return stats
    }
}

// MARK: The run

func run(_ options: Options) throws -> (report: [String: Any], summary: String) {
    let fileLimit = raiseFileLimit()
    guard fileLimit > UInt64(options.clients + options.churnConcurrency + 64) else {
        fail("\(options.clients) clients need more file descriptors than the hard limit of \(fileLimit)")
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    defer { try? group.syncShutdownGracefully() }
    let loops = Array(group.makeIterator())
    let records = loops.map { _ in LoopRecord() }
    let control = loops[0]
    let port = options.port

    /// Polls /stats until `satisfied` says yes about its client count.
    func waitForClients(within limit: Double, what: String, _ satisfied: (Int) -> Bool) throws -> ServerStats {
        let start = monotonicNanoseconds()
        while true {
            let stats = try ServerStats.read(port: port, on: control)
            if satisfied(Int(stats["clients"])) { return stats }
            if seconds(since: start) > limit {
                throw LoadError.timedOut("\(what): the server counts \(Int(stats["clients"])) clients")
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }

    // Resident bytes before the clients come. A stream whose client has gone may stay counted until
    // the server next writes to it (an event or a heartbeat): give an earlier run's clients a few
    // seconds to go, then count whatever is left as there before.
    let empty = try (try? waitForClients(within: 5, what: "waiting for an idle server") { $0 == 0 })
        ?? ServerStats.read(port: port, on: control)
    let engine = empty.strings["engine"] ?? "?"
    let staleClients = Int(empty["clients"])
    if staleClients > 0 { note("\(engine): \(staleClients) clients of an earlier run still counted by the server") }

    // Connect: `batch` at a time, each one done when its response head is in.
    let stalledCount = Int((Double(options.clients) * options.stalledPercent / 100).rounded())
    let healthy = options.clients - stalledCount
    // Stalled clients are spread evenly over the N (and so over the loops and the server's accept order).
    func isStalled(_ index: Int) -> Bool {
        stalledCount > 0 && (index * stalledCount) % options.clients < stalledCount
    }
    let clientTopics = options.topics.map { ClientTopics(topics: $0, follow: options.follow, events: options.count) }
    let expectations = (0..<options.clients).map { index in
        clientTopics?.expected(ofClient: index) ?? ExpectedEvents(events: options.count, sequences: nil)
    }
    func uri(ofClient index: Int) -> String {
        clientTopics?.uri(ofClient: index, path: options.topicPath) ?? "/events"
    }
    let connectStart = monotonicNanoseconds()
    var channels: [any Channel] = []
    channels.reserveCapacity(options.clients)
    let batch = 250
    var index = 0
    while index < options.clients {
        var pending: [EventLoopFuture<any Channel>] = []
        for clientIndex in index..<min(index + batch, options.clients) {
            let loopIndex = clientIndex % loops.count
            let loop = loops[loopIndex]
            let record = records[loopIndex]
            let stalled = isStalled(clientIndex)
            let connected = loop.makePromise(of: Void.self)
            let channel = openStream(on: loop, port: port, timeout: .seconds(10),
                                     receiveBuffer: stalled ? options.stalledReceiveBuffer : nil,
                                     stalled: stalled, record: record, expected: expectations[clientIndex],
                                     uri: uri(ofClient: clientIndex), connected: connected)
            pending.append(channel.flatMap { channel in connected.futureResult.map { channel } })
        }
        for future in pending { channels.append(try future.wait()) }
        index += batch
    }
    let connectSeconds = seconds(since: connectStart)
    // A server that counts a client once per topic it follows (sluice-feed --topics) says so.
    let perClient = clientTopics != nil && empty["clientsPerTopic"] > 0 ? options.follow : 1
    _ = try waitForClients(within: 30, what: "waiting for the server to count every client") {
        $0 >= options.clients * perClient + staleClients
    }
    Thread.sleep(forTimeInterval: 1)
    let before = try ServerStats.read(port: port, on: control)
    note("\(engine): \(options.clients) clients (\(stalledCount) stalled) connected in \(String(format: "%.1f", connectSeconds)) s; server resident \(Int(empty["rssBytes"]) / 1_048_576) MiB empty, \(Int(before["rssBytes"]) / 1_048_576) MiB with them")

    // The run.
    let runStart = monotonicNanoseconds()
    for (loop, record) in zip(loops, records) { try loop.submit { record.runStart = runStart }.wait() }
    let (status, _) = try request(.POST, "/bench/start?count=\(options.count)&rate=\(options.rate)&size=\(options.size)", port: port, on: control)
    guard status == 202 else { throw LoadError.status(status, "") }

    func totals() throws -> LoopRecord {
        let total = LoopRecord()
        for (loop, record) in zip(loops, records) {
            try loop.submit { total.add(record) }.wait()
        }
        return total
    }
    let scheduled = Double(options.count) / Double(options.rate)
    var total = try totals()
    var lastProgress = monotonicNanoseconds()
    var lastReceived = 0
    var published = false
    var lastStatsRead = monotonicNanoseconds()
    var timedOut = false
    while total.complete + total.closedEarly < healthy {
        Thread.sleep(forTimeInterval: 0.05)
        total = try totals()
        if total.received != lastReceived {
            lastReceived = total.received
            lastProgress = monotonicNanoseconds()
        }
        let elapsed = seconds(since: runStart)
        if !published && elapsed >= scheduled && seconds(since: lastStatsRead) >= 0.5 {
            lastStatsRead = monotonicNanoseconds()
            published = try ServerStats.read(port: port, on: control)["published"] - before["published"] >= Double(options.count)
        }
        if published && seconds(since: lastProgress) >= 3 { break }
        if elapsed >= scheduled + options.grace {
            timedOut = true
            break
        }
    }
    let runSeconds = seconds(since: runStart)
    let after = try ServerStats.read(port: port, on: control)
    total = try totals()

    // Churn, with the N clients still connected: open a stream, take its response head, close it.
    var churnCycles = 0
    var churnFailures = 0
    var churnSeconds = 0.0
    if options.churnSeconds > 0 {
        final class Worker: @unchecked Sendable {   // touched on its loop only
            var cycles = 0
            var failures = 0
        }
        let churnStart = monotonicNanoseconds()
        let churnEnd = churnStart + UInt64(options.churnSeconds * 1e9)
        let workers = (0..<options.churnConcurrency).map { _ in Worker() }
        var finished: [EventLoopFuture<Void>] = []
        for (number, worker) in workers.enumerated() {
            let loop = loops[number % loops.count]
            let done = loop.makePromise(of: Void.self)
            let expected = ExpectedEvents(events: options.count, sequences: nil)
            let churnURI = uri(ofClient: number)
            @Sendable func cycle() {
                guard monotonicNanoseconds() < churnEnd else { return done.succeed() }
                let connected = loop.makePromise(of: Void.self)
                let record = LoopRecord()
                let channel = openStream(on: loop, port: port, timeout: .seconds(5), receiveBuffer: nil,
                                         stalled: true, record: record, expected: expected, uri: churnURI, connected: connected)
                channel.flatMap { channel in connected.futureResult.flatMap { channel.close() } }
                    .whenComplete { result in
                        switch result {
                        case .success: worker.cycles += 1
                        case .failure: worker.failures += 1
                        }
                        cycle()
                    }
            }
            loop.execute { cycle() }
            finished.append(done.futureResult)
        }
        for future in finished { try future.wait() }
        churnSeconds = seconds(since: churnStart)
        for (number, worker) in workers.enumerated() {
            let (cycles, failures) = try loops[number % loops.count].submit { (worker.cycles, worker.failures) }.wait()
            churnCycles += cycles
            churnFailures += failures
        }
    }

    // Close everything, abortively (no TIME_WAIT left to the next run), and wait for the server to see it.
    let closing = channels.map { channel in
        let abort = (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            ?? channel.eventLoop.makeSucceededVoidFuture()
        return abort.flatMap { channel.close() }
    }
    for future in closing { _ = try? future.wait() }
    // What the server still counts a few seconds later (streams whose client left may stay counted
    // until the server next writes to them).
    let left = (try? waitForClients(within: 5, what: "waiting for the clients to leave") { $0 <= staleClients })
        ?? (try? ServerStats.read(port: port, on: control))
    let clientsLeft = left.map { Int($0["clients"]) } ?? -1

    // Figures.
    let expected = expectations.indices.reduce(0) { $0 + (isStalled($1) ? 0 : expectations[$1].count) }
    // Lost: never delivered — skipped (a later event came first) or cut off (the stream ended
    // before it). Queued: not received by the end of the run on a stream still open (an engine
    // that was still working through its backlog), counted apart.
    let lost = total.skipped + total.cutOff
    let queued = expected - total.received - lost
    let deliveries = total.received
    let cpu = after["cpuSeconds"] - before["cpuSeconds"]
    let cpuPer1000 = deliveries > 0 ? cpu / Double(deliveries) * 1_000 : 0
    let residentPerClient = (before["rssBytes"] - empty["rssBytes"]) / Double(options.clients)
    func microseconds(_ percentile: Double) -> Double {
        total.latencies.totalCount > 0 ? Double(total.latencies.valueAtPercentile(percentile)) / 1_000 : 0
    }
    let server: [String: Any] = [
        "published": after["published"] - before["published"],
        "delivered": after["delivered"] - before["delivered"],
        "dropped": after["dropped"] - before["dropped"],
        "disconnected": after["disconnected"] - before["disconnected"],
        "instance": after.strings["instance"] ?? "",
    ]
    let report: [String: Any] = [
        "engine": engine,
        "clients": options.clients,
        "healthy": healthy,
        "stalled": stalledCount,
        "count": options.count,
        "rate": options.rate,
        "topics": options.topics ?? 1,
        "follow": options.topics == nil ? 1 : options.follow,
        "connect_seconds": connectSeconds,
        "run_seconds": runSeconds,
        "timed_out": timedOut,
        "expected": expected,
        "received": deliveries,
        "lost": lost,
        "queued": queued,
        "clients_with_gaps": total.clientsWithLoss,
        "clients_incomplete": healthy - total.complete,
        "out_of_order": total.outOfOrder,
        "clients_out_of_order": total.clientsOutOfOrder,
        "closed_early": total.closedEarly,
        "p50_us": microseconds(50),
        "p99_us": microseconds(99),
        "p999_us": microseconds(99.9),
        "max_us": Double(total.latencies.max) / 1_000,
        "cpu_seconds": cpu,
        "cpu_s_per_1000": cpuPer1000,
        "rss_empty_bytes": empty["rssBytes"],
        "rss_idle_bytes": before["rssBytes"],
        "rss_per_idle_client": residentPerClient,
        "churn_seconds": churnSeconds,
        "churn_cycles": churnCycles,
        "churn_failures": churnFailures,
        "churn_per_second": churnSeconds > 0 ? Double(churnCycles) / churnSeconds : 0,
        "stalled_dropped": after["dropped"] - before["dropped"],
        "stalled_disconnected": after["disconnected"] - before["disconnected"],
        "clients_left": clientsLeft,
        "server": server,
    ]
    let summary = """
        \(engine), \(options.clients) clients (\(stalledCount) stalled), \(options.count) events at \(options.rate)/s: \
        \(String(format: "%.1f", runSeconds)) s\(timedOut ? " (timed out)" : "")
          healthy clients: \(deliveries) of \(expected) events received, \(lost) lost, \(queued) still queued (\(healthy - total.complete) clients incomplete), \
        \(total.outOfOrder) out of order
          latency p50 \(String(format: "%.0f", microseconds(50))) µs, p99 \(String(format: "%.0f", microseconds(99))) µs, \
        p99.9 \(String(format: "%.0f", microseconds(99.9))) µs, max \(String(format: "%.0f", Double(total.latencies.max) / 1_000)) µs
          server CPU \(String(format: "%.2f", cpu)) s: \(String(format: "%.4f", cpuPer1000)) s per 1,000 deliveries; \
        \(String(format: "%.0f", residentPerClient)) resident bytes per idle client
          server counts: dropped \(Int(after["dropped"] - before["dropped"])), disconnected \(Int(after["disconnected"] - before["disconnected"]))\
        \(options.churnSeconds > 0 ? String(format: "; churn %.0f connect+disconnect pairs/s (%d in %.1f s, %d failed)", Double(churnCycles) / max(churnSeconds, 0.001), churnCycles, churnSeconds, churnFailures) : "")
        """
    return (report, summary)
}

let options = Options(CommandLine.arguments)
// A run that hangs still ends: at the deadline the process says so and exits 3.
let deadline = options.deadline
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: deadline)
    fail("deadline of \(Int(deadline)) s passed", status: 3)
}
do {
    let (report, summary) = try run(options)
    let json = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
    print(String(decoding: json, as: UTF8.self))
    note(summary)
} catch {
    fail("\(error)")
}
