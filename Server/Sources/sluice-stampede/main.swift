// The stampede benchmark's load client (bench/stampede): one process of its own that plays N
// browsers' EventSources against a fleet of `sluice-feed --postgres` instances on loopback (raw NIO,
// HTTP/1.1), posts events at a fixed rate to another instance, and counts what every client got.
//
//   sluice-stampede --ports A,B,C [--clients 10000] [--topic stampede] [--rate 2] [--mode kill|rolling]
//                   [--kill-pid PID] [--warmup 10] [--after-kill 15] [--tail 5] [--duration 60]
//                   [--ready-file PATH] [--stop-file PATH] [--deadline 300] [--connect-batch 500]
//
// The run:
// 1. Every port must answer `GET /ready` 200. One event is appended (`POST /events/<topic>` to B):
//    its id gives the topic's epoch, and the run's events are those after it.
// 2. N clients connect to A (`GET /events/<topic>`, no `Last-Event-ID`, as a page's first
//    EventSource), `--connect-batch` at a time, each done once its stream began (its `retry:` came:
//    the server has joined it to the feed); then A's `sluice_feed_clients{feed="<topic>"}`
//    (`GET /metrics`) must count them.
// 3. The appender: every 1/rate s it posts the next sequence number (the body) to B with an
//    `Idempotency-Key`; an attempt that fails (refused, 503, no answer in 10 s) is tried again on the
//    next instance (B → C → A …) with the same key after 100 ms. Each append's latency is from its
//    first attempt to the 202 whose `{"id":"<epoch>-<position>"}` it records.
// 4. Each client behaves as a browser's EventSource: it keeps the last `id:` it got and the server's
//    `retry:` (3000 ms until one comes); when its stream ends or an attempt fails (refused, not 200,
//    timed out), it waits its retry delay and connects to another instance with `Last-Event-ID`, as
//    behind a load balancer: client i goes from the k-th instance to the (k + 1 + i mod (n − 1))-th
//    (from A, even clients to B, odd ones to C), so an instance's crowd is split over the others.
//    It counts `event: reset` (a broken promise), `event: shutdown`, `event: dropped`; comments
//    (heartbeats) are skipped.
// 5. `--mode kill`: once `--warmup` appends are done, A (`--kill-pid`) is sent SIGKILL. Appends go
//    on until `--after-kill` s after the kill and `--tail` s after the last client is back on B or C.
//    `--mode rolling`: once `--warmup` appends are done, `--ready-file` is created (the script then
//    restarts the instances one at a time); appends go on until `--stop-file` exists (or
//    `--duration` s have passed without one), then `--tail` s more and until every client has a
//    stream open.
// 6. Then the appender stops, and the run ends when every client holds every event appended (or at
//    the deadline).
//
// Figures (milliseconds unless named otherwise):
// - lost: events appended (their append answered 202) that a client never got, summed over clients;
//   duplicated: events a client got more than once; resets: `event: reset` received;
// - replay (each reconnect after the first stream): from the moment the client starts connecting
//   (TCP connect begins) to the moment it holds every event whose append had completed when it began;
// - kill → back: from the kill to the client's first response head (200) after it; kill → caught up:
//   from the kill to the end of that reconnect's replay (every event appended before the client
//   began reconnecting held);
// - gap: per client, the longest time from a stream's end to the next stream's response head;
//   waited a full retry: clients that, after a stream ended, waited the `retry:` that stream began
//   with (not a shorter one the server sent at its end);
// - appends' latency before the kill and in the `--after-kill` s after it (rolling: before the
//   restarts, during them, after them).
//
// Prints one line of JSON on standard output and a human summary on standard error. Exits 0 when the
// run completed with nothing lost, duplicated or reset, 1 when something was, 2 when the run could
// not be set up, 3 at the deadline (after printing what it had).
import Foundation
import LoadClient
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

// MARK: Options

enum Mode: String, Sendable {
    case kill
    case rolling
}

struct Options: Sendable {
    var ports: [Int] = []
    var clients = 10_000
    var topic = "stampede"
    var rate = 2.0
    var mode = Mode.kill
    var killPID: Int32?
    /// Appends completed before the kill (or before the ready file).
    var warmup = 10
    /// Kill mode: appends go on at least this long after the kill.
    var afterKill = 15.0
    /// Appends go on this long after the last client is back (kill) or the stop file came (rolling).
    var tail = 5.0
    /// Rolling mode without `--stop-file`: how long appends go on after the warm-up.
    var duration = 60.0
    var readyFile: String?
    var stopFile: String?
    var deadline = 300.0
    var connectBatch = 500
    /// A client's reconnection delay before the server sent a `retry:` (browsers: about 3 s).
    var defaultRetry = 3_000

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
            case "--ports":
                let text = value()
                ports = text.split(separator: ",").map { Int($0) ?? 0 }
                guard ports.allSatisfy({ $0 > 0 && $0 < 65_536 }) else { fail("--ports: not ports: \(text)") }
            case "--clients": clients = number(Int.self)
            case "--topic": topic = value()
            case "--rate": rate = number(Double.self)
            case "--mode":
                let text = value()
                guard let chosen = Mode(rawValue: text) else { fail("--mode: kill or rolling, not \(text)") }
                mode = chosen
            case "--kill-pid": killPID = number(Int32.self)
            case "--warmup": warmup = number(Int.self)
            case "--after-kill": afterKill = number(Double.self)
            case "--tail": tail = number(Double.self)
            case "--duration": duration = number(Double.self)
            case "--ready-file": readyFile = value()
            case "--stop-file": stopFile = value()
            case "--deadline": deadline = number(Double.self)
            case "--connect-batch": connectBatch = number(Int.self)
            case "--default-retry": defaultRetry = number(Int.self)
            case "--help", "-h":
                FileHandle.standardError.write(Data("""
                    usage: sluice-stampede --ports A,B,C [--clients N] [--topic T] [--rate R] [--mode kill|rolling]
                                           [--kill-pid PID] [--warmup N] [--after-kill S] [--tail S] [--duration S]
                                           [--ready-file PATH] [--stop-file PATH] [--deadline S] [--connect-batch N]
                                           [--default-retry MS]

                    """.utf8))
                exit(0)
            default: fail("unknown argument \(arguments[index])")
            }
            index += 1
        }
        guard ports.count >= 2 else { fail("--ports needs at least two instances (A, where the clients are, and B)") }
        guard clients > 0, rate > 0, rate.isFinite, warmup >= 1, connectBatch > 0, defaultRetry >= 0 else {
            fail("--clients, --rate, --warmup, --connect-batch must be positive")
        }
        guard !topic.isEmpty, topic.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7f && $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") }) else {
            fail("--topic: printable ASCII without / or ?")
        }
        if mode == .kill, killPID == nil { fail("--mode kill needs --kill-pid (instance A's process)") }
    }
}

