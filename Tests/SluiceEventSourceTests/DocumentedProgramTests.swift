import Foundation
@testable import SluiceEventSource
import Testing

/// The build folder: where the test bundle, `sluice-tail` and the modules are.
private let buildFolder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()

/// The repository's root.
private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The Swift compiler: on `PATH`, or beside the toolchain whose runtime this process runs on.
private let swiftc: URL? = {
    let fileManager = FileManager.default
    let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
    for folder in path.split(separator: ":") {
        let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent("swiftc")
        if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    #if os(Linux)
    // The toolchain's usr/lib/swift/linux/libswiftCore.so: its usr/bin/swiftc.
    if let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8),
       let line = maps.split(separator: "\n").first(where: { $0.hasSuffix("/libswiftCore.so") }),
       let start = line.firstIndex(of: "/") {
        let candidate = URL(fileURLWithPath: String(line[start...])).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("bin/swiftc")
        if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    #endif
    return nil
}()

/// The objects a program of `SluiceEventSource` links: those `sluice-tail` links, less its own.
private func libraryObjects() throws -> [String] {
    let list = try String(contentsOf: buildFolder.appendingPathComponent("sluice-tail.product/Objects.LinkFileList"), encoding: .utf8)
    return list.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"' ")) }
        .filter { !$0.isEmpty && !$0.contains("/sluice_tail.build/") }
}

private let canCompile = swiftc != nil

/// Whether these tests run under Thread Sanitizer (`swift test --sanitize=thread`): the objects a
/// program links are then instrumented, and it is compiled with the sanitizer too.
private let underThreadSanitizer: Bool = {
    #if os(Linux)
    dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__tsan_init") != nil
    #else
    dlsym(UnsafeMutableRawPointer(bitPattern: -2), "__tsan_init") != nil   // RTLD_DEFAULT
    #endif
}()
    && FileManager.default.fileExists(atPath: buildFolder.appendingPathComponent("sluice-tail.product/Objects.LinkFileList").path)

/// The Swift code blocks of a Markdown text, or of a documentation comment's lines (`/// `).
private func swiftBlocks(in text: String) -> [String] {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line -> Substring in
        let trimmed = line.drop(while: { $0 == " " })
        return trimmed.hasPrefix("///") ? trimmed.dropFirst(3).drop(while: { $0 == " " }).isEmpty ? "" : trimmed.dropFirst(4) : line
    }
    var blocks: [String] = []
    var current: [Substring]?
    for line in lines {
        if current == nil, line == "```swift" {
            current = []
        } else if current != nil, line == "```" {
            blocks.append(current!.joined(separator: "\n") + "\n")
            current = nil
        } else {
            current?.append(line)
        }
    }
    return blocks
}

/// A documented program: the first code block of the documentation comments in `file`
/// (`EventSource.swift`: `EventSource`'s).
private func documentedProgram(in file: String = "EventSource.swift") throws -> String {
    let source = try String(contentsOf: root.appendingPathComponent("Sources/SluiceEventSource/\(file)"), encoding: .utf8)
    return try #require(swiftBlocks(in: source).first)
}

/// The URL the documented program reads.
private let documentedURL = #"URL(string: "http://localhost:8080/events/prices")!"#

/// Compiles `program` as a `main.swift` in Swift 6 mode (with the runtime's checks of actor
/// isolation) against the package's built modules; the executable.
private func compile(_ program: String) throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-program-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    let main = folder.appendingPathComponent("main.swift")
    try program.write(to: main, atomically: true, encoding: .utf8)
    let executable = folder.appendingPathComponent("program")
    var arguments = ["-swift-version", "6", "-enable-actor-data-race-checks", "-warnings-as-errors",
                     "-module-name", "Program", "-I", buildFolder.appendingPathComponent("Modules").path]
    if underThreadSanitizer { arguments.append("-sanitize=thread") }   // the objects it links are instrumented
    let sanitizerMap = buildFolder.appendingPathComponent("SluiceSanitizer.build/module.modulemap")
    if FileManager.default.fileExists(atPath: sanitizerMap.path) {
        arguments += ["-Xcc", "-fmodule-map-file=\(sanitizerMap.path)"]
    }
    arguments += [main.path] + (try libraryObjects()) + ["-o", executable.path]
    let process = Process()
    process.executableURL = swiftc
    process.arguments = arguments
    process.currentDirectoryURL = folder
    let diagnostics = Pipe()
    process.standardError = diagnostics
    process.standardOutput = diagnostics
    try process.run()
    let written = diagnostics.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        try? FileManager.default.removeItem(at: folder)
        throw CompileError(diagnostics: String(decoding: written, as: UTF8.self))
    }
    return executable
}

/// Compiles `program` (see ``compile(_:)``), runs it (see ``run(_:)``), and removes it.
private func compileAndRun(_ program: String) throws -> (reason: Process.TerminationReason, status: Int32, lines: [String]) {
    let executable = try compile(program)
    defer { try? FileManager.default.removeItem(at: executable.deletingLastPathComponent()) }
    return try run(executable)
}

