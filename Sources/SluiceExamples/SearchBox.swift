import Dispatch
import Foundation
import Sluice

/// A search box: what the user types is debounced on a scheduler (a real `DispatchQueue` in the
/// app, `DispatchQueue.test` in tests), looked up, and the results are received on a serial
/// queue standing in for the main queue.
///
/// Generic over its schedulers, as code that wants testing in virtual time should be.
public final class SearchBox<DebounceScheduler: Scheduler, ResultScheduler: Scheduler>: @unchecked Sendable {
    /// What the user has typed so far; each keystroke sends the whole text.
    public let query = PassthroughSubject<String, Never>()
    private var subscription: AnyCancellable?

    /// Wires the box: `search` answers a query; `show` receives each answer on `results`.
    public init(debounceFor interval: DebounceScheduler.SchedulerTimeType.Stride, on debounceScheduler: DebounceScheduler,
                resultsOn results: ResultScheduler, search: @escaping (String) -> [String],
                show: @escaping (String, [String]) -> Void) {
        subscription = query
            .debounce(for: interval, scheduler: debounceScheduler)
            .removeDuplicates()
            .filter { !$0.isEmpty }
            .map { text in (text, search(text)) }
            .receive(on: results)
            .sink { text, found in show(text, found) }
    }

    /// Stops listening.
    public func close() { subscription?.cancel() }
}

extension Examples {
    /// The search box on real dispatch queues: keystrokes 50 ms apart are one search, a pause of
    /// more than 300 ms makes the next.
    public static func searchBox(print: @escaping (String) -> Void) {
        print("== Search box: debounced on a DispatchQueue, results on a serial queue ==")
        let stooges = ["Moe", "Larry", "Curly", "Shemp", "Joe"]
        let results = DispatchQueue(label: "Examples.searchBox.results")
        let shown = DispatchSemaphore(value: 0)
        let lines = ExampleLines()
        let box = SearchBox(
            debounceFor: .milliseconds(300), on: DispatchQueue(label: "Examples.searchBox.debounce"), resultsOn: results,
            search: { text in stooges.filter { $0.lowercased().hasPrefix(text.lowercased()) } },
            show: { text, found in
                lines.append("results for \"\(text)\": \(found)")
                shown.signal()
            })
        for (typed, pause) in [("c", 50), ("cu", 50), ("cur", 400), ("s", 50), ("sh", 400)] {
            lines.append("user types \"\(typed)\"")
            box.query.send(typed)
            Thread.sleep(forTimeInterval: Double(pause) / 1000)
        }
        _ = shown.wait(timeout: .now() + 2)
        _ = shown.wait(timeout: .now() + 2)
        box.close()
        results.sync {}
        lines.all.forEach(print)
    }
}

/// Lines collected from several queues, printed in the order they were added.
final class ExampleLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var all: [String] { lock.withLock { lines } }
}