func fail(_ message: String, status: Int32 = 2) -> Never {
    FileHandle.standardError.write(Data("sluice-stampede: \(message)\n".utf8))
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
    Double(monotonicNanoseconds() &- start) / 1e9
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

/// This process's CPU time (user + system), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

// MARK: What every client shares

/// The run's constants and the few values the appender and the main thread publish to the clients.
final class Shared: Sendable {
    let ports: [Int]
    let topic: String
    /// The topic's epoch (from the priming append's id): an event of another epoch is counted apart.
    let epoch: String
    /// The position of the run's first event: the one after the priming append.
    let base: Int
    let defaultRetry: Int
    /// The highest position whose append has been answered (every position up to it is committed).
    let completedMax: Atomic<Int>
    /// When A was killed (monotonic ns; 0: not yet).
    let killedAt = Atomic<UInt64>(0)
    /// Set once the run is over: no client reconnects any more.
    let stopping = Atomic<Bool>(false)

    init(ports: [Int], topic: String, epoch: String, base: Int, defaultRetry: Int) {
        self.ports = ports
        self.topic = topic
        self.epoch = epoch
        self.base = base
        self.defaultRetry = defaultRetry
        completedMax = Atomic(base - 1)
    }
}

/// An event id `<epoch>-<position>`, split at its last `-`.
func parseID(_ id: Substring) -> (epoch: Substring, position: Int)? {
    guard let dash = id.lastIndex(of: "-"), let position = Int(id[id.index(after: dash)...]) else { return nil }
    return (id[..<dash], position)
}

// MARK: A browser's EventSource

/// One client, as a browser's `EventSource` behaves: one stream at a time, reconnecting to the next
/// instance after its retry delay with `Last-Event-ID`. Touched on its event loop only.
final class Browser: @unchecked Sendable {
    let index: Int
    let loop: any EventLoop
    let shared: Shared

    // The connection.
    private var generation = 0
    /// An attempt or a stream is under way (`generation`'s); false while waiting to reconnect.
    private var active = false
    /// The current connection's response head was 200 and its stream has not ended.
    private(set) var open = false
    private var channel: (any Channel)?
    private(set) var instance = 0
    private var attemptStart: UInt64 = 0
    private var attemptTarget = 0
    private var streamsBegun = 0
    /// The first stream's start: resolved once it began (`retry:` or anything else of its body).
    private var joined: EventLoopPromise<Void>?

    // The EventSource's state.
    private var reconnectionTime: Int
    private var lastEventID: String?
    private var pendingID: String?
    private var blockType = ""
    private var blockHasData = false
    private var blockData = ""
    /// The first `retry:` of the current stream.
    private var streamFirstRetry: Int?

    // What it holds: a count per position from `shared.base`.
    private var held: [UInt8] = []
    /// Positions base ..< base + contiguous are all held.
    private(set) var contiguous = 0

    // Figures.
    private(set) var attempts = 0
    private(set) var failedAttempts = 0
    private(set) var refusedByStatus = 0
    private(set) var duplicates = 0
    private(set) var resets = 0
    private(set) var shutdowns = 0
    private(set) var droppedNotices = 0
    private(set) var foreignEpoch = 0
    private(set) var received = 0
    private(set) var firstRetry: Int?
    private(set) var replays: [UInt64] = []
    private var pendingReplay: (start: UInt64, target: Int, afterKill: Bool)?
    private(set) var backAfterKill: UInt64?
    private(set) var caughtUpAfterKill: UInt64?
    private(set) var killReconnectStart: UInt64?
    private var streamEndedAt: UInt64?
    private(set) var longestGap: UInt64 = 0
    private(set) var gaps = 0
    private(set) var fullRetryWaits = 0
    private(set) var streamsEnded = 0

    init(index: Int, loop: any EventLoop, shared: Shared) {
        self.index = index
        self.loop = loop
        self.shared = shared
        reconnectionTime = shared.defaultRetry
    }

    /// The first stream, on A; `joined` is resolved once it began, or failed if it did not (then
    /// the client does not reconnect by itself: the caller tries again).
    func start(joined: EventLoopPromise<Void>) {
        self.joined = joined
        instance = 0
        connect()
    }

    private func connect() {
        guard !shared.stopping.load(ordering: .relaxed) else { return }
        generation += 1
        let generation = generation
        active = true
        open = false
        attempts += 1
        attemptStart = monotonicNanoseconds()
        attemptTarget = shared.completedMax.load(ordering: .acquiring)
        pendingID = lastEventID
        blockType = ""
        blockHasData = false
        blockData = ""
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/events/\(shared.topic)")
        head.headers.add(name: "Host", value: "127.0.0.1")
        head.headers.add(name: "Accept", value: "text/event-stream")
        head.headers.add(name: "Cache-Control", value: "no-cache")
        if let lastEventID { head.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let requestHead = head
        ClientBootstrap(group: loop)
            .connectTimeout(.seconds(10))
            .channelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(EventStreamHandler(browser: self, generation: generation, head: requestHead))
                }
            }
            .connect(host: "127.0.0.1", port: shared.ports[instance])
            .whenComplete { [self] result in
                switch result {
                case .success(let channel):
                    if generation == self.generation && active { self.channel = channel } else { channel.close(promise: nil) }
                case .failure:
                    ended(generation)
                }
            }
    }

    /// The response head of connection `generation`.
    func responded(_ generation: Int, status: UInt) {
        guard generation == self.generation, active else { return }
        guard status == 200 else {
            refusedByStatus += 1
            return   // the handler closes the connection: ended
        }
        let now = monotonicNanoseconds()
        open = true
        streamsBegun += 1
        streamFirstRetry = nil
        if let ended = streamEndedAt {
            longestGap = max(longestGap, now &- ended)
            gaps += 1
            streamEndedAt = nil
        }
        let killedAt = shared.killedAt.load(ordering: .acquiring)
        let afterKill = killedAt != 0 && attemptStart >= killedAt && backAfterKill == nil
        if afterKill {
            backAfterKill = now
            killReconnectStart = attemptStart
        }
        if streamsBegun > 1 {
            pendingReplay = (attemptStart, attemptTarget, afterKill)
            checkReplay(now)
        }
    }

    /// Connection `generation` failed or its stream ended: after the retry delay, the next instance.
    func ended(_ generation: Int) {
        guard generation == self.generation, active else { return }
        active = false
        let wasOpen = open
        open = false
        channel = nil
        pendingReplay = nil
        if wasOpen {
            streamsEnded += 1
            streamEndedAt = monotonicNanoseconds()
            if let first = streamFirstRetry, reconnectionTime >= first { fullRetryWaits += 1 }
        } else {
            failedAttempts += 1
        }
        if let joined {
            self.joined = nil
            joined.fail(LoadError.closed)
            return
        }
        guard !shared.stopping.load(ordering: .relaxed) else { return }
        // As a load balancer would: the crowd of an instance split over the others (client i goes
        // from instance k to k + 1 + i mod (n − 1)), never back to the one it left.
        let count = shared.ports.count
        instance = (instance + 1 + index % max(1, count - 1)) % count
        loop.scheduleTask(in: .milliseconds(Int64(reconnectionTime))) { [self] in connect() }
    }

    /// One line of the stream (without its line end) of connection `generation`.
    func line(_ generation: Int, _ line: Substring) {
        guard generation == self.generation, open else { return }
        if line.isEmpty {
            dispatch()
            return
        }
        if let joined {
            self.joined = nil
            joined.succeed()
        }
        if line.first == ":" { return }   // a comment: a heartbeat
        let name: Substring
        var value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
            if value.first == " " { value = value.dropFirst() }
        } else {
            name = line
            value = ""
        }
        switch name {
        case "event": blockType = String(value)
        case "data":
            blockData += blockHasData ? "\n" + value : String(value)
            blockHasData = true
        case "id": if !value.contains("\0") { pendingID = String(value) }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let ms = Int(value) {
                reconnectionTime = ms
                if streamFirstRetry == nil { streamFirstRetry = ms }
                if firstRetry == nil { firstRetry = ms }
            }
        default: break
        }
    }

    private func dispatch() {
        lastEventID = pendingID
        defer {
            blockType = ""
            blockHasData = false
            blockData = ""
        }
        guard blockHasData else { return }
        switch blockType {
        case "", "message":
            guard let id = pendingID.map({ Substring($0) }), let (epoch, position) = parseID(id) else { return }
            guard epoch == shared.epoch else {
                foreignEpoch += 1
                return
            }
            hold(position)
        case "reset": resets += 1
        case "shutdown": shutdowns += 1
        case "dropped": droppedNotices += 1
        default: break
        }
    }

    private func hold(_ position: Int) {
        guard position >= shared.base else { return }   // the priming event, or before it
        received += 1
        let offset = position - shared.base
        if offset >= held.count { held.append(contentsOf: repeatElement(0, count: offset - held.count + 1)) }
        if held[offset] != 0 {
            duplicates += 1
            if held[offset] < 255 { held[offset] += 1 }
        } else {
            held[offset] = 1
        }
        while contiguous < held.count && held[contiguous] != 0 { contiguous += 1 }
        checkReplay(monotonicNanoseconds())
    }

    private func checkReplay(_ now: UInt64) {
        guard let replay = pendingReplay, shared.base + contiguous - 1 >= replay.target else { return }
        pendingReplay = nil
        replays.append(now &- replay.start)
        if replay.afterKill { caughtUpAfterKill = now }
    }

    /// Positions appended (`appended[offset]`) that it does not hold.
    func lost(_ appended: [Bool]) -> Int {
        var lost = 0
        for offset in appended.indices where appended[offset] && (offset >= held.count || held[offset] == 0) { lost += 1 }
        return lost
    }

    /// Events it holds that no append of the run was answered with.
    func unexpected(_ appended: [Bool]) -> Int {
        var count = 0
        for offset in held.indices where held[offset] != 0 && (offset >= appended.count || !appended[offset]) { count += 1 }
        return count
    }

    /// Closes its connection abortively (no TIME_WAIT left behind); it does not reconnect (the run
    /// is stopping).
    func close() {
        guard let channel else { return }
        self.channel = nil
        let abort = (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0))
            ?? channel.eventLoop.makeSucceededVoidFuture()
        abort.whenComplete { _ in channel.close(promise: nil) }
    }
}