private struct CompileError: Error, CustomStringConvertible {
    let diagnostics: String
    var description: String { "the program does not compile:\n\(diagnostics)" }
}

/// Runs `executable` until it exits; how it ended and the lines it printed (a pipe: the program
/// writes them all when it exits).
private func run(_ executable: URL) throws -> (reason: Process.TerminationReason, status: Int32, lines: [String]) {
    let process = Process()
    process.executableURL = executable
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationReason, process.terminationStatus,
            String(decoding: printed, as: UTF8.self).split(separator: "\n").map(String.init))
}

/// A feed for the program's two subscriptions: each one's first connection sends an event and
/// closes; the resumes after them are answered 204 (the end) once both have come. By then the
/// publisher has handed its event to the main queue (it did before its connection ended), so the
/// loop, which resumes on the main actor after its 204, ends after the publisher's event is shown.
private func feed() throws -> LoopbackServer {
    let resumes = Recorder<Int>()
    return try LoopbackServer { connection in
        if connection.request.headers["last-event-id"] == nil {
            connection.writeStreamHead()
            connection.write("retry: 10\n\nid: p-1\nevent: price\ndata: 101\n\n")
            connection.close()
        } else {
            resumes.append(connection.index)
            _ = resumes.wait(forCountBlocking: 2, limit: 30)
            connection.respond(status: 204, reason: "No Content")
        }
    }
}

@Suite("The documented program", .serialized, .timeLimit(.minutes(2)))
struct DocumentedProgramTests {
    @Test func theREADMEAndTheArticleShowTheSameProgram() throws {
        let program = try documentedProgram()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let article = try String(contentsOf: root.appendingPathComponent(
            "Sources/SluiceEventSource/SluiceEventSource.docc/ReadingALiveFeedFromSwift.md"), encoding: .utf8)
        #expect(swiftBlocks(in: readme).contains(program), "README.md does not show EventSource's program as it is")
        #expect(swiftBlocks(in: article).contains(program), "the article does not show EventSource's program as it is")
        #expect(program.contains(documentedURL))
    }

    @Test(.enabled(if: canCompile, "swiftc and the built modules are at hand"))
    func theProgramRunsAsTopLevelCodeInSwift6() throws {
        let server = try feed()
        let program = try documentedProgram().replacingOccurrences(
            of: documentedURL, with: "URL(string: \"\(server.url("/events/prices").absoluteString)\")!")
        let (reason, status, lines) = try compileAndRun(program)
        #expect(reason == .exit && status == 0, "the program ended with \(reason) \(status): \(lines)")
        #expect(lines.contains("publisher: event(id: p-1 event: price data: 101)"))
        #expect(lines.filter { $0.hasPrefix("sequence: ") } == ["sequence: event(id: p-1 event: price data: 101)"])
        #expect(server.requests.values.allSatisfy { $0.path == "/events/prices" })
    }

    /// Why the program says `receive(on:)`: without it the publisher's closures, which belong to
    /// the main actor in top-level code, are called on the connection's thread, and the runtime's
    /// check stops the program at the first event.
    @Test(.enabled(if: canCompile, "swiftc and the built modules are at hand"))
    func withoutReceiveOnTheMainActorsCheckStopsTheProgram() throws {
        let server = try feed()
        let documented = try documentedProgram()
        let receiveOn = "    .receive(on: DispatchQueue.main)\n"
        #expect(documented.contains(receiveOn))
        let program = documented.replacingOccurrences(of: receiveOn, with: "")
            .replacingOccurrences(of: documentedURL, with: "URL(string: \"\(server.url("/events/prices").absoluteString)\")!")
        let (reason, _, lines) = try compileAndRun(program)
        #expect(reason == .uncaughtSignal)
        #expect(!lines.contains { $0.hasPrefix("publisher: ") })
    }

