// sluice-soak: pushes a great many events through random pipelines, from several threads at once,
// while subscribers come and go, and checks that nothing breaks the contract, that every event is
// accounted for, and that resident memory stays flat.
//
//     swift run -c release sluice-soak                     # 10^8 events (the long run)
//     swift run -c release sluice-soak --seconds 60        # as long as a minute allows (CI)
//     swift run -c release sluice-soak --events 1000000 --threads 4 --seed 7
//     swift run -c release sluice-soak --no-churn          # no subscribers coming and going
//     swift run -c release sluice-soak --verbose           # a line per round: its pipeline
//
// Each round draws a pipeline (a few of map, filter, compactMap, scan, removeDuplicates,
// handleEvents, merge with a second subject, flatMap into Just, buffer, receive(on:) a serial
// DispatchQueue), attaches a steady subscriber with unlimited demand, a steady subscriber that
// asks for values in random batches, and a churn of subscribers that attach and cancel while
// values flow; then sender threads send numbered values into the subjects (behind a
// receive(on:), each sender waits for the queue every few hundred values, so that the queue's
// backlog stays bounded and memory measures Sluice, not how far the senders ran ahead).
// Checked per round:
// - the steady unlimited subscriber receives exactly what the pipeline computes for every value
//   sent (count and checksum, computed independently);
// - no subscriber receives values concurrently, more values than it asked for, or anything after
//   a completion;
// and over the run: resident memory grows by less than 10 % after warm-up (the median of the last
// fifth of the rounds' samples against that of the first fifth after warm-up; sampled after
// returning free pages to the system, see `residentBytes()`).

import Dispatch
import Foundation
import Sluice
import SluiceCore
import Synchronization

// MARK: Options

struct Options {
    var events = 100_000_000
    var seconds: Double?
    var threads = 4
    var seed: UInt64 = 0x50A4
    var churn = true
    var verbose = false

    init(_ arguments: [String]) {
        var i = 1
        func next() -> String {
            i += 1
            guard i < arguments.count else { fatalError("missing value after \(arguments[i - 1])") }
            return arguments[i]
        }
        while i < arguments.count {
            switch arguments[i] {
            case "--events": events = Int(next())!
            case "--seconds": seconds = Double(next())!
            case "--threads": threads = Int(next())!
            case "--seed": seed = UInt64(next())!
            case "--no-churn": churn = false
            case "--verbose": verbose = true
            default: fatalError("unknown option \(arguments[i]); see the header of Sources/sluice-soak/main.swift")
            }
            i += 1
        }
    }
}

// MARK: A seeded generator

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: Pipelines

/// A stage of a pipeline and the same stage as a function on one value (nil: filtered out), for
/// the stages whose output is a function of their input alone. Stateful stages (scan,
/// removeDuplicates) depend on arrival order across threads, so for them only the count bound
/// and the contract are checked, not the exact result.
enum Stage: CustomStringConvertible {
    case map(Int), filter(Int), compactMap(Int), handleEvents, flatMapJust, buffer, scan, removeDuplicates
    case receiveOn(DispatchQueue)

    var description: String {
        switch self {
        case .map(let k): "map(+\(k))"
        case .filter(let k): "filter(%\(k))"
        case .compactMap(let k): "compactMap(%\(k))"
        case .handleEvents: "handleEvents"
        case .flatMapJust: "flatMap(Just)"
        case .buffer: "buffer"
        case .scan: "scan"
        case .removeDuplicates: "removeDuplicates"
        case .receiveOn: "receive(on: serial queue)"
        }
    }

    var isStateless: Bool {
        switch self {
        case .scan, .removeDuplicates: false
        default: true
        }
    }

    func apply(_ value: Int) -> Int? {
        switch self {
        case .map(let k): value &+ k
        case .filter(let k): value % k == 0 ? nil : value
        case .compactMap(let k): value % k == 1 ? nil : value &* 3
        case .handleEvents, .flatMapJust, .buffer, .scan, .removeDuplicates, .receiveOn: value
        }
    }

