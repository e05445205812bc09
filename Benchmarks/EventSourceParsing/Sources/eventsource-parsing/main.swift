// Parses one byte stream — a Sluice feed's frames — with SluiceEventSource's EventStreamParser
// and with mattt/EventSource 1.1.1's parser, in alternating rounds, and prints for each the
// events parsed per second and the CPU time per event (the process's user + system time, which
// covers every thread the parser's actor ran on), medians of the rounds. Then end to end: the same
// bytes served over loopback by a plain HTTP server of this process, read by SluiceEventSource's
// `EventSource` (URLSession, its AsyncSequence) — the events a client gets per second and the
// process's CPU per event, the server's writing included. (mattt/EventSource's client cannot run
// here: it needs `URLSession.bytes(for:)`, which FoundationNetworking lacks.)
//
//     swift run -c release --package-path Benchmarks/EventSourceParsing [events] [rounds]
import EventSource
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sluice
import SluiceEventSource
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let eventCount = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1])! : 200_000
let rounds = CommandLine.arguments.count > 2 ? Int(CommandLine.arguments[2])! : 5
/// `sluice` or `mattt` to run one parser only (to profile it); both by default.
let only = CommandLine.arguments.count > 3 ? CommandLine.arguments[3] : nil
let chunkSize = 16_384   // what URLSession hands a data delegate at most, on Linux (libcurl's buffer)

/// The stream: `retry:` first, then events as a Sluice feed frames them (`id:` of epoch and
/// position, `event:`, a JSON `data:` line), a `: heartbeat` comment every 100 events.
/// Also where each event's bytes begin (`starts[n - 1]` for event `n`), for the server's resumes.
func makeStream() -> (bytes: [UInt8], starts: [Int]) {
    var text = "retry: 3000\n\n"
    var starts: [Int] = []
    for position in 1...eventCount {
        starts.append(text.utf8.count)
        text += "id: k3j2h1g0f9e8-\(position)\nevent: price\ndata: {\"symbol\":\"ACME\",\"price\":\(100 + position % 50).25,\"seq\":\(position)}\n\n"
        if position % 100 == 0 { text += ": heartbeat\n\n" }
    }
    return (Array(text.utf8), starts)
}

let (stream, eventStarts) = makeStream()
let chunks: [[UInt8]] = stride(from: 0, to: stream.count, by: chunkSize).map { Array(stream[$0..<min($0 + chunkSize, stream.count)]) }

/// What a run parsed: the number of events and the bytes of their data (both parsers must agree).
struct Checksum: Equatable { var events = 0; var dataBytes = 0 }

func cpuSeconds() -> Double {
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
        + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

func sluice() -> Checksum {
    var parser = EventStreamParser()
    var sum = Checksum()
    for chunk in chunks {
        parser.append(chunk)
        while let message = parser.next() {
            sum.events += 1
            sum.dataBytes += message.data.utf8.count
        }
    }
    return sum
}

/// mattt/EventSource's parser as its own `AsyncServerSentEventsSequence` drives it: one
/// `consume(_:)` per byte; here the queue of events is drained once per chunk.
func mattt() async -> Checksum {
    let parser = EventSource.Parser()
    var sum = Checksum()
    for chunk in chunks {
        for byte in chunk { await parser.consume(byte) }
        while let event = await parser.getNextEvent() {
            sum.events += 1
            sum.dataBytes += event.data.utf8.count
        }
    }
    return sum
}

/// How many connections the server has served.
let connectionsServed = Mutex(0)

/// A plain HTTP server on a loopback port: to each connection, the stream as a `text/event-stream`
/// response — from the event after its `Last-Event-ID`, as a Sluice feed resumes — then the
/// connection closed. Its port.
func serveStream() -> Int {
    signal(SIGPIPE, SIG_IGN)   // a client that closes mid-stream (a resume, a cancel) ends that write only
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var size = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, size) } }
    _ = listen(listener, 16)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &size) } }
    let head = Array("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n".utf8)
    Thread.detachNewThread {
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            var request = [UInt8](repeating: 0, count: 65_536)
            let count = read(connection, &request, request.count)   // one GET: its first packet has it all
            connectionsServed.withLock { $0 += 1 }
            // After the event it names: `Last-Event-ID: k3j2h1g0f9e8-<n>`.
            let lines = String(decoding: request.prefix(max(count, 0)), as: UTF8.self).split(separator: "\r\n")
            let last = lines.first { $0.lowercased().hasPrefix("last-event-id:") }
                .flatMap { $0.split(separator: "-").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } } ?? 0
            let response = head + (last == 0 ? stream[...] : last < eventCount ? stream[eventStarts[last]...] : [][...])
            var sent = 0
            while sent < response.count {
                let wrote = response[sent...].withUnsafeBytes { write(connection, $0.baseAddress, $0.count) }
                if wrote <= 0 { break }
                sent += wrote
            }
            close(connection)
        }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// One client of the server at `url` until it has every event: SluiceEventSource's `EventSource`,
