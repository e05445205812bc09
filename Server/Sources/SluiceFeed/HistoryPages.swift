#if Server
import DequeModule
import NIOConcurrencyHelpers
import NIOCore

/// A feed's reads of its log's history, shared by the clients that resume: clients that ask for
/// the same page — the entries after the same id, as many — while it is being read (or waits its
/// turn), or within ``reuseTime`` of its answer, get that one read's answer. At most `readers`
/// reads run at once; the others wait their turn, in order. A read whose clients have all left
/// by its turn is not made.
///
/// A stampede — thousands of clients of a stopped instance resuming from the same last id — is so
/// a handful of reads, not one per client. An answer given again a moment later is still exact:
/// the entries after an id do not change once written, and a page that ends before the newest
/// entry only makes its reader ask for the next one.
final class HistoryPages<Value: Sendable>: Sendable {
    /// What a page read answers: its entries, or `nil` when its clients had all left by its turn.
    typealias Page = [LogEntry<Value>]?

    private struct Key: Hashable {
        let after: EventID
        let limit: Int
    }

    /// A read being made (or waiting for its turn), and the clients that wait for it.
    private struct Read {
        let task: Task<Page, any Error>
        var clients: [any ClientSink]
    }

    private struct State {
        var reads: [Key: Read] = [:]
        /// Answers kept for reuse, the oldest first, with when each came (uptime nanoseconds).
        var kept: [Key: (entries: [LogEntry<Value>], at: UInt64)] = [:]
        var keptOrder = Deque<Key>()
        /// Reads made now, and those waiting for their turn.
        var reading = 0
        var waiting = Deque<CheckedContinuation<Void, Never>>()
    }

    /// How long an answer is given again to clients that ask for the same page (1 s).
    static var reuseTime: TimeAmount { .seconds(1) }
    /// How many answers are kept for reuse at most.
    static var keptPages: Int { 16 }

    private let history: FeedHistory<Value>
    private let readers: Int
    private let state = NIOLockedValueBox(State())

    init(history: FeedHistory<Value>, readers: Int) {
        self.history = history
        self.readers = readers
    }

    /// Reads made now, and reads waiting for their turn.
    var turns: (reading: Int, waiting: Int) {
        state.withLockedValue { ($0.reading, $0.waiting.count) }
    }

    /// The entries after `after`, at most `limit`, for `client`: `nil` if it left before they
    /// were read.
    func entries(after: EventID, limit: Int, for client: any ClientSink) async throws -> [LogEntry<Value>]? {
        let key = Key(after: after, limit: limit)
        while !client.hasLeft {
            let now = NIODeadline.now().uptimeNanoseconds
            let found = state.withLockedValue { state -> Found in
                if let kept = state.kept[key], now &- kept.at <= UInt64(Self.reuseTime.nanoseconds) { return .kept(kept.entries) }
                if state.reads[key] != nil {
                    state.reads[key]!.clients.append(client)
                } else {
                    state.reads[key] = Read(task: Task { try await self.read(key) }, clients: [client])
                }
                return .reading(state.reads[key]!.task)
            }
            switch found {
            case .kept(let entries):
                return entries
            case .reading(let task):
                if let entries = try await task.value { return entries }
                // Not read: its clients had left by its turn — this one too, unless it came just then.
            }
        }
        return nil
    }

    private enum Found {
        case kept([LogEntry<Value>])
        case reading(Task<Page, any Error>)
    }

    /// Makes the read of `key` in its turn, unless its clients have all left; keeps its answer.
    private func read(_ key: Key) async throws -> Page {
        await takeTurn()
        defer { endTurn() }
        let wanted = state.withLockedValue { state in
            state.reads[key]!.clients.contains { !$0.hasLeft }
        }
        guard wanted else {
            state.withLockedValue { $0.reads[key] = nil }
            return nil
        }
        do {
            let entries = try await history.entries(after: key.after, limit: key.limit)
            let at = NIODeadline.now().uptimeNanoseconds
            state.withLockedValue { state in
                state.reads[key] = nil
                if state.kept.updateValue((entries, at), forKey: key) == nil { state.keptOrder.append(key) }
                // Kept while they may be given again, and no more of them than keptPages.
                while let oldest = state.keptOrder.first,
                      state.keptOrder.count > Self.keptPages || at &- state.kept[oldest]!.at > UInt64(Self.reuseTime.nanoseconds) {
                    state.keptOrder.removeFirst()
                    state.kept[oldest] = nil
                }
            }
            return entries
        } catch {
            state.withLockedValue { $0.reads[key] = nil }
            throw error
        }
    }

    /// Waits until fewer than `readers` reads are being made, then counts this one.
    private func takeTurn() async {
        await withCheckedContinuation { (turn: CheckedContinuation<Void, Never>) in
            let now = state.withLockedValue { state -> Bool in
                guard state.reading < readers else {
                    state.waiting.append(turn)
                    return false
                }
                state.reading += 1
                return true
            }
            if now { turn.resume() }
        }
    }

    /// Hands this read's turn to the next one waiting, if any.
    private func endTurn() {
        let next = state.withLockedValue { state -> CheckedContinuation<Void, Never>? in
            if let next = state.waiting.popFirst() { return next }
            state.reading -= 1
            return nil
        }
        next?.resume()
    }
}
#endif
