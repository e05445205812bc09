import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO
import ServerTestSupport
import SluiceFeed
@testable import SluicePostgres
import Testing

/// A fleet of three `sluice-feed --postgres` processes over the real PostgreSQL that `Server/test`
/// starts, and SSE clients over loopback that move between them with `Last-Event-ID`, while
/// appenders commit out of order and roll back, the instances' backends are killed, an instance is
/// killed with SIGKILL and started again, an instance is cut off from PostgreSQL (its clients
/// resume on the others) and PostgreSQL itself is restarted; a keyed append whose answer is lost
/// after its commit is retried with its key. Every client must get every committed event exactly
/// once, in order, and no rolled-back one — the test's own SSE clients and three Swift clients
/// (SluiceEventSource: two over SSE, one over WebSocket) behind a proxy that moves them.
///
/// It restarts the database, so `Server/test` runs it alone, after the other tests.
@Suite(.serialized) struct FleetTests {
    static let logger = Logger(label: "fleet-test")

    @Test(.timeLimit(.minutes(10)))
    func everyClientGetsEveryCommittedEventOnceInOrderWhateverTheFleetGoesThrough() async throws {
        let instances = NIOLockedValueBox<[Instance]>([])
        do {
            try await run(instances)
        } catch {
            for instance in instances.withLockedValue({ $0 }) { await instance.stop() }
            throw error
        }
        for instance in instances.withLockedValue({ $0 }) { await instance.stop() }
    }

    func run(_ started: NIOLockedValueBox<[Instance]>) async throws {
        let topic = "fleet\(UInt32.random(in: 0...UInt32.max))"
        // Instance C reaches PostgreSQL through a proxy that can cut it off; past 3 s without the
        // database it ends its streams.
        let partition = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
        var instances: [Instance] = []
        for name in ["A", "B", "C"] {
            instances.append(name == "C" ? try await Instance.start(name, arguments: ["--partition-limit", "3"],
                                                                  environment: ["SLUICE_PG_PORT": "\(partition.port)"])
                                         : try await Instance.start(name))
            started.withLockedValue { $0 = instances }
        }
        let ports = NIOLockedValueBox(instances.map { Optional($0.port) })

        let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(applicationName: "fleet-appender"))
        let runningClient = Task { await client.run() }
        defer { runningClient.cancel() }
        let log = PostgresEventLog(client: client, logger: Self.logger)

        // Appenders: three, each its own transactions; some begin early and commit late, some roll back.
        let appenders = Appenders(log: log, topic: topic)

        // Clients first: six of them, each moving to another instance after a few events.
        let stop = ClientsStop()
        let clients = (0..<6).map { index in FleetClient(index: index, topic: topic) }
        let clientTasks = clients.map { fleetClient in
            Task { await fleetClient.run(ports: { ports.withLockedValue { $0 } }, stop: stop) }
        }
        // Joined, not only connected: a client whose request is sent but not yet joined to its
        // instance's feed would start live after the first events (seen: a client without event 1).
        let joined = await waitUntil { clients.allSatisfy { $0.joined >= 1 } }
        #expect(joined, "not every client's stream began within a minute")