    func apply(_ upstream: AnyPublisher<Int, Never>) -> AnyPublisher<Int, Never> {
        switch self {
        case .map(let k): upstream.map { $0 &+ k }.eraseToAnyPublisher()
        case .filter(let k): upstream.filter { $0 % k != 0 }.eraseToAnyPublisher()
        case .compactMap(let k): upstream.compactMap { $0 % k == 1 ? nil : $0 &* 3 }.eraseToAnyPublisher()
        case .handleEvents: upstream.handleEvents(receiveOutput: { _ in }).eraseToAnyPublisher()
        case .flatMapJust: upstream.flatMap { Just($0) }.eraseToAnyPublisher()
        case .buffer: upstream.buffer(size: 4096, prefetch: .byRequest, whenFull: .dropOldest).eraseToAnyPublisher()
        case .scan: upstream.scan(0) { $0 &+ $1 }.eraseToAnyPublisher()
        case .removeDuplicates: upstream.removeDuplicates().eraseToAnyPublisher()
        case .receiveOn(let queue): upstream.receive(on: queue).eraseToAnyPublisher()
        }
    }

    static func random(using g: inout SplitMix) -> Stage {
        switch Int.random(in: 0..<9, using: &g) {
        case 0: .map(Int.random(in: 1...9, using: &g))
        case 1: .filter(Int.random(in: 2...5, using: &g))
        case 2: .compactMap(Int.random(in: 2...5, using: &g))
        case 3: .handleEvents
        case 4: .flatMapJust
        case 5: .buffer
        case 6: .scan
        case 7: .receiveOn(DispatchQueue(label: "sluice-soak.receive"))
        default: .removeDuplicates
        }
    }
}

// MARK: Checking subscribers

/// A subscriber that checks the rules as values arrive: never two deliveries at once, never beyond
/// demand, nothing after completion.
final class CheckingSubscriber: Subscriber, @unchecked Sendable {
    typealias Input = Int
    typealias Failure = Never

    private let inside = Atomic<Int>(0)
    private let state = Protected<(subscription: (any Subscription)?, granted: Int, received: Int, checksum: Int, done: Bool)>(
        (nil, 0, 0, 0, false))
    private let batch: Int?   // nil: unlimited
    let violations: Violations

    init(batch: Int?, violations: Violations) {
        self.batch = batch
        self.violations = violations
    }

    var received: Int { state.withLock { $0.received } }
    var checksum: Int { state.withLock { $0.checksum } }
    var completed: Bool { state.withLock { $0.done } }

    func receive(subscription: any Subscription) {
        let first = state.withLock { s -> Bool in
            guard s.subscription == nil else { return false }
            s.subscription = subscription
            s.granted = batch ?? .max
            return true
        }
        guard first else {
            violations.record("a second subscription")
            subscription.cancel()
            return
        }
        subscription.request(batch.map(Subscribers.Demand.max) ?? .unlimited)
    }

    func receive(_ input: Int) -> Subscribers.Demand {
        if inside.add(1, ordering: .sequentiallyConsistent).newValue != 1 { violations.record("concurrent delivery") }
        defer { inside.subtract(1, ordering: .sequentiallyConsistent) }
        let refill = state.withLock { s -> Bool in
            if s.done { violations.record("a value after completion") }
            s.received += 1
            s.checksum = s.checksum &+ input
            if s.received > s.granted { violations.record("a value beyond demand") }
            guard let batch, s.received == s.granted else { return false }
            s.granted += batch
            return true
        }
        return refill ? .max(batch!) : .none
    }

    func receive(completion: Subscribers.Completion<Never>) {
        state.withLock { s in
            if s.done { violations.record("a second completion") }
            s.done = true
        }
    }

    func cancel() {
        let subscription = state.withLock { s -> (any Subscription)? in
            defer { s.subscription = nil }
            return s.subscription
        }
        subscription?.cancel()
    }
}

/// Contract violations seen anywhere, by kind.
/// What the soak's threads share: a pipeline and its subjects, thread-safe by Sluice's contract.
struct UncheckedShared: @unchecked Sendable {
    let pipeline: AnyPublisher<Int, Never>
    let subjects: [PassthroughSubject<Int, Never>]
}

final class Violations: Sendable {
    private let kinds = Protected<[String: Int]>([:])
    func record(_ kind: String) { kinds.withLock { $0[kind, default: 0] += 1 } }
    var all: [String: Int] { kinds.withLock { $0 } }
}

// MARK: Memory

