#if !canImport(Darwin)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A Server-Sent Events request (HTTP/1.1) on a ``PlainSocket``, for `http:` URLs off Apple's
/// systems, and `https:` ones with the package trait `TLS` (the socket is then a TLS connection). FoundationNetworking cannot suspend a transfer, so with a data task a full buffer
/// can only end in closing the connection and resuming after the last event; here suspending
/// stops the connection's thread before its next read, the connection stays open, and TCP's
/// flow control holds the server back.
///
/// It does what a data task would for such a request: it sends the cookies `HTTPCookieStorage`
/// holds for the URL and stores those the server sets, follows redirects (up to 20; one to
/// another scheme hands the request to a data task, and from there the stream pauses as data
/// tasks do), reads chunked, sized and close-delimited bodies, and ends a connection silent for
/// the idle timeout.
final class HTTPStreamConnection: EventStreamConnection, @unchecked Sendable {
    typealias Driver = EventStreamDriver<EventStreamParser>
    private typealias End = PlainSocket.End
    /// Makes a data task for a request (one redirected to another scheme) that reports to the
    /// driver as this connection; the session, if any, is to be let go once the task runs.
    typealias HandOver = @Sendable (URLRequest) -> (task: URLSessionDataTask, session: URLSession?)

    private let id: UInt64
    private let driver: Driver
    private let request: URLRequest
    private let socket: PlainSocket
    private let handOver: HandOver
    /// The data task a redirect to another scheme handed the request to.
    private let handedOver = Locked<URLSessionDataTask?>(nil)

