import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
@testable import SluiceEventSource
import Testing
#if canImport(Darwin) && canImport(Combine)
import Combine
#else
import Sluice
#endif

/// Which proxy the TLS options name, read from the environment as curl reads it (no network).
@Suite("TLS options")
struct TLSOptionsTests {
    @Test func theEnvironmentsProxyIsUsedUnlessNoProxyListsTheHost() {
        let proxy = EventSource.TLSOptions.Proxy.environment
        let environment = ["https_proxy": "http://user:p%40ss@proxy.example:3128", "no_proxy": "localhost, .internal,feed.test"]
        let through = proxy.resolve(forHost: "feed.example", environment: environment)
        #expect(through?.host == "proxy.example")
        #expect(through?.port == 3128)
        #expect(through?.authorization == "Basic " + Data("user:p@ss".utf8).base64EncodedString())
        for host in ["localhost", "a.internal", "internal", "feed.test", "x.feed.test"] {
            #expect(proxy.resolve(forHost: host, environment: environment) == nil, "\(host)")
        }
        #expect(proxy.resolve(forHost: "feed.example", environment: ["HTTPS_PROXY": "proxy.example"])?.port == 1080)
        #expect(proxy.resolve(forHost: "feed.example", environment: ["https_proxy": "http://p:1", "no_proxy": "*"]) == nil)
        #expect(proxy.resolve(forHost: "feed.example", environment: ["http_proxy": "http://p:1"]) == nil)
        #expect(EventSource.TLSOptions.Proxy.none.resolve(forHost: "feed.example", environment: environment) == nil)
        #expect(EventSource.TLSOptions.Proxy.url(URL(string: "http://10.0.0.1:8080")!)
            .resolve(forHost: "localhost", environment: environment)?.port == 8080)
    }

    @Test func theDefaultsAreTheSystemsRootsNoCertificateAndTheEnvironmentsProxy() {
        let options = EventSource.Configuration().tls
        #expect(options.trustRoots.isEmpty)
        #expect(options.trustsSystemRoots)
        #expect(options.clientCertificate == nil)
        #expect(options.proxy == .environment)
        #expect(options.isDefault)
        #expect(!EventSource.TLSOptions(trustRoots: [.file("/ca.pem")]).isDefault)
    }

    #if !TLS || canImport(Darwin)
    /// Without the trait (or on Apple's systems, where URLSession makes the connection) options
    /// other than the defaults cannot be applied: the stream fails at once rather than trust
    /// otherwise than it was told.
    @Test func optionsNoStackHereAppliesFailTheStreamAtOnce() async throws {
        var configuration = EventSource.Configuration()
        configuration.tls.trustRoots = [.file("/etc/feed/ca.pem")]
        let source = RecordingSubscriber()
        EventSource(url: URL(string: "https://127.0.0.1:9/events")!, configuration: configuration).subscribe(source)
        let socket = RecordingSubscriber()
        EventSocket(url: URL(string: "wss://127.0.0.1:9/ws")!, configuration: configuration).subscribe(socket)
        #expect(await source.completions.wait(forCount: 1))
        #expect(await socket.completions.wait(forCount: 1))
        #expect(source.completions.values == [.failure(.tlsOptionsUnavailable)])
        #expect(socket.completions.values == [.failure(.tlsOptionsUnavailable)])
    }
    #endif
}

#if TLS && !canImport(Darwin)

private typealias Frames = LoopbackServer.Connection

/// `id: e-<n>\ndata: event <n>\n\n`.
private func frame(_ n: Int) -> String { "id: e-\(n)\ndata: event \(n)\n\n" }

/// The number in a `Last-Event-ID` of `e-<n>` (0 if none).
private func after(_ id: String?) -> Int { Int(id?.dropFirst(2) ?? "0") ?? 0 }

/// A configuration that reconnects at once and trusts the run's CA (only: the system's roots
/// are left out, so that nothing else could make a connection pass).
private func trusting(_ certificates: TestCertificates, client: Bool = false, maximumAttempts: Int? = nil,
                      proxy: EventSource.TLSOptions.Proxy = .none) -> EventSource.Configuration {
    var configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50),
                                                  maximumAttempts: maximumAttempts)
    configuration.tls = EventSource.TLSOptions(
        trustRoots: [.file(certificates.caFile)], trustsSystemRoots: false,
        clientCertificate: client ? .init(certificateChain: .file(certificates.clientFile), privateKey: .file(certificates.clientKeyFile)) : nil,
        proxy: proxy)
    return configuration
}