/// One connection of a ``Browser``: sends its request, splits the body into lines for it.
final class EventStreamHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart

    let browser: Browser
    let generation: Int
    let head: HTTPRequestHead
    private var line: [UInt8] = []

    init(browser: Browser, generation: Int, head: HTTPRequestHead) {
        self.browser = browser
        self.generation = generation
        self.head = head
    }

    func channelActive(context: ChannelHandlerContext) {
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            browser.responded(generation, status: head.status.code)
            if head.status != .ok { context.close(promise: nil) }
        case .body(let buffer):
            buffer.withUnsafeReadableBytes { bytes in
                for byte in bytes {
                    if byte == UInt8(ascii: "\n") {
                        if line.last == UInt8(ascii: "\r") { line.removeLast() }
                        browser.line(generation, Substring(decoding: line, as: UTF8.self))
                        line.removeAll(keepingCapacity: true)
                    } else {
                        line.append(byte)
                    }
                }
            }
        case .end:
            browser.ended(generation)
            context.close(promise: nil)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        browser.ended(generation)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}

/// The id in a `202 {"id":"<epoch>-<position>"}`.
func answeredID(_ body: String) -> (epoch: String, position: Int)? {
    guard let data = body.data(using: .utf8),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
          let id = object["id"] as? String, let (epoch, position) = parseID(Substring(id)) else { return nil }
    return (String(epoch), position)
}

