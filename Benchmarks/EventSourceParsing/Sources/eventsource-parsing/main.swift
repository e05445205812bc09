// Parses one byte stream — a Sluice feed's frames — with SluiceEventSource's EventStreamParser
// and with mattt/EventSource 1.1.1's parser, in alternating rounds, and prints for each the
// events parsed per second and the CPU time per event (the process's user + system time, which
// covers every thread the parser's actor ran on), medians of the rounds.
//
//     swift run -c release --package-path Benchmarks/EventSourceParsing [events] [rounds]
import EventSource
import Foundation
import SluiceEventSource
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
func makeStream() -> [UInt8] {
    var text = "retry: 3000\n\n"
    for position in 1...eventCount {
        text += "id: k3j2h1g0f9e8-\(position)\nevent: price\ndata: {\"symbol\":\"ACME\",\"price\":\(100 + position % 50).25,\"seq\":\(position)}\n\n"
        if position % 100 == 0 { text += ": heartbeat\n\n" }
    }
    return Array(text.utf8)
}

let stream = makeStream()
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