/// `https:` and `wss:` through the trait `TLS`: the module's own HTTP and WebSocket client over
/// SwiftNIO SSL, against a TLS server on loopback whose certificate the run made. Every wait is
/// for an event, with a generous limit.
@Suite("TLS", .serialized, .timeLimit(.minutes(2)))
struct TLSTests {
    let certificates: TestCertificates

    init() throws {
        certificates = try TestCertificates.shared.get()
    }

    /// A server that drops the first connection mid-event, then resumes after `Last-Event-ID`.
    private func droppingFeed() throws -> TLSFront {
        try TLSFront(LoopbackServer { connection in
            connection.writeStreamHead()
            if connection.index == 0 {
                connection.write("retry: 10\n\n" + frame(1) + frame(2) + "id: e-3\ndata: thi")
                connection.close()   // mid-event
            } else {
                let last = after(connection.request.headers["last-event-id"])
                connection.write((last + 1...last + 2).map(frame).joined())
                connection.waitForClientClose()
            }
        })
    }

    @Test func httpsPublisherReceivesEventsAndResumesAfterADropWithNothingLost() async throws {
        let front = try droppingFeed()
        defer { front.stop() }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: front.url(), configuration: trusting(certificates), onConnectionEvent: { reports.append($0) })
            .subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 4))
        #expect(subscriber.data == ["event 1", "event 2", "event 3", "event 4"])
        let requests = front.behind.requests.values
        #expect(requests.count == 2)
        #expect(requests.first?.headers["last-event-id"] == nil)
        #expect(requests.last?.headers["last-event-id"] == "e-2")
        #expect(requests.last?.headers["accept"] == "text/event-stream")
        #expect(!reports.values.contains { if case .attemptFailed = $0 { true } else { false } }, "\(reports.values)")
        subscriber.cancel()
    }

    @Test func httpsAsAnAsyncSequenceResumesAfterADropWithNothingLost() async throws {
        let front = try droppingFeed()
        defer { front.stop() }
        var data: [String] = []
        for try await event in EventSource(url: front.url(), configuration: trusting(certificates)).events {
            if let message = event.message { data.append(message.data) }
            if data.count == 4 { break }
        }
        #expect(data == ["event 1", "event 2", "event 3", "event 4"])
        #expect(front.behind.requests.values.last?.headers["last-event-id"] == "e-2")
    }

    /// A WebSocket feed that closes the first connection after two events, cuts the second
    /// mid-frame, then resumes after `lastEventId`.
    private func droppingSocket() throws -> TLSFront {
        try TLSFront(LoopbackServer { connection in
            connection.acceptWebSocket()
            switch connection.index {
            case 0:
                connection.write(Frames.event(1) + Frames.event(2) + Frames.close(1000))
                _ = connection.readFrame()
                connection.close()
            case 1:
                connection.write(Frames.event(3) + Array(Frames.event(4).prefix(9)))
                connection.close()
            default:
                let last = after(connection.lastEventId)
                connection.write(Frames.event(last + 1) + Frames.event(last + 2))
                _ = connection.waitForClientClose()
            }
        })
    }

    @Test func wssPublisherReceivesEventsAndResumesAfterADropWithNothingLost() async throws {
        let front = try droppingSocket()
        defer { front.stop() }
        let subscriber = RecordingSubscriber()
        EventSocket(url: front.webSocketURL(), configuration: trusting(certificates)).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 5))
        #expect(subscriber.data == (1...5).map { "event \($0)" })
        #expect(front.behind.requests.values.map(\.lastEventId).prefix(3) == [nil, "e-2", "e-3"])
        subscriber.cancel()
    }

    @Test func wssAsAnAsyncSequenceResumesAfterADropWithNothingLost() async throws {
        let front = try droppingSocket()
        defer { front.stop() }
        var data: [String] = []
        for try await event in EventSocket(url: front.webSocketURL(), configuration: trusting(certificates)).events {
            if let message = event.message { data.append(message.data) }
            if data.count == 5 { break }
        }
        #expect(data == (1...5).map { "event \($0)" })
    }

    @Test func aSubscriberAskingForOneStopsTheReadingOnOneOpenConnection() async throws {
        // 40 events of 2 KB, more than the client takes in before it stops reading.
        let padding = String(repeating: "x", count: 2_000)
        let front = try TLSFront(LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write((1...40).map { "id: e-\($0)\ndata: event \($0) \(padding)\n\n" }.joined())
            connection.waitForClientClose(limit: 60)
        })
        defer { front.stop() }
        var configuration = trusting(certificates)
        configuration.bufferSize = 4
        let subscriber = RecordingSubscriber(initialDemand: .max(1))
        EventSource(url: front.url(), configuration: configuration).subscribe(subscriber)
        let driver = try #require(subscriber.driver)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(await waitUntil { driver.bufferedCount == 4 })
        #expect(subscriber.events.values.count == 1)
        #expect(driver.lastEventID == "e-5")   // what it holds, and no further: the reading stopped
        subscriber.request(.unlimited)
        #expect(await subscriber.events.wait(forCount: 40))
        #expect(subscriber.data == (1...40).map { "event \($0) \(padding)" })
        #expect(front.behind.requests.values.count == 1)
        #expect(front.behind.closed.values.isEmpty)
        subscriber.cancel()
    }

    @Test func anUntrustedCertificateIsAFailedAttemptThatSaysSo() async throws {
        let front = try TLSFront(LoopbackServer { connection in connection.writeStreamHead() })
        defer { front.stop() }
        // The system's roots alone: the run's CA is not among them.
        var configuration = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50),
                                                      maximumAttempts: 2)
        configuration.tls.proxy = .none
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: front.url(), configuration: configuration, onConnectionEvent: { reports.append($0) }).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        let failures = reports.values.compactMap { event -> EventSourceError? in
            if case .attemptFailed(_, let error, _) = event { error } else { nil }
        }
        #expect(failures.count == 2)
        let first = try #require(failures.first)
        guard case .tlsFailed(let detail) = first else {
            Issue.record("not a TLS failure: \(first)")
            return
        }
        #expect(detail.contains("is not trusted"), "\(detail)")
        #expect(first.description.hasPrefix("The TLS connection failed: the certificate of 127.0.0.1:\(front.port) is not trusted"),
                "\(first.description)")
        #expect(subscriber.completions.values == [.failure(.gaveUp(attempts: 2, lastFailure: first))])
        #expect(front.behind.requests.values.isEmpty)   // no request went out
    }

    @Test func aPlainPortIsAFailedAttemptThatSaysItDoesNotSpeakTLS() async throws {
        let plain = try LoopbackServer(readsRequests: false) { connection in
            connection.write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n")
            connection.waitForClientClose()
        }
        defer { plain.stop() }
        let reports = Recorder<EventSource.ConnectionEvent>()
        let subscriber = RecordingSubscriber()
        EventSource(url: URL(string: "https://127.0.0.1:\(plain.port)/events")!, configuration: trusting(certificates, maximumAttempts: 1),
                    onConnectionEvent: { reports.append($0) }).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        let failure = reports.values.compactMap { event -> EventSourceError? in
            if case .attemptFailed(_, let error, _) = event { error } else { nil }
        }.first
        #expect(failure?.description.contains("does not speak TLS") == true, "\(String(describing: failure))")
    }

    @Test func aServerThatRequiresAClientCertificateGetsOneAndIsReadOverWss() async throws {
        let front = try TLSFront(LoopbackServer { connection in
            connection.acceptWebSocket()
            connection.write(Frames.event(1) + Frames.event(2))
            _ = connection.waitForClientClose()
        }, requiringClientCertificate: true)
        defer { front.stop() }
        // Without a certificate: a failed attempt that says what is missing.
        let reports = Recorder<EventSource.ConnectionEvent>()
        let refused = RecordingSubscriber()
        EventSocket(url: front.webSocketURL(), configuration: trusting(certificates, maximumAttempts: 1),
                    onConnectionEvent: { reports.append($0) }).subscribe(refused)
        #expect(await refused.completions.wait(forCount: 1))
        let failure = reports.values.compactMap { event -> EventSourceError? in
            if case .attemptFailed(_, let error, _) = event { error } else { nil }
        }.first
        if case .tlsFailed(let detail)? = failure {
            #expect(detail.contains("client certificate"), "\(detail)")
        } else {
            Issue.record("not a TLS failure: \(String(describing: failure))")
        }
        #expect(refused.events.values.isEmpty)
        // With the run's client certificate: the events.
        let subscriber = RecordingSubscriber()
        EventSocket(url: front.webSocketURL(), configuration: trusting(certificates, client: true)).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        #expect(subscriber.data == ["event 1", "event 2"])
        subscriber.cancel()
    }

    @Test func trustRootsGivenAsPEMTextWork() async throws {
        let front = try TLSFront(LoopbackServer { connection in
            connection.writeStreamHead()
            connection.write(frame(1))
            connection.waitForClientClose()
        })
        defer { front.stop() }
        var configuration = EventSource.Configuration()
        configuration.tls.trustRoots = [.text(try String(contentsOfFile: certificates.caFile, encoding: .utf8))]
        configuration.tls.proxy = .none
        let subscriber = RecordingSubscriber()
        // localhost: the certificate's DNS name, sent as the server name.
        EventSource(url: URL(string: "https://localhost:\(front.port)/events")!, configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 1))
        #expect(subscriber.data == ["event 1"])
        subscriber.cancel()
    }

    @Test func aConnectTunnelThroughTheProxyCarriesTheStream() async throws {
        let front = try droppingFeed()
        defer { front.stop() }
        let proxy = try ConnectProxy()
        defer { proxy.server.stop() }
        let subscriber = RecordingSubscriber()
        EventSource(url: front.url(), configuration: trusting(certificates, proxy: .url(proxy.url))).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 4))
        #expect(subscriber.data == ["event 1", "event 2", "event 3", "event 4"])
        #expect(proxy.server.requests.values.map(\.method) == ["CONNECT", "CONNECT"])
        #expect(proxy.server.requests.values.first?.path == "127.0.0.1:\(front.port)")
        subscriber.cancel()
    }

    @Test func unreadableTrustRootsEndTheStreamAtOnceWithASentence() async throws {
        var configuration = EventSource.Configuration()
        configuration.tls.trustRoots = [.file("/nonexistent/ca.pem")]
        let subscriber = RecordingSubscriber()
        EventSource(url: URL(string: "https://127.0.0.1:9/events")!, configuration: configuration).subscribe(subscriber)
        #expect(await subscriber.completions.wait(forCount: 1))
        guard case .failure(.tlsFailed(let detail))? = subscriber.completions.values.first else {
            Issue.record("\(subscriber.completions.values)")
            return
        }
        #expect(detail == "there is no file /nonexistent/ca.pem", "\(detail)")
    }

    @Test func aCancelWhileTheConnectIsPendingEndsItAtOnce() async throws {
        // A listener that accepts nothing, its queue full: the kernel drops the next SYN, and that
        // connect waits (retrying) until its timeout — a minute here.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        try #require(withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(listener, $0, length) == 0 && listen(listener, 0) == 0 && getsockname(listener, $0, &length) == 0
        } })
        let port = Int(UInt16(bigEndian: address.sin_port))
        var fillers: [Int32] = []
        defer { fillers.forEach { close($0) } }
        for _ in 0..<4 {
            let filler = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(filler, $0, length) } }
            fillers.append(filler)
        }
        // The states of the connects to the port (/proc/net/tcp: the remote port in hexadecimal;
        // 01 established, 02 SYN-SENT).
        let portHex = String(format: ":%04X", port)
        let states = { () -> [Substring] in
            // Read to its end in a loop: a file of the kernel's says no size, and it is long.
            var table: [UInt8] = []
            let file = open("/proc/net/tcp", O_RDONLY)
            defer { close(file) }
            var chunk = [UInt8](repeating: 0, count: 1 << 16)
            while case let count = read(file, &chunk, chunk.count), count > 0 { table += chunk[..<count] }
            return String(decoding: table, as: UTF8.self).split(separator: "\n").compactMap { line in
                let fields = line.split(separator: " ")
                return fields.count > 3 && fields[2].hasSuffix(portHex) ? fields[3] : nil
            }
        }
        let pending = { states().filter { $0 == "02" }.count }
        // Settled: each filler connected (the queue holds one, backlog 0; two may be, when the
        // second's handshake began before the first's ended) or waiting, and at least one waiting.
        try #require(await waitUntil(limit: 30) {
            let now = states()
            return now.count == 4 && now.allSatisfy { $0 == "01" || $0 == "02" } && now.contains("02")
        }, "the fillers' connects: \(states())")
        let fillersPending = pending()
        let stream = TLSStream.make(host: "127.0.0.1", port: port, idleTimeout: .seconds(60))
        let opened = Recorder<String>()
        Thread.detachNewThread {
            do throws(PlainSocket.End) {
                try stream.open(port: port, options: EventSource.TLSOptions())
                opened.append("open")
            } catch .cancelled {
                opened.append("cancelled")
            } catch {
                opened.append("\(error)")
            }
        }
        // Then the stream's connect waits too.
        #expect(await waitUntil(limit: 30) { pending() == fillersPending + 1 })
        stream.cancel()
        // Well before the minute of the connect's timeout.
        #expect(await opened.wait(forCount: 1, limit: 20))
        #expect(opened.values == ["cancelled"])
    }
}
#endif