/// An instance's `GET /stats` numbers.
func stats(port: Int, on loop: any EventLoop) -> [String: Double]? {
    guard let (status, body) = try? send(.GET, "/stats", port: port, timeout: .seconds(5), on: loop).wait(), status == 200,
          let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
    return object.compactMapValues { ($0 as? NSNumber)?.doubleValue }
}

/// The clients an instance counts on `topic`: its `sluice_feed_clients{feed="<topic>"}` metric when
/// its topics have metrics of their own, else `sluice_feed_clients{feed="feed"}`, every topic's
/// clients (sluice-feed's topics share their metrics).
func topicClients(port: Int, topic: String, on loop: any EventLoop) -> Int? {
    guard let (status, body) = try? send(.GET, "/metrics", port: port, timeout: .seconds(5), on: loop).wait(), status == 200 else {
        return nil
    }
    var shared: Int?
    for line in body.split(separator: "\n") where line.hasPrefix("sluice_feed_clients{") {
        guard let value = line.split(separator: " ").last.flatMap({ Double($0) }) else { continue }
        if line.contains("feed=\"\(topic)\"") { return Int(value) }
        if line.contains("feed=\"feed\"") { shared = Int(value) }
    }
    return shared
}

// MARK: The appender

/// Posts the next sequence number every 1/rate s to B, each tried again on the next instance (same
/// `Idempotency-Key`) until answered 202. Touched on its loop only.
final class Appender: @unchecked Sendable {
    struct Record: Sendable {
        let sequence: Int
        let position: Int
        let started: UInt64
        let completed: UInt64
        let attempts: Int
    }

    let loop: any EventLoop
    let shared: Shared
    let key: String
    let interval: TimeAmount
    private var task: RepeatedTask?
    private var next = 1
    private(set) var records: [Record] = []
    private(set) var inFlight = 0
    private(set) var failedAttempts = 0
    private(set) var failures: [String: Int] = [:]
    private(set) var foreignEpoch = 0

    init(loop: any EventLoop, shared: Shared, key: String, rate: Double) {
        self.loop = loop
        self.shared = shared
        self.key = key
        interval = .nanoseconds(Int64(1e9 / rate))
    }

    func start() {
        task = loop.scheduleRepeatedTask(initialDelay: .zero, delay: interval) { [self] _ in append() }
    }

    func stop() {
        task?.cancel()
        task = nil
    }

    private func append() {
        let sequence = next
        next += 1
        inFlight += 1
        attempt(sequence, instance: 1 % shared.ports.count, started: monotonicNanoseconds(), attempts: 1)
    }

