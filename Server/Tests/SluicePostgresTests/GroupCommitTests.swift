import Foundation
import Logging
import PostgresNIO
import Sluice
import SluiceFeed
import SluicePostgres
import Testing

/// Standalone appends made at the same time, committed together, against a real PostgreSQL
/// server: fewer transactions than appends, each caller answered with the ids of its own events,
/// keyed appends deduplicated inside a group, a reused key refused alone.
@Suite struct GroupCommitTests {
    /// How many append statements the server ran for the log's tables since its statement log had
    /// `offset` bytes (it has them all): the plain statement's, and calls of the log's function.
    private func groups(_ log: PostgresEventLog, since offset: UInt64) throws -> Int {
        let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: try TestDatabase.setting("SLUICE_PG_LOG")))
        defer { try? file.close() }
        try file.seek(toOffset: offset)
        let text = String(decoding: try file.readToEnd() ?? Data(), as: UTF8.self)
        return text.components(separatedBy: "execute <unnamed>: ").filter {
            $0.contains("INSERT INTO \(log.prefix)_topics") || $0.contains("\(log.prefix)_append_group(")
        }.count
    }

    /// The size of the server's statement log now.
    private func logSize() throws -> UInt64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: try TestDatabase.setting("SLUICE_PG_LOG"))
        return (attributes[.size] as? NSNumber)?.uint64Value ?? 0
    }

    @Test func concurrentAppendsAreCommittedTogetherEachCallerGettingItsOwnIds() async throws {
        try await TestDatabase.withLog { log in
            let topics = ["a", "b", "c"]
            let before = try logSize()
            let appended = try await withThrowingTaskGroup(of: (String, String, [EventID]).self) { group in
                for index in 0..<300 {
                    let topic = topics[index % 3]
                    let payloads = index % 10 == 0 ? ["p\(index)", "q\(index)"] : ["p\(index)"]   // some batches too
                    group.addTask { (topic, payloads.joined(separator: ","), try await log.append(contentsOf: payloads, to: topic)) }
                }
                var all: [(String, String, [EventID])] = []
                for try await one in group { all.append(one) }
                return all
            }
            // Each caller's ids hold exactly its payloads, in its order; together they fill each
            // topic from 1 with no gap and no overlap.
            for topic in topics {
                let rows = try await TestDatabase.run(
                    "SELECT position::text || '=' || payload FROM \(log.prefix)_events WHERE topic = '\(topic)' ORDER BY position")
                var expected: [String] = []
                for (_, payloads, ids) in appended.filter({ $0.0 == topic }) {
                    for (id, payload) in zip(ids, payloads.split(separator: ",")) { expected.append("\(id.position)=\(payload)") }
                }
                #expect(rows == expected.sorted { Int($0.split(separator: "=")[0])! < Int($1.split(separator: "=")[0])! })
                #expect(rows.count == appended.filter { $0.0 == topic }.reduce(0) { $0 + $1.2.count })
                #expect(rows.enumerated().allSatisfy { $0.element.hasPrefix("\($0.offset + 1)=") })
            }
            // Fewer transactions than appends: the appends made while a group committed formed the next.
            let statements = try groups(log, since: before)
            #expect(statements >= 1 && statements <= 100, "\(statements) groups for 300 appends")
        }
    }

    @Test func oneCallersSuccessiveAppendsKeepTheirOrder() async throws {
        try await TestDatabase.withLog { log in
            var positions: [UInt64] = []
            for index in 0..<20 { positions.append(try await log.append("e\(index)", to: "t").position) }
            #expect(positions == Array(1...20))
        }
    }

    @Test func keyedAppendsAreCommittedTogetherDeduplicatedAndAReusedKeyIsRefusedAlone() async throws {
        try await TestDatabase.withLog { log in
            let before = try logSize()
            let results = await withTaskGroup(of: (Int, Result<EventID, any Error>).self) { group in
                for index in 0..<60 {
                    group.addTask {
                        let outcome: Result<EventID, any Error>
                        switch index % 3 {
                        case 0: outcome = await Result { try await log.append("plain\(index)", to: "t") }
                        case 1: outcome = await Result { try await log.append("keyed\(index % 5)", to: "t", idempotencyKey: "k\(index % 5)") }
                        default: outcome = await Result { try await log.append("other", to: "t", idempotencyKey: "k\(index % 5)") }
                        }
                        return (index, outcome)
                    }
                }
                var all: [(Int, Result<EventID, any Error>)] = []
                for await one in group { all.append(one) }
                return all
            }
            // Every keyed append with the key's first payload got that key's one id.
            let payloads = try await TestDatabase.run("SELECT payload FROM \(log.prefix)_events WHERE topic = 't' ORDER BY position")
            #expect(payloads.filter { $0.hasPrefix("plain") }.count == 20)
            #expect(payloads.count == 20 + 5)   // five keys: one event each, whichever payload came first
            for key in 0..<5 {
                let keyed = results.filter { $0.0 % 5 == key && $0.0 % 3 != 0 }
                let ids = keyed.compactMap { try? $0.1.get() }
                let refused = keyed.filter { if case .failure(let error as PostgresEventLogError) = $0.1 { error.kind == .idempotencyKeyReused } else { false } }
                #expect(Set(ids).count == 1 && ids.count + refused.count == keyed.count)
            }
            for case (_, .failure(let error)) in results.filter({ $0.0 % 3 == 0 }) {
                Issue.record("a plain append failed: \(String(reflecting: error))")
            }
            // 40 keyed appends among 60, gathered: a statement each would be 40 at least.
            let statements = try groups(log, since: before)
            #expect(statements >= 1 && statements <= 30, "\(statements) groups for 60 appends, 40 of them keyed")
        }
    }

    @Test func keyedAppendsToManyTopicsAreCommittedTogetherEachKeyOnce() async throws {
        try await TestDatabase.withLog { log in
            let before = try logSize()
            // 200 keyed appends to 20 topics, each sent twice at once: 200 events, each pair one id.
            let ids = try await withThrowingTaskGroup(of: (Int, EventID).self) { group in
                for index in 0..<400 {
                    let n = index % 200
                    group.addTask { (n, try await log.append("e\(n)", to: "topic\(n % 20)", idempotencyKey: "key-\(n)")) }
                }
                var all: [Int: Set<EventID>] = [:]
                for try await (n, id) in group { all[n, default: []].insert(id) }
                return all
            }
            #expect(ids.count == 200 && ids.values.allSatisfy { $0.count == 1 })
            let rows = try await TestDatabase.run(
                "SELECT topic || '/' || position::text || '=' || payload FROM \(log.prefix)_events ORDER BY topic, position")
            let expected = ids.map { n, id in "topic\(n % 20)/\(id.first!.position)=e\(n)" }
            #expect(rows.sorted() == expected.sorted())
            for topic in 0..<20 {   // each topic numbered from 1, no gap
                let positions = ids.filter { $0.key % 20 == topic }.map { $0.value.first!.position }.sorted()
                #expect(positions == Array(1...10))
            }
            let statements = try groups(log, since: before)
            #expect(statements >= 1 && statements <= 200, "\(statements) groups for 400 keyed appends")
        }
    }
}

extension Result where Failure == any Error {
    init(_ body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