func residentBytes() -> Int {
    // Give the allocator's free pages back first: worker threads (Dispatch's, behind receive(on:))
    // allocate from arenas of their own, and what they free stays resident in them until trimmed.
    // Without this, resident memory steps up with every new arena and measures the allocator,
    // not what Sluice keeps alive.
    _ = trimAllocator?(0)
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = text.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
    else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// How many threads the process has (`/proc/self/status`), for `--verbose`.
func threadCount() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Threads:") })
    else { return 0 }
    return Int(line.split(separator: "\t").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "") ?? 0
}

/// Makes glibc's allocator use a single arena (`mallopt(M_ARENA_MAX, 1)`, looked up at run time).
/// Dispatch starts dozens of worker threads under receive(on:)'s bursts and lets them go again;
/// with an arena per thread, what they allocated and others freed stays scattered over half-used
/// pages that no trim returns, and resident memory creeps up with every burst (seen: +0.04 MiB a
/// round after one). One arena keeps resident memory a measure of what is alive.
func useOneAllocatorArena() {
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    _ = unsafeBitCast(symbol, to: Mallopt.self)(-8 /* M_ARENA_MAX */, 1)
}

/// glibc's `malloc_trim`, looked up at run time (its header is not part of Swift's Glibc module);
/// `nil` on other C libraries.
let trimAllocator: (@convention(c) (Int) -> Int32)? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim")
    .map { unsafeBitCast($0, to: (@convention(c) (Int) -> Int32).self) }

/// The median of some samples (0 when there are none).
func median<C: Collection>(_ values: C) -> Int where C.Element == Int {
    let sorted = values.sorted()
    return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
}

// MARK: The run