    private func attempt(_ sequence: Int, instance: Int, started: UInt64, attempts: Int) {
        send(.POST, "/events/\(shared.topic)", port: shared.ports[instance], body: "\(sequence)",
             headers: [("Content-Type", "text/plain; charset=utf-8"), ("Idempotency-Key", "\(key)-\(sequence)")], on: loop)
            .whenComplete { [self] result in
                if case .success(let answer) = result, answer.status == 202, let id = answeredID(answer.body) {
                    if id.epoch != shared.epoch { foreignEpoch += 1 }
                    records.append(Record(sequence: sequence, position: id.position, started: started,
                                          completed: monotonicNanoseconds(), attempts: attempts))
                    if id.position > shared.completedMax.load(ordering: .relaxed) {
                        shared.completedMax.store(id.position, ordering: .releasing)
                    }
                    inFlight -= 1
                    return
                }
                failedAttempts += 1
                let reason = switch result {
                case .success(let answer): "\(answer.status)"
                case .failure(LoadError.timedOut): "no answer in 10 s"
                case .failure(LoadError.closed): "closed"
                case .failure(is NIOConnectionError), .failure(ChannelError.connectTimeout): "connect failed"
                case .failure(let error): "\(type(of: error))"
                }
                failures[reason, default: 0] += 1
                loop.scheduleTask(in: .milliseconds(100)) { [self] in
                    attempt(sequence, instance: (instance + 1) % shared.ports.count, started: started, attempts: attempts + 1)
                }
            }
    }
}

// MARK: Figures