    /// Whether this transport serves `request` made without a session of the caller's: a GET
    /// without a body, of an `http:` URL with no proxy set in the environment for libcurl (a data
    /// task would go through it), or (with the trait `TLS`) of an `https:` URL, whose TLS
    /// connection goes through the environment's proxy itself.
    static func serves(_ request: URLRequest) -> Bool {
        guard let scheme = request.url?.scheme?.lowercased(), readsItself(scheme), request.httpMethod ?? "GET" == "GET",
              request.httpBody == nil, request.httpBodyStream == nil else { return false }
        guard scheme == "http" else { return true }
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "all_proxy", "ALL_PROXY"].allSatisfy { environment[$0, default: ""].isEmpty }
    }

    /// Whether this transport reads URLs of `scheme`: `http`, and `https` with the trait `TLS`.
    static func readsItself(_ scheme: String) -> Bool {
        scheme == "http" || scheme == "https" && PlainSocket.speaksTLS
    }

    init(id: UInt64, driver: Driver, request: URLRequest, idleTimeout: Duration, tls: EventSource.TLSOptions,
         handOver: @escaping HandOver) {
        self.id = id
        self.driver = driver
        self.request = request
        self.handOver = handOver
        socket = PlainSocket(idleTimeout: idleTimeout, tls: tls)
    }

    /// Starts the connection's thread.
    func start() {
        let thread = Thread { [self] in run() }
        thread.name = "SluiceEventSource.EventSource"
        thread.start()
    }

    var pauseMethod: EventStreamPauseMethod {
        handedOver.withLock { $0 == nil } ? .suspend : URLSessionDataTask.dataTaskPauseMethod
    }

    func cancel() {
        socket.cancel()
        handedOver.withLock { $0 }?.cancel()
    }

    func suspend() {
        if let task = handedOver.withLock({ $0 }) { task.suspend() } else { socket.suspend() }
    }

    func resume() {
        if let task = handedOver.withLock({ $0 }) { task.resume() } else { socket.resume() }
    }

    // MARK: The connection's thread

    private func run() {
        do throws(End) {
            guard var url = request.url else { throw .failure(.invalidRequest) }
            var headers = request.allHTTPHeaderFields ?? [:]
            var redirects = 0
            var head: PlainSocket.ResponseHead
            while true {
                try socket.connect(to: url)
                try socket.write(PlainSocket.requestHead(method: "GET", url: url, headers: withCookies(headers, for: url)))
                repeat { head = try socket.readResponseHead() } while (100..<200).contains(head.status)
                storeCookies(of: head, from: url)
                guard [301, 302, 303, 307, 308].contains(head.status), let location = head.headers["location"] else { break }
                guard redirects < 20, let next = URL(string: location, relativeTo: url)?.absoluteURL else {
                    throw .failure(.protocolViolation(redirects < 20 ? "a redirect to \(location)" : "more than 20 redirects"))
                }
                redirects += 1
                if next.host != url.host || next.port != url.port {
                    // Credentials are for the origin they were given for.
                    headers = headers.filter { !["authorization", "cookie"].contains($0.key.lowercased()) }
                }
                url = next
                guard Self.readsItself(next.scheme?.lowercased() ?? "") else { return handOver(to: next, headers: headers) }
            }
            let answer = StreamAnswer.eventStream(status: head.status, contentType: head.headers["content-type"],
                                                  retryAfter: StreamAnswer.retryAfter(head.headers["retry-after"]))
            guard driver.responded(id: id, answer) else { throw .cancelled }
            try readBody(framing: Framing(head))
            socket.close()
            if !socket.isCancelled { driver.completed(id: id, error: nil) }
        } catch {
            socket.close()
            guard !socket.isCancelled else { return }
            switch error {
            case .lost(let error): driver.completed(id: id, error: error)
            case .failure(let failure): driver.ended(id: id, with: .failure(failure))
            case .status, .closed, .cancelled: break
            }
        }
    }

    /// How a response's body ends.
    private enum Framing {
        case chunked
        case length(Int)
        case untilClose

        init(_ head: PlainSocket.ResponseHead) {
            if head.headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
                self = .chunked
            } else if let length = head.headers["content-length"].flatMap({ Int($0) }), length >= 0 {
                self = .length(length)
            } else {
                self = .untilClose
            }
        }
    }

    /// Hands the body's bytes to the driver as they come, pausing while suspended; returns at the
    /// end of the body.
    private func readBody(framing: Framing) throws(End) {
        switch framing {
        case .untilClose:
            while true {
                try socket.waitWhilePaused()
                if socket.isDrained, try !socket.fill(endIsLost: false) { return }
                driver.received(id: id, socket.take(upTo: .max))
            }
        case .length(let length):
            try readBytes(length)
        case .chunked:
            while true {
                let sizeLine = try socket.line(limit: 1_024)
                guard let size = Int(sizeLine.split(separator: ";").first?.trimmingCharacters(in: .whitespaces) ?? "", radix: 16),
                      size >= 0 else {
                    throw .failure(.protocolViolation("a chunk size of \"\(sizeLine)\""))
                }
                if size == 0 {
                    while try !socket.line(limit: 16_384).isEmpty {}   // trailers, up to the blank line
                    return
                }
                try readBytes(size)
                guard try socket.line(limit: 2).isEmpty else { throw .failure(.protocolViolation("a chunk longer than its size")) }
            }
        }
    }

    /// Hands the next `count` bytes to the driver as they come, pausing while suspended.
    private func readBytes(_ count: Int) throws(End) {
        var left = count
        while left > 0 {
            try socket.waitWhilePaused()
            if socket.isDrained { try socket.fill() }
            let data = socket.take(upTo: left)
            left -= data.count
            driver.received(id: id, data)
        }
    }

    /// Hands the request, redirected to `url` (another scheme's), to a data task.
    private func handOver(to url: URL, headers: [String: String]) {
        socket.close()
        var redirected = request
        redirected.url = url
        redirected.allHTTPHeaderFields = headers
        let (task, session) = handOver(redirected)
        let proceed = handedOver.withLock { handedOver in
            guard !socket.isCancelled else { return false }
            handedOver = task
            return true
        }
        if proceed { task.resume() } else { task.cancel() }
        session?.finishTasksAndInvalidate()
    }

    // MARK: Cookies, as a data task of the default configuration handles them

    private func withCookies(_ headers: [String: String], for url: URL) -> [(String, String)] {
        var fields = headers.map { ($0.key, $0.value) }
        guard request.httpShouldHandleCookies, !headers.keys.contains(where: { $0.lowercased() == "cookie" }),
              let cookies = HTTPCookieStorage.shared.cookies(for: url), !cookies.isEmpty else { return fields }
        fields += HTTPCookie.requestHeaderFields(with: cookies).map { ($0.key, $0.value) }
        return fields
    }

    private func storeCookies(of head: PlainSocket.ResponseHead, from url: URL) {
        guard request.httpShouldHandleCookies else { return }
        for field in head.fields where field.name.lowercased() == "set-cookie" {
            let cookies = HTTPCookie.cookies(withResponseHeaderFields: ["Set-Cookie": field.value], for: url)
            HTTPCookieStorage.shared.setCookies(cookies, for: url, mainDocumentURL: nil)
        }
    }
}
#endif