/// Runs the soak; returns whether it passed.
func soak(_ options: Options) -> Bool {
    let violations = Violations()
    var generator = SplitMix(state: options.seed)
    let started = Date()
    let eventsPerRound = 200_000
    var sent = 0
    var round = 0
    var warmedUp = false
    var samples: [Int] = []   // resident memory at the end of each round after warm-up
    var peakRSS = 0
    var wrongTotals = 0

    func timeIsUp() -> Bool {
        if let seconds = options.seconds { return Date().timeIntervalSince(started) >= seconds }
        return sent >= options.events
    }

    print("sluice-soak: \(options.seconds.map { "\($0) s" } ?? "\(options.events) events"), \(options.threads) sender threads, seed \(options.seed)")
    while !timeIsUp() {
        round += 1
        let stages = (0..<Int.random(in: 1...4, using: &generator)).map { _ in Stage.random(using: &generator) }
        let merged = Bool.random(using: &generator)
        let subjects = (0..<(merged ? 2 : 1)).map { _ in PassthroughSubject<Int, Never>() }
        var source = subjects[0].eraseToAnyPublisher()
        if merged { source = source.merge(with: subjects[1]).eraseToAnyPublisher() }
        let pipeline = stages.reduce(source) { $1.apply($0) }
        let exact = stages.allSatisfy(\.isStateless)
        if options.verbose { print("round \(round): \(stages)\(merged ? " merged" : "")") }
        fflush(nil)   // into a pipe or a file too: if the round dies, what was printed before it is there
        let queues = stages.compactMap { stage -> DispatchQueue? in
            if case .receiveOn(let queue) = stage { return queue }
            return nil
        }

        let steady = CheckingSubscriber(batch: nil, violations: violations)
        let batched = CheckingSubscriber(batch: Int.random(in: 1...64, using: &generator), violations: violations)
        pipeline.subscribe(steady)
        pipeline.subscribe(batched)

        // Senders: thread t sends t, t + threads, t + 2·threads, ... into subject (t % subjects).
        let perThread = eventsPerRound / options.threads
        let churnStop = Atomic<Bool>(false)
        let churnSeed = UInt64(round)
        // Sluice's subjects and erased publishers are `Sendable`, but not under the
        // `AppleConcurrencyShape` trait (Apple's are not): the threads reach them through a box.
        let shared = UncheckedShared(pipeline: pipeline, subjects: subjects)
        let churn = Thread {
            let pipeline = shared.pipeline
            var g = SplitMix(state: churnSeed)
            var live: [CheckingSubscriber] = []
            while !churnStop.load(ordering: .relaxed) && options.churn {
                let s = CheckingSubscriber(batch: Bool.random(using: &g) ? nil : Int.random(in: 1...16, using: &g), violations: violations)
                pipeline.subscribe(s)
                live.append(s)
                if live.count > 3 { live.removeFirst().cancel() }
                usleep(20)   // a subscriber every few dozen microseconds, not a busy loop
            }
            live.forEach { $0.cancel() }
        }
        churn.start()
        // Sender threads of their own, not Dispatch's workers: a worker that blocks in `sync` below
        // makes Dispatch start more workers (dozens, each with its stack), and resident memory
        // would measure Dispatch's thread pool rather than Sluice.
        let sendersDone = DispatchSemaphore(value: 0)
        let senders = (0..<options.threads).map { t in
            Thread {
                let subject = shared.subjects[t % shared.subjects.count]
                for i in 0..<perThread {
                    subject.send(i &* options.threads &+ t)
                    if i % 256 == 255 { queues.forEach { $0.sync {} } }   // bound the queues' backlog
                }
                sendersDone.signal()
            }
        }
        senders.forEach { $0.start() }
        senders.forEach { _ in sendersDone.wait() }
        churnStop.store(true, ordering: .relaxed)
        subjects.forEach { $0.send(completion: .finished) }
        while !churn.isFinished { usleep(100) }
        // Behind receive(on:), the last values and the completion arrive later, on the queue.
        let deadline = Date(timeIntervalSinceNow: 30)
        while !steady.completed && Date() < deadline { usleep(100) }
        if !steady.completed { violations.record("no completion within 30 s of the last send") }

        let roundSent = perThread * options.threads
        sent += roundSent
        // What the steady subscriber must have seen, computed without Sluice.
        if exact {
            var count = 0
            var sum = 0
            for t in 0..<options.threads {
                for i in 0..<perThread {
                    guard let out = stages.reduce(Optional(i &* options.threads &+ t), { $0.flatMap($1.apply) }) else { continue }
                    count += 1
                    sum = sum &+ out
                }
            }
            if steady.received != count || steady.checksum != sum {
                wrongTotals += 1
                print("round \(round) \(stages)\(merged ? " merged" : ""): received \(steady.received) (checksum \(steady.checksum)), expected \(count) (\(sum))")
            }
        } else if steady.received > roundSent {
            wrongTotals += 1
            print("round \(round) \(stages): received \(steady.received) of \(roundSent) sent")
        }
        steady.cancel()
        batched.cancel()

        let rss = residentBytes()
        peakRSS = max(peakRSS, rss)
        if options.verbose {
            print(String(format: "round %d: resident memory %.1f MiB, %d threads", round, Double(rss) / 1_048_576, threadCount()))
        }
        if !warmedUp, sent >= max(options.events / 5, eventsPerRound * 10) || (options.seconds.map { Date().timeIntervalSince(started) >= $0 / 5 } ?? false) {
            warmedUp = true
        }
        if warmedUp { samples.append(rss) }
    }

    let elapsed = Date().timeIntervalSince(started)
    // Growth: the median of the last fifth of the samples against the median of the first fifth.
    // Medians, not the peak: Dispatch's worker pool (behind receive(on:)) grows for a while under
    // load, each thread with its stack, then shrinks again; a leak raises every later sample.
    let fifth = max(1, samples.count / 5)
    let warmRSS = median(samples.prefix(fifth))
    let endRSS = median(samples.suffix(fifth))
    let growth = warmRSS > 0 ? Double(endRSS - warmRSS) / Double(warmRSS) : 0
    print(String(format: "sluice-soak: %d events in %d rounds, %.1f s (%.2f M events/s); resident memory after warm-up %.1f MiB, at the end %.1f MiB (%+.1f %%), peak %.1f MiB",
                 sent, round, elapsed, Double(sent) / elapsed / 1e6, Double(warmRSS) / 1_048_576, Double(endRSS) / 1_048_576, growth * 100, Double(peakRSS) / 1_048_576))
    let problems = violations.all
    for (kind, count) in problems.sorted(by: { $0.key < $1.key }) { print("  violation: \(kind) × \(count)") }
    if wrongTotals > 0 { print("  rounds with wrong totals: \(wrongTotals)") }
    if samples.count < 2 { print("  (the run was too short to measure memory after warm-up)") }
    let memoryGrew = growth > 0.10
    if memoryGrew { print("  resident memory grew by more than 10 % after warm-up") }
    if !problems.isEmpty || wrongTotals > 0 || memoryGrew {
        print("sluice-soak: FAILED")
        return false
    }
    print("sluice-soak: passed")
    return true

}

useOneAllocatorArena()
exit(soak(Options(CommandLine.arguments)) ? 0 : 1)