/// read through its AsyncSequence, with `configuration` (and `session`: given one, the client reads
/// with a data task; without, off Apple's systems, with its own HTTP client).
func endToEnd(_ url: URL, _ configuration: SluiceEventSource.EventSource.Configuration = .init(),
              session: URLSession? = nil) async -> Checksum {
    let source = SluiceEventSource.EventSource(url: url, configuration: configuration, session: session)
    var sum = Checksum()
    do {
        for try await event in source.events {
            guard case .event(let message) = event else { continue }
            sum.events += 1
            sum.dataBytes += message.data.utf8.count
            if sum.events == eventCount { break }
        }
    } catch {
        fatalError("the client failed: \(error)")
    }
    return sum
}

/// The same through the Combine publisher, with a `sink` (unlimited demand: the client never
/// holds events back).
func endToEndPublisher(_ url: URL, session: URLSession? = nil) async -> Checksum {
    let source = SluiceEventSource.EventSource(url: url, session: session)
    let state = Mutex((sum: Checksum(), subscription: AnyCancellable?.none, done: false))
    await withCheckedContinuation { (finished: CheckedContinuation<Void, Never>) in
        let subscription = source.sink(receiveCompletion: { completion in
            fatalError("the client ended: \(completion)")
        }, receiveValue: { event in
            guard case .event(let message) = event else { return }
            let last = state.withLock { state -> Bool in
                state.sum.events += 1
                state.sum.dataBytes += message.data.utf8.count
                return state.sum.events == eventCount
            }
            if last { finished.resume() }
        })
        state.withLock { $0.subscription = subscription }
    }
    let (sum, subscription) = state.withLock { ($0.sum, $0.subscription) }
    subscription?.cancel()
    return sum
}

struct Sample { var seconds: Double; var cpu: Double }

func measure(_ body: () async -> Checksum) async -> (Sample, Checksum) {
    let cpu0 = cpuSeconds()
    let start = ContinuousClock.now
    let sum = await body()
    let elapsed = ContinuousClock.now - start
    let (s, atto) = elapsed.components
    return (Sample(seconds: Double(s) + Double(atto) / 1e18, cpu: cpuSeconds() - cpu0), sum)
}

var samples: [String: [Sample]] = ["sluice": [], "mattt": []]
var reference: Checksum?
for round in 0..<rounds {
    // Alternate which goes first, so neither always runs on a warmer machine.
    let order = round.isMultiple(of: 2) ? ["sluice", "mattt"] : ["mattt", "sluice"]
    for name in order where only == nil || only == name {
        let (sample, sum) = name == "sluice" ? await measure { sluice() } : await measure { await mattt() }
        if let reference, reference != sum {
            fatalError("\(name) parsed \(sum), another parser \(reference)")
        }
        reference = sum
        samples[name]!.append(sample)
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

print("\(eventCount) events, \(stream.count) bytes in \(chunks.count) chunks of \(chunkSize) bytes; \(rounds) rounds; medians")
print("")
print("| parser | events per second | CPU per event | wall per event |")
print("| --- | ---: | ---: | ---: |")
for (name, label) in [("sluice", "SluiceEventSource `EventStreamParser`"), ("mattt", "mattt/EventSource 1.1.1 `EventSource.Parser`")]
    where only == nil || only == name {
    let wall = median(samples[name]!.map(\.seconds))
    let cpu = median(samples[name]!.map(\.cpu))
    let perSecond = Double(eventCount) / wall
    print("| \(label) | \(Int(perSecond).formatted()) | \(String(format: "%.0f", cpu / Double(eventCount) * 1e9)) ns | \(String(format: "%.0f", wall / Double(eventCount) * 1e9)) ns |")
}

let url = URL(string: "http://127.0.0.1:\(serveStream())/events")!
print("")
print("End to end: one client of a loopback HTTP server writing the same stream (resuming after `Last-Event-ID`); \(rounds) rounds each; medians")
print("")
print("| client | events per second | CPU per event (client and server) | wall per event | connections per round |")
print("| --- | ---: | ---: | ---: | ---: |")
let dataTasks = URLSession(configuration: .default)
for (label, client) in [("SluiceEventSource `EventSource`, `for try await` (one event asked at a time), its own HTTP client",
                         { await endToEnd($0) }),
                        ("the same through a data task (a session of the caller's: FoundationNetworking, `readAhead` 256 KiB)",
                         { await endToEnd($0, session: dataTasks) }),
                        ("the same through a data task, `readAhead: 0` (closing as soon as the buffer is full)",
                         { await endToEnd($0, .init(readAhead: 0), session: dataTasks) }),
                        ("SluiceEventSource `EventSource`, Combine `sink` (unlimited demand), its own HTTP client",
                         { await endToEndPublisher($0) }),
                        ("the same through a data task", { await endToEndPublisher($0, session: dataTasks) })]
    as [(String, (URL) async -> Checksum)] {
    var samples: [Sample] = []
    let before = connectionsServed.withLock { $0 }
    for _ in 0..<rounds {
        let (sample, sum) = await measure { await client(url) }
        if let reference, reference != sum { fatalError("\(label) got \(sum), the parsers \(String(describing: reference))") }
        samples.append(sample)
    }
    let connections = Double(connectionsServed.withLock { $0 } - before) / Double(rounds)
    let wall = median(samples.map(\.seconds))
    let cpu = median(samples.map(\.cpu))
    print("| \(label) | \(Int(Double(eventCount) / wall).formatted()) | \(String(format: "%.0f", cpu / Double(eventCount) * 1e9)) ns | \(String(format: "%.0f", wall / Double(eventCount) * 1e9)) ns | \(String(format: "%.1f", connections)) |")
}