        // Three Swift clients (SluiceEventSource: its AsyncSequence, its publisher, its WebSocket
        // client) through one proxy that carries each new connection to the next instance up and
        // drops every connection every 3 s: they move between instances, resuming with
        // Last-Event-ID (`lastEventId`) by themselves. Their first request resumes from the topic's origin, so nothing is missed
        // before they join.
        let turn = NIOLockedValueBox(0)
        let mover = try await FreezingProxy {
            let live = ports.withLockedValue { $0 }.compactMap { $0 }
            return turn.withLockedValue { turn in
                turn += 1
                return live[turn % live.count]
            }
        }
        let url = URL(string: "http://127.0.0.1:\(mover.port)/events/\(topic)?lastEventId=\(EventID.origin)")!
        let socketURL = URL(string: "ws://127.0.0.1:\(mover.port)/ws/\(topic)?lastEventId=\(EventID.origin)")!
        // And one connection of two topics (the fleet's, and a side topic with a few events of its
        // own), resuming both by the cursor its ids carry.
        let topics = [topic, "\(topic)-side"]
        let origins = TopicCursor(topics: topics, positions: [.origin, .origin]).description
        let topicsURL = URL(string: "http://127.0.0.1:\(mover.port)/events?topic=\(topics[0])&topic=\(topics[1])&lastEventId=\(origins)")!
        let swiftClients = [SwiftFleetClient(name: "Swift (for await)", surface: .asyncSequence, url: url),
                            SwiftFleetClient(name: "Swift (publisher)", surface: .publisher, url: url),
                            SwiftFleetClient(name: "Swift (WebSocket)", surface: .socket, url: socketURL),
                            SwiftFleetClient(name: "Swift (two topics on one connection)", surface: .asyncSequence, url: topicsURL,
                                             topics: topics)]
        var sideEvents: [String] = []
        for i in 1...5 {
            _ = try await log.append("side \(i)", to: topics[1])
            sideEvents.append("side \(i)")
        }
        let swiftTasks = swiftClients.map { swiftClient in Task { await swiftClient.run(stop: stop) } }
        // Every 15 s, where everyone stands: a run that stalls says where.
        let progress = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(15))
                Self.say("fleet: \(appenders.committed) committed; clients have \(clients.map { String($0.received.count) }.joined(separator: ", ")); "
                         + "Swift clients \(swiftClients.map { String($0.received.count) }.joined(separator: ", "))")
            }
        }
        defer { progress.cancel() }
        let moving = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .seconds(3))
                mover.dropAll()
            }
        }

        let appending = (0..<3).map { index in Task { await appenders.run(index) } }

        // What a fleet goes through, each step when enough has been committed.
        try await appenders.waitForCommitted(100)
        Self.say("fleet: terminated \(try await Self.terminateInstancesBackends()) backends of the instances")
        try await appenders.waitForCommitted(250)
        // A client with an id from the future (one the log never had: a forged id, or one from a
        // database that lost it): told `reset` at once, then every event from there, moving as the
        // others do.
        let epoch = try #require(clients[0].received.first?.epoch)
        let future = FleetClient(index: 6, topic: topic, from: "\(epoch)-1000000")
        let futureTask = Task { await future.run(ports: { ports.withLockedValue { $0 } }, stop: stop) }
        #expect(await waitUntil { future.resets == 1 })
        let futureFrom = appenders.committed
        // A keyed append whose connection dies right after its commit (its answer lost: outcome
        // unknown), retried with its key on another connection: one event.
        let retried = try await Self.appendLosingTheAnswerThenRetry("keyed retried", to: topic, key: "\(topic)-keyed", log: log)
        Self.say("fleet: a keyed append whose answer was lost, retried: \(retried)")
        await instances[1].kill()
        ports.withLockedValue { $0[1] = nil }
        Self.say("fleet: instance B killed (SIGKILL)")
        try await appenders.waitForCommitted(350)
        instances[1] = try await Instance.start("B")
        started.withLockedValue { $0 = instances }
        ports.withLockedValue { $0[1] = instances[1].port }
        Self.say("fleet: instance B started again on port \(instances[1].port)")
        try await appenders.waitForCommitted(500)
        // Instance C cut off from PostgreSQL: it says it is not ready, and past its limit it ends
        // its streams (a client of its own sees its stream end), so that its clients resume on
        // the others. Healed, it is ready again.
        let onC = try await SSEClient.connect(port: instances[2].port, path: "/events/\(topic)")
        #expect(await onC.wait { $0.contains { $0.retry != nil } }, "a client of instance C did not join")
        partition.partition()
        Self.say("fleet: instance C cut off from PostgreSQL")
        #expect(await waitUntilAsync { try await get("http://127.0.0.1:\(instances[2].port)/ready").status == 503 },
                "instance C stayed ready without its database")
        #expect(await waitUntil { onC.ended }, "instance C kept its streams open without its database")
        await onC.close()
        Self.say("fleet: instance C not ready, its streams ended")
        try await appenders.waitForCommitted(appenders.committed + 100)
        partition.heal()
        #expect(await waitUntilAsync(timeout: 120) { try await get("http://127.0.0.1:\(instances[2].port)/ready").status == 200 },
                "instance C was not ready again once it could reach its database")
        Self.say("fleet: instance C reaches PostgreSQL again, ready")
        try await appenders.waitForCommitted(appenders.committed + 100)
        let restart = try TestDatabase.setting("SLUICE_PG_CTL").split(separator: " ").map(String.init) + ["restart", "-m", "fast"]
        #expect(try await runCommand(restart) == 0, "pg_ctl restart failed")
        Self.say("fleet: PostgreSQL restarted")
        try await appenders.waitForCommitted(800)
        for i in 6...10 {   // the side topic again, after the restarts (an append that fails is tried again)
            var appended = false
            for _ in 0..<50 where !appended {
                appended = (try? await log.append("side \(i)", to: topics[1], idempotencyKey: "\(topics[1])-\(i)")) != nil
                if !appended { try await Task.sleep(for: .milliseconds(200)) }
            }
            #expect(appended, "the side topic's event \(i) could not be appended")
            sideEvents.append("side \(i)")
        }
        Self.say("fleet: terminated \(try await Self.terminateInstancesBackends()) backends of the instances again")
        // 1,000 topics never published, opened by clients that leave at once: nothing is written.
        let opened = await Self.openNeverPublishedTopics(1_000, port: instances[0].port, prefix: "\(topic)-never-")
        #expect(opened == 1_000, "only \(opened) of 1,000 never-published topics' streams began")
        #expect(try await TestDatabase.run("SELECT count(*)::text FROM sluice_log_topics WHERE topic LIKE '\(topic)-never-%'") == ["0"])
        Self.say("fleet: \(opened) never-published topics opened, no row written")
        try await appenders.waitForCommitted(appenders.committed + 150)
        appenders.finish()
        Self.say("fleet: appenders stopping")
        for task in appending { await task.value }
        Self.say("fleet: appenders stopped")

        // The truth: what the table holds for the topic.
        let truth = try await TestDatabase.run(
            "SELECT payload FROM sluice_log_events e WHERE topic = '\(topic)' ORDER BY e.position")
        let positions = try await TestDatabase.run(
            "SELECT position::text FROM sluice_log_events e WHERE topic = '\(topic)' ORDER BY e.position")
        #expect(positions == (1...truth.count).map(String.init), "the log has holes")
        #expect(truth.filter { $0 == "keyed retried" }.count == 1, "the keyed append retried after its lost answer is not one event")
        #expect(truth.indices.contains(Int(retried.position) - 1) && truth[Int(retried.position) - 1] == "keyed retried")
        Self.say("fleet: \(truth.count) events committed, \(appenders.rolledBack) transactions rolled back, \(appenders.failed) appends failed")
        stop.set(last: UInt64(truth.count))
        moving.cancel()
        for task in clientTasks { await task.value }
        await futureTask.value
        Self.say("fleet: the SSE clients are done")
        for task in swiftTasks { await task.value }
        Self.say("fleet: the Swift clients are done")
        await mover.close()
        await partition.close()
        let fromFuture = future.received.map(\.position)
        Self.say("fleet: the client from the future: reset \(future.resets) time(s), then \(fromFuture.count) events "
                 + "(\(fromFuture.first ?? 0)…\(fromFuture.last ?? 0)) over \(future.connections) connections")
        #expect(future.resets == 1)
        #expect(fromFuture.last == UInt64(truth.count) && fromFuture == Array((fromFuture.first ?? 1)...UInt64(truth.count)),
                "the client from the future: positions \(Self.describeDifference(fromFuture, truth.count))")
        #expect((fromFuture.first ?? 0) <= UInt64(futureFrom) + 1, "the client from the future skipped events after its reset")
        #expect(future.received.map(\.payload) == Array(truth.suffix(fromFuture.count)))

        for fleetClient in clients {
            let got = fleetClient.received
            Self.say("fleet: client \(fleetClient.index): \(got.count) events over \(fleetClient.connections) connections "
                  + "(instances \(fleetClient.visited.sorted().map(String.init).joined(separator: ","))), resets \(fleetClient.resets)")
            #expect(fleetClient.resets == 0, "client \(fleetClient.index) was reset")
            #expect(got.map(\.position) == (1...UInt64(truth.count)).map { $0 },
                    "client \(fleetClient.index): positions \(Self.describeDifference(got.map(\.position), truth.count))")
            #expect(got.map(\.payload) == truth, "client \(fleetClient.index) got other payloads")
            #expect(Set(got.map(\.epoch)).count == 1, "client \(fleetClient.index) saw several epochs")
            #expect(!got.contains { $0.payload.hasPrefix("rolled-back") })
            #expect(fleetClient.connections >= 3, "client \(fleetClient.index) did not move")
        }
        #expect(clients.contains { $0.ports.contains(instances[1].port) }, "no client resumed on the restarted instance")
        let targets = mover.connectionTargets
        Self.say("fleet: the Swift clients' proxy carried \(targets.count) connections to \(Set(targets).count) instances")
        for swiftClient in swiftClients {
            let got = swiftClient.received
            Self.say("fleet: \(swiftClient.name): \(got.count) events, resets \(swiftClient.resets)")
            #expect(swiftClient.ended == "", "\(swiftClient.name) ended by itself: \(swiftClient.ended)")
            #expect(swiftClient.resets == 0, "\(swiftClient.name) was reset")
            #expect(got.map(\.position) == (1...UInt64(truth.count)).map { $0 },
                    "\(swiftClient.name): positions \(Self.describeDifference(got.map(\.position), truth.count))")
            #expect(got.map(\.payload) == truth, "\(swiftClient.name) got other payloads")
            #expect(Set(got.map(\.epoch)).count == 1, "\(swiftClient.name) saw several epochs")
            if swiftClient.topics != nil {
                let side = swiftClient.side[topics[1]] ?? []
                Self.say("fleet: \(swiftClient.name): \(side.count) events of the side topic")
                #expect(side.map(\.payload) == sideEvents && side.map(\.position) == (1...UInt64(sideEvents.count)).map { $0 },
                        "\(swiftClient.name): the side topic's events \(side.map(\.payload))")
            }
        }
        #expect(targets.count >= 8 && Set(targets).count >= 3, "the Swift clients were not moved between the instances: \(targets)")
        if clients.contains(where: { $0.received.count != truth.count }) {   // what the instances said
            for instance in instances {
                let text = (try? String(contentsOf: instance.output, encoding: .utf8)) ?? ""
                Self.say("fleet: instance \(instance.name)'s log:\n" + text.split(separator: "\n").suffix(30).joined(separator: "\n"))
            }
        }
    }

    /// Appends `payload` under `key` through a proxy that loses the answer once the statement has
    /// reached PostgreSQL (it commits): the append throws `outcomeUnknown`. Then appends it again
    /// with the same key on `log`: the id that retry returns.
    static func appendLosingTheAnswerThenRetry(_ payload: String, to topic: String, key: String,
                                               log: PostgresEventLog) async throws -> EventID {
        let proxy = try await FreezingProxy(target: Int(try TestDatabase.setting("SLUICE_PG_PORT"))!)
        let client = PostgresClient(configuration: try TestDatabase.clientConfiguration(applicationName: "fleet-keyed", port: proxy.port))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let impatient = PostgresEventLog(client: client, timeout: .seconds(5), makesTables: false)
        try await client.query("SELECT 1", logger: logger)   // a connection open before the answers are lost
        proxy.freezeAnswers()
        do {
            try await impatient.append(payload, to: topic, idempotencyKey: key)
            Issue.record("an append whose answer was lost returned")
        } catch let error as PostgresEventLogError {
            #expect(error.kind == .outcomeUnknown, "an append whose answer was lost: \(error)")
        }
        await proxy.close()
        return try await log.append(payload, to: topic, idempotencyKey: key)
    }

    /// Opens `count` topics named `prefix<n>`, never published, on the instance at `port`, eight at
    /// a time, each client leaving once its stream began (a topic answered 503 is opened again);
    /// how many began.
    static func openNeverPublishedTopics(_ count: Int, port: Int, prefix: String) async -> Int {
        await withTaskGroup(of: Bool.self) { group in
            var began = 0
            for n in 0..<count {
                if n >= 8, await group.next() == true { began += 1 }
                group.addTask {
                    // A 503 (the log unreachable for a moment: its backends were just terminated,
                    // and a query on a dead connection waits out the log's limit, 10 s, before
                    // the next one) is tried again after its Retry-After, as a client would.
                    for _ in 1...5 {
                        guard let client = try? await SSEClient.connect(port: port, path: "/events/\(prefix)\(n)") else { return false }
                        let answered = await client.wait(timeout: 90) { frames in
                            frames.contains { $0.retry != nil } || (client.status.map { $0.code != 200 } ?? false)
                        }
                        let (began, again) = (answered && client.status?.code == 200, client.status?.code == 503)
                        await client.close()
                        if began || !again { return began }
                        try? await Task.sleep(for: .seconds(1))
                    }
                    return false
                }
            }
            for await ok in group where ok { began += 1 }
            return began
        }
    }

    /// Kills every backend but the test's own (the instances' listeners, readers and pools).
    static func terminateInstancesBackends() async throws -> Int {
        try await TestDatabase.run("""
            SELECT pg_terminate_backend(pid)::text FROM pg_stat_activity
            WHERE datname = current_database() AND pid <> pg_backend_pid() AND application_name NOT LIKE 'fleet-%'
            """).count
    }

    /// A line of progress with the time of day (to read beside the instances' logs), at once
    /// (standard error is not buffered).
    static func say(_ line: String) {
        let time = Date().formatted(.iso8601.time(includingFractionalSeconds: false))
        FileHandle.standardError.write(Data(("\(time) " + line + "\n").utf8))
    }

    static func describeDifference(_ positions: [UInt64], _ count: Int) -> String {
        var missing: [UInt64] = []
        var twice: [UInt64] = []
        var seen = Set<UInt64>()
        for position in positions where !seen.insert(position).inserted { twice.append(position) }
        for position in 1...UInt64(max(count, 1)) where !seen.contains(position) { missing.append(position) }
        return "missing \(missing.prefix(20)), twice \(twice.prefix(20)), \(positions.count) received"
    }
}