/// The value at `percentile` of `values` (nearest rank), 0 when there are none.
func percentile(_ sorted: [Double], _ percentile: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    let rank = Int((percentile / 100 * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}

/// p50, p99 and max of `values` (and how many), as JSON.
func distribution(_ values: [Double]) -> [String: Any] {
    let sorted = values.sorted()
    return ["n": sorted.count, "p50": percentile(sorted, 50), "p99": percentile(sorted, 99), "max": sorted.last ?? 0]
}

func describe(_ values: [Double], unit: String = "ms") -> String {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return "none" }
    return String(format: "p50 %.0f, p99 %.0f, max %.0f %@ (%d)", percentile(sorted, 50), percentile(sorted, 99), sorted.last!, unit, sorted.count)
}

/// What one client measured, gathered on its loop at the end.
struct ClientFigures: Sendable {
    var open: Bool
    var contiguous: Int
    var received: Int
    var lost: Int
    var unexpected: Int
    var duplicates: Int
    var resets: Int
    var shutdowns: Int
    var droppedNotices: Int
    var foreignEpoch: Int
    var attempts: Int
    var failedAttempts: Int
    var refusedByStatus: Int
    var streamsEnded: Int
    var firstRetry: Int?
    var replays: [UInt64]
    var backAfterKill: UInt64?
    var caughtUpAfterKill: UInt64?
    var killReconnectStart: UInt64?
    var longestGap: UInt64
    var gaps: Int
    var fullRetryWaits: Int
}

// MARK: The run

struct Outcome {
    var report: [String: Any]
    var summary: String
    var status: Int32
}

func run(_ options: Options) throws -> Outcome {
    let fileLimit = raiseFileLimit()
    guard fileLimit > UInt64(options.clients + 256) else {
        throw LoadError.setup("\(options.clients) clients need more file descriptors than the limit of \(fileLimit)")
    }
    let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    let appenderGroup = MultiThreadedEventLoopGroup(numberOfThreads: 1)
    defer {
        try? group.syncShutdownGracefully()
        try? appenderGroup.syncShutdownGracefully()
    }
    let loops = Array(group.makeIterator())
    let control = loops[0]
    let appenderLoop = appenderGroup.next()
    let ports = options.ports
    let names = ports.indices.map { String(UnicodeScalar(UInt8(ascii: "A") + UInt8($0 % 26))) }
    let started = monotonicNanoseconds()
    func overDeadline() -> Bool { seconds(since: started) > options.deadline }

    // Every instance ready.
    for (name, port) in zip(names, ports) {
        var ready = false
        let since = monotonicNanoseconds()
        while !ready && seconds(since: since) < 60 {
            ready = (try? send(.GET, "/ready", port: port, timeout: .seconds(5), on: control).wait())?.status == 200
            if !ready { Thread.sleep(forTimeInterval: 0.2) }
        }
        guard ready else { throw LoadError.setup("instance \(name) (port \(port)) is not ready") }
    }

    // The priming append: the topic's epoch, and the position after which the run's events come.
    let runKey = "stampede-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let priming = try send(.POST, "/events/\(options.topic)", port: ports[1], body: "priming",
                           headers: [("Idempotency-Key", "\(runKey)-0")], on: control).wait()
    guard priming.status == 202, let primed = answeredID(priming.body) else {
        throw LoadError.setup("the priming append to B: \(priming.status) \(priming.body)")
    }
    let shared = Shared(ports: ports, topic: options.topic, epoch: primed.epoch, base: primed.position + 1,
                        defaultRetry: options.defaultRetry)
    let clientsBefore = topicClients(port: ports[0], topic: options.topic, on: control) ?? 0

    // The clients, on A.
    let browsers = (0..<options.clients).map { Browser(index: $0, loop: loops[$0 % loops.count], shared: shared) }
    let connectStart = monotonicNanoseconds()
    var index = 0
    while index < browsers.count {
        var batch = Array(browsers[index..<min(index + options.connectBatch, browsers.count)])
        for round in 1...3 where !batch.isEmpty {
            let joined = batch.map { browser in
                let promise = browser.loop.makePromise(of: Void.self)
                browser.loop.execute { browser.start(joined: promise) }
                return (browser, promise.futureResult)
            }
            var failed: [Browser] = []
            var lastError: (any Error)?
            for (browser, future) in joined {
                do { try future.wait() } catch {
                    failed.append(browser)
                    lastError = error
                }
            }
            batch = failed
            if !batch.isEmpty {
                if round == 3 { throw LoadError.setup("\(batch.count) clients could not begin their stream on A: \(lastError.map { "\($0)" } ?? "")") }
                Thread.sleep(forTimeInterval: 1)
            }
        }
        index += options.connectBatch
        if overDeadline() { throw LoadError.timedOut("connecting the clients") }
    }
    let connectSeconds = seconds(since: connectStart)
    var counted = 0
    let countStart = monotonicNanoseconds()
    while counted < clientsBefore + options.clients {
        counted = topicClients(port: ports[0], topic: options.topic, on: control) ?? -1
        if counted >= clientsBefore + options.clients { break }
        if seconds(since: countStart) > 60 {
            throw LoadError.setup("A counts \(counted) clients on \(options.topic), not \(clientsBefore + options.clients)")
        }
        Thread.sleep(forTimeInterval: 0.1)
    }
    note("\(options.clients) clients on A (port \(ports[0])) in \(String(format: "%.1f", connectSeconds)) s; A counts \(counted)")
    var statsBefore: [String: [String: Double]] = [:]
    for (name, port) in zip(names, ports) { statsBefore[name] = stats(port: port, on: control) }
    let loadCPUBefore = processCPUSeconds()

    func everyClient<T: Sendable>(_ body: @escaping @Sendable (Browser) -> T) throws -> [T] {
        let futures = loops.indices.map { loopIndex in
            loops[loopIndex].submit {
                stride(from: loopIndex, to: browsers.count, by: loops.count).map { body(browsers[$0]) }
            }
        }
        return try futures.flatMap { try $0.wait() }
    }
    struct Progress: Sendable {
        var open = 0
        var backAfterKill = 0
        var holding = 0
    }
    func progress(holdingThrough position: Int) throws -> Progress {
        let base = shared.base
        return try everyClient { browser in (browser.open, browser.backAfterKill != nil, base + browser.contiguous - 1 >= position) }
            .reduce(into: Progress()) { total, client in
                if client.0 { total.open += 1 }
                if client.1 { total.backAfterKill += 1 }
                if client.2 { total.holding += 1 }
            }
    }

    // The appender, and the event the run turns on.
    let appender = Appender(loop: appenderLoop, shared: shared, key: runKey, rate: options.rate)
    let runStart = monotonicNanoseconds()
    try appenderLoop.submit { appender.start() }.wait()
    func appended() throws -> Int { try appenderLoop.submit { appender.records.count }.wait() }
    var lastNote = monotonicNanoseconds()
    func progressNote(_ what: String) throws {
        guard seconds(since: lastNote) >= 5 else { return }
        lastNote = monotonicNanoseconds()
        let now = try progress(holdingThrough: shared.completedMax.load(ordering: .acquiring))
        note(String(format: "%6.1f s: %@; %d appended; %d of %d clients with a stream open, %d back since the kill, %d holding every appended event",
                    seconds(since: runStart), what, try appended(), now.open, options.clients, now.backAfterKill, now.holding))
    }
    var timedOut = false
    while try appended() < options.warmup {
        if overDeadline() { timedOut = true; break }
        try progressNote("warm-up")
        Thread.sleep(forTimeInterval: 0.05)
    }

    var killedAt: UInt64?
    var killTarget = shared.base - 1
    var statsAtKill: [String: Double]?
    var allBackAt: UInt64?
    var readyAt: UInt64?
    var stopAt: UInt64?
    if !timedOut {
        switch options.mode {
        case .kill:
            statsAtKill = stats(port: ports[0], on: control)
            killTarget = shared.completedMax.load(ordering: .acquiring)
            let now = monotonicNanoseconds()
            shared.killedAt.store(now, ordering: .releasing)
            killedAt = now
            guard kill(options.killPID!, SIGKILL) == 0 else {
                throw LoadError.setup("kill -KILL \(options.killPID!): \(String(cString: strerror(errno)))")
            }
            note(String(format: "%6.1f s: A (pid %d) killed after %d appends", seconds(since: runStart), options.killPID!, try appended()))
            while true {
                if overDeadline() { timedOut = true; break }
                let now = try progress(holdingThrough: .max)
                if allBackAt == nil, now.backAfterKill == options.clients {
                    allBackAt = monotonicNanoseconds()
                    note(String(format: "%6.1f s: every client is back, %.1f s after the kill", seconds(since: runStart), seconds(since: killedAt!)))
                }
                if let allBackAt, seconds(since: killedAt!) >= options.afterKill, seconds(since: allBackAt) >= options.tail { break }
                try progressNote("after the kill")
                Thread.sleep(forTimeInterval: 0.1)
            }
        case .rolling:
            readyAt = monotonicNanoseconds()
            if let readyFile = options.readyFile { _ = FileManager.default.createFile(atPath: readyFile, contents: Data()) }
            note(String(format: "%6.1f s: warm-up done, ready for the restarts", seconds(since: runStart)))
            while true {
                if overDeadline() { timedOut = true; break }
                if stopAt == nil {
                    let stop = options.stopFile.map { FileManager.default.fileExists(atPath: $0) }
                        ?? (seconds(since: readyAt!) >= options.duration)
                    if stop {
                        stopAt = monotonicNanoseconds()
                        note(String(format: "%6.1f s: restarts done", seconds(since: runStart)))
                    }
                }
                if let stopAt, seconds(since: stopAt) >= options.tail, try progress(holdingThrough: .max).open == options.clients { break }
                try progressNote(stopAt == nil ? "restarts under way" : "after the restarts")
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    // Appends stop; then every client must hold every appended event.
    try appenderLoop.submit { appender.stop() }.wait()
    let appendsStopped = monotonicNanoseconds()
    while !timedOut, try appenderLoop.submit({ appender.inFlight }).wait() > 0 {
        if overDeadline() { timedOut = true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    let finalMax = shared.completedMax.load(ordering: .acquiring)
    var everyoneHoldsAt: UInt64?
    while !timedOut {
        let now = try progress(holdingThrough: finalMax)
        if now.holding == options.clients {
            everyoneHoldsAt = monotonicNanoseconds()
            break
        }
        if overDeadline() { timedOut = true; break }
        try progressNote("appends stopped")
        Thread.sleep(forTimeInterval: 0.1)
    }
    let runSeconds = seconds(since: runStart)
    shared.stopping.store(true, ordering: .releasing)
    let loadCPU = processCPUSeconds() - loadCPUBefore

    // Figures.
    let records = try appenderLoop.submit { appender.records }.wait()
    let (appendFailures, failureReasons, appenderForeign, stillInFlight) = try appenderLoop.submit {
        (appender.failedAttempts, appender.failures, appender.foreignEpoch, appender.inFlight)
    }.wait()
    var appendedOffsets = [Bool](repeating: false, count: max(0, finalMax - shared.base + 1))
    for record in records where record.position >= shared.base {
        let offset = record.position - shared.base
        if offset >= appendedOffsets.count { appendedOffsets.append(contentsOf: repeatElement(false, count: offset - appendedOffsets.count + 1)) }
        appendedOffsets[offset] = true
    }
    let appendedSet = appendedOffsets
    let clients = try everyClient { browser in
        ClientFigures(open: browser.open, contiguous: browser.contiguous, received: browser.received,
                      lost: browser.lost(appendedSet), unexpected: browser.unexpected(appendedSet),
                      duplicates: browser.duplicates, resets: browser.resets, shutdowns: browser.shutdowns,
                      droppedNotices: browser.droppedNotices, foreignEpoch: browser.foreignEpoch, attempts: browser.attempts,
                      failedAttempts: browser.failedAttempts, refusedByStatus: browser.refusedByStatus,
                      streamsEnded: browser.streamsEnded, firstRetry: browser.firstRetry, replays: browser.replays,
                      backAfterKill: browser.backAfterKill, caughtUpAfterKill: browser.caughtUpAfterKill,
                      killReconnectStart: browser.killReconnectStart, longestGap: browser.longestGap, gaps: browser.gaps,
                      fullRetryWaits: browser.fullRetryWaits)
    }
    var statsAfter: [String: [String: Double]] = [:]
    for (name, port) in zip(names, ports) { statsAfter[name] = stats(port: port, on: control) }
    _ = try everyClient { browser in browser.close() }

    let ms = { (nanoseconds: UInt64) in Double(nanoseconds) / 1e6 }
    let lost = clients.reduce(0) { $0 + $1.lost }
    let duplicated = clients.reduce(0) { $0 + $1.duplicates }
    let resets = clients.reduce(0) { $0 + $1.resets }
    let replays = clients.flatMap { $0.replays.map(ms) }
    let gaps = clients.filter { $0.gaps > 0 }.map { ms($0.longestGap) }
    let retries = clients.compactMap(\.firstRetry)
    func appendLatencies(from: UInt64, to: UInt64) -> [Double] {
        records.filter { $0.started >= from && $0.started < to }.map { ms($0.completed - $0.started) }
    }
    var appendWindows: [String: Any] = ["all": distribution(appendLatencies(from: runStart, to: .max))]
    var summaryAppends: [String] = []
    var report: [String: Any] = [:]
    switch options.mode {
    case .kill:
        if let killedAt {
            let after = killedAt + UInt64(options.afterKill * 1e9)
            appendWindows["before_kill"] = distribution(appendLatencies(from: runStart, to: killedAt))
            appendWindows["after_kill"] = distribution(appendLatencies(from: killedAt, to: after))
            summaryAppends = ["before the kill \(describe(appendLatencies(from: runStart, to: killedAt)))",
                              "in the \(Int(options.afterKill)) s after it \(describe(appendLatencies(from: killedAt, to: after)))"]
            let back = clients.compactMap { $0.backAfterKill.map { ms($0 - killedAt) } }
            let caughtUp = clients.compactMap { $0.caughtUpAfterKill.map { ms($0 - killedAt) } }
            let reconnectStart = clients.compactMap { $0.killReconnectStart.map { ms($0 - killedAt) } }
            report["kill_to_back_ms"] = distribution(back)
            report["kill_to_caught_up_ms"] = distribution(caughtUp)
            report["kill_to_reconnect_start_ms"] = distribution(reconnectStart)
            report["events_before_kill"] = killTarget - shared.base + 1
            report["all_back_seconds_after_kill"] = allBackAt.map { Double($0 - killedAt) / 1e9 } ?? NSNull()
            report["clients_back"] = back.count
        }
    case .rolling:
        if let readyAt {
            let stop = stopAt ?? appendsStopped
            appendWindows["before_restarts"] = distribution(appendLatencies(from: runStart, to: readyAt))
            appendWindows["during_restarts"] = distribution(appendLatencies(from: readyAt, to: stop))
            appendWindows["after_restarts"] = distribution(appendLatencies(from: stop, to: .max))
            summaryAppends = ["before the restarts \(describe(appendLatencies(from: runStart, to: readyAt)))",
                              "during them \(describe(appendLatencies(from: readyAt, to: stop)))"]
            report["restarts_seconds"] = Double(stop - readyAt) / 1e9
        }
        report["clients_back"] = clients.filter(\.open).count
    }
    let stalled = timedOut || everyoneHoldsAt == nil
    let status: Int32 = stalled ? 3 : (lost > 0 || duplicated > 0 || resets > 0 ? 1 : 0)
    func instanceCPU(_ name: String) -> Any {
        guard options.mode == .kill, let before = statsBefore[name]?["cpuSeconds"], let after = (statsAfter[name] ?? (name == "A" ? statsAtKill : nil))?["cpuSeconds"]
        else { return NSNull() }
        return after - before
    }
    report["mode"] = options.mode.rawValue
    report["clients"] = options.clients
    report["topic"] = options.topic
    report["rate"] = options.rate
    report["ports"] = ports
    report["connect_seconds"] = connectSeconds
    report["run_seconds"] = runSeconds
    report["timed_out"] = stalled
    report["appended"] = records.count
    report["append_attempts_failed"] = appendFailures
    report["append_failures"] = failureReasons
    report["appends_in_flight_at_end"] = stillInFlight
    report["appends_ms"] = appendWindows
    report["clients_open_at_end"] = clients.filter(\.open).count
    report["clients_holding_everything"] = clients.filter { shared.base + $0.contiguous - 1 >= finalMax && $0.lost == 0 }.count
    report["lost"] = lost
    report["clients_with_loss"] = clients.filter { $0.lost > 0 }.count
    report["duplicated"] = duplicated
    report["clients_with_duplicates"] = clients.filter { $0.duplicates > 0 }.count
    report["resets"] = resets
    report["clients_reset"] = clients.filter { $0.resets > 0 }.count
    report["unexpected_events"] = clients.reduce(0) { $0 + $1.unexpected }
    report["other_epoch_events"] = clients.reduce(0) { $0 + $1.foreignEpoch } + appenderForeign
    report["dropped_notices"] = clients.reduce(0) { $0 + $1.droppedNotices }
    report["shutdown_events"] = clients.reduce(0) { $0 + $1.shutdowns }
    report["events_received"] = clients.reduce(0) { $0 + $1.received }
    report["connection_attempts"] = clients.reduce(0) { $0 + $1.attempts }
    report["failed_attempts"] = clients.reduce(0) { $0 + $1.failedAttempts }
    report["refused_by_status"] = clients.reduce(0) { $0 + $1.refusedByStatus }
    report["streams_ended"] = clients.reduce(0) { $0 + $1.streamsEnded }
    report["replay_ms"] = distribution(replays)
    report["gap_ms"] = distribution(gaps)
    report["clients_waited_full_retry"] = clients.filter { $0.fullRetryWaits > 0 }.count
    report["full_retry_waits"] = clients.reduce(0) { $0 + $1.fullRetryWaits }
    report["retry_ms_min"] = retries.min() ?? 0
    report["retry_ms_max"] = retries.max() ?? 0
    report["load_cpu_seconds"] = loadCPU
    report["load_threads"] = loops.count + 1
    report["instances_cpu_seconds"] = Dictionary(uniqueKeysWithValues: names.map { ($0, instanceCPU($0)) })
    report["file_limit"] = fileLimit

    let killLine: String
    if options.mode == .kill, report["kill_to_back_ms"] != nil {
        let back = clients.compactMap { $0.backAfterKill.map { ms($0 - killedAt!) } }
        let caughtUp = clients.compactMap { $0.caughtUpAfterKill.map { ms($0 - killedAt!) } }
        killLine = "  kill → back \(describe(back)); kill → caught up \(describe(caughtUp))\n"
    } else {
        killLine = ""
    }
    let summary = """
        \(options.mode.rawValue), \(options.clients) clients, \(records.count) events appended at \(options.rate)/s: \
        \(String(format: "%.1f", runSeconds)) s\(stalled ? " (DEADLINE: not every client holds every event)" : "")
          \(report["clients_back"] ?? 0) clients back, \(clients.filter(\.open).count) with a stream open at the end; \
        lost \(lost), duplicated \(duplicated), resets \(resets), other epoch \(report["other_epoch_events"] ?? 0), \
        unexpected \(report["unexpected_events"] ?? 0)
          replay (per reconnect) \(describe(replays))
        \(killLine)  appends: \(summaryAppends.joined(separator: "; ")); \(appendFailures) attempts failed
          longest gap per client \(describe(gaps)); \(clients.filter { $0.fullRetryWaits > 0 }.count) clients waited a full retry \
        (retry: \(retries.min() ?? 0)–\(retries.max() ?? 0) ms); \(clients.reduce(0) { $0 + $1.failedAttempts }) failed attempts, \
        \(clients.reduce(0) { $0 + $1.shutdowns }) shutdown events
          load client CPU \(String(format: "%.1f", loadCPU)) s (\(loops.count) loops for the clients, 1 for the appender)
        """
    return Outcome(report: report, summary: summary, status: status)
}

let options = Options(CommandLine.arguments)
// A run that hangs still ends: shortly after its deadline the process says so and exits 3.
let hardDeadline = options.deadline + 60
Thread.detachNewThread {
    Thread.sleep(forTimeInterval: hardDeadline)
    fail("hard deadline of \(Int(hardDeadline)) s passed", status: 3)
}
do {
    let outcome = try run(options)
    let json = try JSONSerialization.data(withJSONObject: outcome.report, options: [.sortedKeys])
    FileHandle.standardOutput.write(json + Data("\n".utf8))
    note(outcome.summary)
    exit(outcome.status)
} catch {
    fail("\(error)")
}