    @Test(.enabled(if: canCompile, "swiftc and the built modules are at hand"))
    func theEventSocketProgramRuns() throws {
        let server = try LoopbackServer { connection in
            if connection.request.path.contains("lastEventId") {
                connection.respond(status: 204, reason: "No Content")
            } else {
                connection.acceptWebSocket()
                connection.write(LoopbackServer.Connection.text(#"{"id":"a-1","data":"101"}"#) + LoopbackServer.Connection.close(1000))
                _ = connection.readFrame()
                connection.close()
            }
        }
        let documentedSocketURL = #"URL(string: "ws://localhost:8080/ws/prices")!"#
        let documented = try documentedProgram(in: "EventSocket.swift")
        #expect(documented.contains(documentedSocketURL))
        let program = documented.replacingOccurrences(
            of: documentedSocketURL, with: "URL(string: \"\(server.webSocketURL("/ws/prices").absoluteString)\")!")
        let (reason, status, lines) = try compileAndRun(program)
        #expect(reason == .exit && status == 0, "the program ended with \(reason) \(status): \(lines)")
        #expect(lines == ["event(id: a-1 event: message data: 101)"])
    }

    /// The many-topics program: `EventSource.init(url:topics:…)`'s, the README's and the article's.
    private func topicsProgram() throws -> String {
        let source = try String(contentsOf: root.appendingPathComponent("Sources/SluiceEventSource/EventSource.swift"), encoding: .utf8)
        return try #require(swiftBlocks(in: source).first { $0.contains("topics: [") })
    }

    @Test func theREADMEAndTheArticleShowTheSameManyTopicsPrograms() throws {
        let program = try topicsProgram()
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        let article = try String(contentsOf: root.appendingPathComponent(
            "Sources/SluiceEventSource/SluiceEventSource.docc/ReadingALiveFeedFromSwift.md"), encoding: .utf8)
        #expect(swiftBlocks(in: readme).contains(program), "README.md does not show the many-topics program as it is")
        #expect(swiftBlocks(in: article).contains(program), "the article does not show the many-topics program as it is")
        let socketProgram = try #require(swiftBlocks(in: String(contentsOf: root.appendingPathComponent(
            "Sources/SluiceEventSource/EventSocket.swift"), encoding: .utf8)).first { $0.contains("topics: [") })
        #expect(swiftBlocks(in: article).contains(socketProgram), "the article does not show EventSocket's topics program as it is")
    }

    @Test(.enabled(if: canCompile, "swiftc and the built modules are at hand"))
    func theManyTopicsProgramRuns() throws {
        let topics = ["orders", "chat", "prices"]
        let server = try LoopbackServer { connection in
            guard connection.request.headers["last-event-id"] == nil else {
                return connection.respond(status: 204, reason: "No Content")
            }
            let check = FeedCursor.check(of: topics)
            connection.writeStreamHead()
            connection.write("retry: 10\n\nid: \(check)/e-1,e-0,0\nevent: orders\ndata: o1\n\n"
                             + "event: reset\ndata: {\"topic\":\"chat\",\"missed\":4}\n\n"
                             + "id: \(check)/e-1,e-0,3\nevent: prices\ndata: 101\n\n")
            connection.close()
        }
        let documentedTopicsURL = #"URL(string: "http://localhost:8080/events")!"#
        let documented = try topicsProgram()
        #expect(documented.contains(documentedTopicsURL))
        let program = documented.replacingOccurrences(
            of: documentedTopicsURL, with: "URL(string: \"\(server.url("/events").absoluteString)\")!")
        let (reason, status, lines) = try compileAndRun(program)
        #expect(reason == .exit && status == 0, "the program ended with \(reason) \(status): \(lines)")
        #expect(lines == ["orders e-1 o1", "chat lost events: fetch its state again", "prices e-3 101"])
        #expect(server.requests.values.map(\.path) == Array(repeating: "/events?topic=orders&topic=chat&topic=prices", count: 2))
        #expect(server.requests.values.last?.headers["last-event-id"] == "\(FeedCursor.check(of: topics))/e-1,e-0,3")
    }

    @Test(.enabled(if: canCompile, "swiftc and the built modules are at hand"))
    func theEventSocketTopicsProgramRuns() throws {
        let sent = Recorder<String>()
        let server = try LoopbackServer { connection in
            guard connection.index == 0 else { return connection.respond(status: 204, reason: "No Content") }
            func read(_ count: Int) {
                for _ in 0..<count {
                    guard let frame = connection.readFrame(), frame.opcode == 0x1 else { return }
                    sent.append(String(decoding: frame.payload, as: UTF8.self))
                }
            }
            connection.acceptWebSocket()
            connection.write(LoopbackServer.Connection.text(#"{"event":"subscribed","topic":"orders"}"#))
            read(1)
            connection.write(LoopbackServer.Connection.text(#"{"topic":"orders","id":"e-1","data":"o1"}"#))
            read(2)
            connection.write(LoopbackServer.Connection.text(#"{"event":"subscribed","topic":"prices"}"#)
                             + LoopbackServer.Connection.text(#"{"topic":"prices","id":"p-1","data":"101"}"#)
                             + LoopbackServer.Connection.close(1000))
            _ = connection.readFrame()
            connection.close()
        }
        let documentedSocketURL = #"URL(string: "ws://localhost:8080/ws")!"#
        let documented = try #require(swiftBlocks(in: String(contentsOf: root.appendingPathComponent(
            "Sources/SluiceEventSource/EventSocket.swift"), encoding: .utf8)).first { $0.contains("topics: [") })
        #expect(documented.contains(documentedSocketURL))
        let program = documented.replacingOccurrences(
            of: documentedSocketURL, with: "URL(string: \"\(server.webSocketURL("/ws").absoluteString)\")!")
        let (reason, status, lines) = try compileAndRun(program)
        #expect(reason == .exit && status == 0, "the program ended with \(reason) \(status): \(lines)")
        #expect(lines == ["orders e-1 o1", "prices p-1 101"])
        #expect(sent.values == [#"{"subscribe":"chat"}"#, #"{"subscribe":"prices"}"#, #"{"unsubscribe":"chat"}"#])
        #expect(server.requests.values.map(\.path) == ["/ws?topic=orders", "/ws?topic=orders"])
    }
}
