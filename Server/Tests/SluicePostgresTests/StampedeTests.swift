import Foundation
import NIOConcurrencyHelpers
import ServerTestSupport
import Testing

/// A stampede and a rolling restart, small: three `sluice-feed --postgres` processes (as FleetTests
/// starts them) and `sluice-stampede` (the load client of `bench/stampede`, built beside the tests),
/// which plays browsers' EventSources — after the server's `retry:`, another instance (an instance's
/// crowd split over the others, as a load balancer would), with `Last-Event-ID` — and counts every
/// event per client.
///
/// - 1,000 clients on A, events posted to B; A is killed with SIGKILL: every client comes back on B
///   or C, with nothing lost, nothing twice, no reset.
/// - 500 clients on A; A, B and C restarted one after the other with SIGTERM (each drains: its
///   streams get `event: shutdown` and end), while events are posted: the same.
///
/// Under Thread Sanitizer (`TSAN_OPTIONS` set, as `SANITIZE=thread ./test` sets it) with 300 clients
/// each: the processes are many times slower. It runs beside no other suite (`./test` runs it after
/// them, as FleetTests): its thousands of connections and three processes take both cores.
@Suite(.serialized) struct StampedeTests {
    static let sanitized = ProcessInfo.processInfo.environment["TSAN_OPTIONS"] != nil

    @Test(.timeLimit(.minutes(3)))
    func theClientsOfAKilledInstanceResumeOnTheOthersWithNothingLostOrTwice() async throws {
        let clients = Self.sanitized ? 300 : 1_000
        try await withInstances { instances in
            let run = try await Self.stampede(
                ["--mode", "kill", "--clients", "\(clients)", "--kill-pid", "\(instances.withLockedValue { $0 }[0].pid)",
                 "--rate", "4", "--warmup", "8", "--after-kill", "6", "--tail", "2"],
                instances: instances)
            _ = await exitStatus(of: instances.withLockedValue { $0 }[0].pid)   // killed by sluice-stampede: reaped
            try Self.check(run, clients: clients)
            let back = try #require(run.report["kill_to_back_ms"] as? [String: Any])
            FleetTests.say("stampede: kill → back p99 \(back["p99"] ?? "?") ms; replay \(run.report["replay_ms"] ?? "?")")
        }
    }

    @Test(.timeLimit(.minutes(3)))
    func aRollingRestartUnderLoadLosesNothingAndDuplicatesNothing() async throws {
        let clients = Self.sanitized ? 300 : 500
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stampede-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let ready = folder.appendingPathComponent("ready").path
        let stop = folder.appendingPathComponent("stop").path
        try await withInstances { instances in
            let restarts = Task {
                guard await waitUntil(timeout: 120, { FileManager.default.fileExists(atPath: ready) }) else { return }
                for index in 0..<3 {
                    let instance = instances.withLockedValue { $0 }[index]
                    await instance.stop()
                    let again = try await Instance.start(instance.name, arguments: ["--port", "\(instance.port)"])
                    instances.withLockedValue { $0[index] = again }
                    FleetTests.say("stampede: instance \(instance.name) restarted")
                    try await Task.sleep(for: .seconds(3))
                }
                _ = FileManager.default.createFile(atPath: stop, contents: Data())
            }
            let run: Run
            do {
                run = try await Self.stampede(
                    ["--mode", "rolling", "--clients", "\(clients)", "--rate", "4", "--warmup", "8", "--tail", "2",
                     "--ready-file", ready, "--stop-file", stop],
                    instances: instances)
            } catch {
                restarts.cancel()
                throw error
            }
            try await restarts.value
            try Self.check(run, clients: clients)
            // Every client was moved at least once, told `shutdown` (three times when each restart
            // finds it where the previous one sent it; a client still waiting to reconnect when its
            // next instance stops skips one).
            #expect(run.report["shutdown_events"] as? Int ?? 0 >= clients, "\(run.report["shutdown_events"] ?? "?") shutdown events")
            FleetTests.say("stampede: rolling: longest gap per client \(run.report["gap_ms"] ?? "?") ms, "
                           + "\(run.report["clients_waited_full_retry"] ?? "?") clients waited a full retry")
        }
    }

    /// What one run of sluice-stampede printed: its JSON line, its exit status, its output.
    struct Run {
        let report: [String: Any]
        let status: Int32
        let output: String
    }

    /// Runs sluice-stampede against `instances` with `arguments` (a topic of its own); its report.
    static func stampede(_ arguments: [String], instances: NIOLockedValueBox<[Instance]>) async throws -> Run {
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            .deletingLastPathComponent().appendingPathComponent("sluice-stampede").path
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("stampede-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: output) }
        let ports = instances.withLockedValue { $0 }.map { String($0.port) }.joined(separator: ",")
        let topic = "stampede\(UInt32.random(in: 0...UInt32.max))"
        let pid = try spawn([binary, "--ports", ports, "--topic", topic, "--deadline", "120"] + arguments, output: output.path)
        let status = await exitStatus(of: pid)
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        FleetTests.say("stampede: sluice-stampede \(arguments.prefix(2).joined(separator: " ")) exited \(status):\n"
                       + text.split(separator: "\n").filter { !$0.hasPrefix("{") }.joined(separator: "\n"))
        guard let line = text.split(separator: "\n").last(where: { $0.hasPrefix("{") }),
              let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
            throw FleetFailure("sluice-stampede printed no report (exit \(status)):\n\(text)")
        }
        return Run(report: report, status: status, output: text)
    }

    /// Every client back, holding every appended event, none lost, none twice, no reset.
    static func check(_ run: Run, clients: Int) throws {
        let report = run.report
        #expect(run.status == 0, "sluice-stampede exited \(run.status)")
        #expect(report["timed_out"] as? Bool == false, "the run reached its deadline")
        #expect(report["lost"] as? Int == 0, "\(report["lost"] ?? "?") events lost (\(report["clients_with_loss"] ?? "?") clients)")
        #expect(report["duplicated"] as? Int == 0, "\(report["duplicated"] ?? "?") events twice")
        #expect(report["resets"] as? Int == 0, "\(report["resets"] ?? "?") resets")
        #expect(report["other_epoch_events"] as? Int == 0)
        #expect(report["clients_back"] as? Int == clients, "\(report["clients_back"] ?? "?") of \(clients) clients back")
        #expect(report["clients_holding_everything"] as? Int == clients,
                "\(report["clients_holding_everything"] ?? "?") of \(clients) clients hold every appended event")
        #expect(report["appended"] as? Int ?? 0 >= 20, "only \(report["appended"] ?? "?") events appended")
    }

    /// Three instances, A, B, C, started for `body` and stopped after it (those it killed reaped).
    func withInstances(_ body: (NIOLockedValueBox<[Instance]>) async throws -> Void) async throws {
        let instances = NIOLockedValueBox<[Instance]>([])
        do {
            for name in ["A", "B", "C"] {
                let instance = try await Instance.start(name)
                instances.withLockedValue { $0.append(instance) }
            }
            try await body(instances)
        } catch {
            for instance in instances.withLockedValue({ $0 }) { await instance.stop() }
            throw error
        }
        for instance in instances.withLockedValue({ $0 }) { await instance.stop() }
    }
}