/// One `sluice-feed --postgres` process, built beside the tests. Started and waited for with
/// `posix_spawn` and `waitpid` (Foundation's `Process.waitUntilExit` was seen to miss exits here).
struct Instance: Sendable {
    let name: String
    let pid: pid_t
    let port: Int
    /// Its standard output and error.
    let output: URL

    /// Starts `sluice-feed --postgres` named `name`, with `arguments` after those and `environment`'s
    /// variables over this process's.
    static func start(_ name: String, arguments: [String] = [], environment: [String: String] = [:]) async throws -> Instance {
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("sluice-feed").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("fleet-\(name)-\(UUID().uuidString).log")
        let pid = try spawn([binary, "--port", "0", "--instance", name, "--postgres"] + arguments, output: output.path,
                            environment: environment)
        var port: Int?
        let started = await waitUntil(timeout: 120) {
            guard let text = try? String(contentsOf: output, encoding: .utf8) else { return false }
            guard text.contains("listening for the event log"),
                  let range = text.range(of: #"serving on http://127\.0\.0\.1:(\d+)/"#, options: .regularExpression) else {
                return waitpid(pid, nil, WNOHANG) != 0   // it ended
            }
            port = Int(text[range].split(separator: ":").last!.dropLast())
            return true
        }
        guard started, let port else {
            Foundation.kill(pid, SIGKILL)
            throw FleetFailure("instance \(name) did not start: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        }
        return Instance(name: name, pid: pid, port: port, output: output)
    }

    /// SIGKILL, and its exit reaped.
    func kill() async {
        Foundation.kill(pid, SIGKILL)
        _ = await exitStatus(of: pid)
    }

    /// SIGTERM (graceful shutdown); SIGKILL if it has not ended after 20 s.
    func stop() async {
        Foundation.kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + .seconds(20)
        while waitpid(pid, nil, WNOHANG) == 0 {
            if ContinuousClock.now > deadline { await kill(); return }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Starts `arguments` with standard output (and error) to the file at `output` (`/dev/null` if nil),
/// in this process's environment with `environment`'s variables set over it.
func spawn(_ arguments: [String], output: String?, environment: [String: String] = [:]) throws -> pid_t {
    var pid: pid_t = 0
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of the test's: a socket it closes must close (the proxy's, a client's), not
    // stay open in an instance or a PostgreSQL server it started. (glibc's
    // `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not declare.)
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let closeFrom = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")
    else { throw FleetFailure("glibc has no posix_spawn_file_actions_addclosefrom_np") }
    _ = unsafeBitCast(closeFrom, to: CloseFrom.self)(&actions, 3)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var variables = ProcessInfo.processInfo.environment
    variables.merge(environment) { $1 }
    let envp = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { envp.forEach { free($0) } }
    let spawned = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
    guard spawned == 0 else { throw FleetFailure("could not run \(arguments[0]): \(spawned)") }
    return pid
}

/// Waits (without blocking a thread) for `pid` to end; its exit status.
func exitStatus(of pid: pid_t) async -> Int32 {
    var status: Int32 = 0
    while waitpid(pid, &status, WNOHANG) == 0 { try? await Task.sleep(for: .milliseconds(20)) }
    return (status >> 8) & 0xff
}

struct FleetFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Appenders in transactions of their own: some begin long before they append (committing after
/// others that began later), some roll back.
final class Appenders: Sendable {
    let log: PostgresEventLog
    let topic: String
    private let state = NIOLockedValueBox((committed: 0, rolledBack: 0, failed: 0, done: false, next: 0))

    init(log: PostgresEventLog, topic: String) {
        self.log = log
        self.topic = topic
    }

    var rolledBack: Int { state.withLockedValue { $0.rolledBack } }
    var committed: Int { state.withLockedValue { $0.committed } }
    var failed: Int { state.withLockedValue { $0.failed } }
    func finish() { state.withLockedValue { $0.done = true } }

    struct RollBack: Error {}

    func run(_ index: Int) async {
        while true {
            let (number, done) = state.withLockedValue { state in
                state.next += 1
                return (state.next, state.done)
            }
            if done { return }
            let rollBack = number % 9 == 0
            do {
                // A transaction that gets no answer is given up after 5 s: its outcome is then
                // unknown, and the table says what was committed. (PostgresNIO 1.33 leaves a query
                // unanswered for good, in about one run in two, when PostgreSQL's restart closes its
                // connection under it; the appenders of a run ever wait on nothing else.)
                let (log, topic) = (log, topic)
                try await withTimeout(.seconds(5)) {
                    try await log.client.withTransaction(logger: FleetTests.logger) { connection in
                        try await connection.query("SELECT 1", logger: FleetTests.logger)
                        if number % 3 == 0 { try await Task.sleep(for: .milliseconds(Int.random(in: 1...15))) }   // begun early
                        try await log.append(rollBack ? "rolled-back \(number)" : "event \(number) by \(index)", to: topic, on: connection)
                        if rollBack { throw RollBack() }
                    }
                }
                state.withLockedValue { $0.committed += 1 }
            } catch {
                if error is PostgresEventLogError { FleetTests.say("fleet: appender \(index): \(error) (transaction \(number) given up)") }
                state.withLockedValue { state in
                    if rollBack { state.rolledBack += 1 } else { state.failed += 1 }
                }
                if !rollBack { try? await Task.sleep(for: .milliseconds(50)) }   // the database may be restarting
            }
            try? await Task.sleep(for: .milliseconds(Int.random(in: 2...8)))
        }
    }

    func waitForCommitted(_ count: Int) async throws {
        let reached = await waitUntil(timeout: 180) { state.withLockedValue { $0.committed } >= count }
        if !reached { throw FleetFailure("only \(state.withLockedValue { $0.committed }) events committed, waiting for \(count)") }
    }
}

/// When the clients stop: once they have every committed event (known when the appenders are
/// done), or 90 s after that (a fleet that has not delivered everything by then has lost
/// something), and in any case after 8 minutes.
final class ClientsStop: Sendable {
    private let state = NIOLockedValueBox<(last: UInt64?, deadline: ContinuousClock.Instant)>((nil, .now + .seconds(480)))

    /// The last position, once the appenders are done.
    var last: UInt64? { state.withLockedValue { $0.last } }
    var deadline: ContinuousClock.Instant { state.withLockedValue { $0.deadline } }

    func set(last: UInt64) {
        state.withLockedValue { state in
            state.last = last
            state.deadline = min(state.deadline, .now + .seconds(90))
        }
    }
}

/// One SSE client of the fleet: reads from an instance, moves to the next one after a few events
/// (or when its connection ends) with `Last-Event-ID`, until it has every event.
final class FleetClient: Sendable {
    struct Received: Sendable {
        let epoch: String
        let position: UInt64
        let payload: String
    }

    let index: Int
    let topic: String
    /// The id its first connection resumes after (`nil`: a new client).
    let from: String?
    private let state = NIOLockedValueBox((received: [Received](), connections: 0, visited: Set<Int>(), ports: Set<Int>(),
                                           resets: 0, joined: 0))

    init(index: Int, topic: String, from: String? = nil) {
        self.index = index
        self.topic = topic
        self.from = from
    }

    var received: [Received] { state.withLockedValue { $0.received } }
    var connections: Int { state.withLockedValue { $0.connections } }
    /// Connections whose stream began (its `retry:` came: the server had joined it to the feed).
    var joined: Int { state.withLockedValue { $0.joined } }
    var visited: Set<Int> { state.withLockedValue { $0.visited } }
    var resets: Int { state.withLockedValue { $0.resets } }
    var ports: Set<Int> { state.withLockedValue { $0.ports } }

    func run(ports: @Sendable () -> [Int?], stop: ClientsStop) async {
        var instance = index % 3
        while ContinuousClock.now < stop.deadline {
            let have = received
            if let last = stop.last, let position = have.last?.position, position >= last { return }
            guard let port = ports()[instance] else {   // down: the next one
                instance = (instance + 1) % 3
                continue
            }
            let lastID = have.last.map { EventID(epoch: $0.epoch, position: $0.position).description } ?? from
            guard let client = try? await SSEClient.connect(port: port, path: "/events/\(topic)", lastEventID: lastID) else {
                try? await Task.sleep(for: .milliseconds(50))
                instance = (instance + 1) % 3
                continue
            }
            state.withLockedValue { state in
                state.connections += 1
                state.visited.insert(instance)
                state.ports.insert(port)
            }
            let stay = Int.random(in: 15...45)   // events before moving on
            var seen = 0
            var taken = 0
            while true {
                let frames = client.frames
                for frame in frames[seen...] {
                    if frame.retry != nil { state.withLockedValue { $0.joined += 1 } }
                    if frame.event == "reset" { state.withLockedValue { $0.resets += 1 } }
                    guard frame.isEvent, let id = frame.eventID else { continue }
                    state.withLockedValue {
                        $0.received.append(Received(epoch: id.epoch, position: id.position, payload: frame.data.joined(separator: "\n")))
                    }
                    taken += 1
                }
                seen = frames.count
                if taken >= stay || client.ended || ContinuousClock.now >= stop.deadline { break }
                if let last = stop.last, let position = received.last?.position, position >= last { break }
                try? await Task.sleep(for: .milliseconds(5))
            }
            await client.close()
            instance = (instance + 1) % 3
        }
    }
}

/// Runs a command (its output discarded) and returns its exit status.
func runCommand(_ arguments: [String]) async throws -> Int32 {
    await exitStatus(of: try spawn(arguments, output: nil))
}
