#if TLS && !canImport(Darwin)
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS

/// A TLS connection (SwiftNIO SSL over a NIO socket) read and written as blocking calls from a
/// ``PlainSocket``'s thread, so that the module's own HTTP and WebSocket code carries `https:` and
/// `wss:` as it carries `http:` and `ws:`.
///
/// The channel reads only when asked (`autoRead` off): ``receive(into:)`` asks for one read when
/// the bytes it holds are used up, so a reading thread that waits (its subscriber's demand is
/// used up) leaves the data in the kernel, and TCP's flow control holds the server back, as on
/// a plain socket. The channel's handler only hands bytes over and wakes the thread; nothing of
/// the client runs on NIO's event loops.
final class TLSStream: @unchecked Sendable {
    typealias End = PlainSocket.End

    /// What the channel handed over, guarded by `condition`, which the reading thread waits on.
    private let condition = NSCondition()
    private var input: [UInt8] = []
    private var consumed = 0
    private var handshaken = false
    /// How the stream ended (`nil`: open); `.lost(.connectionLost(...))` at a clean end of stream is
    /// told as 0 bytes by `receive`.
    private var end: End?
    private var atEOF = false
    private var cancelled = false
    private var channel: (any Channel)?
    private let idleTimeout: Duration
    /// `host:port`, for messages.
    private let address: String
    private let host: String

    private init(host: String, port: Int, idleTimeout: Duration) {
        self.host = host
        self.idleTimeout = idleTimeout
        address = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// A stream to `host:port`, not yet open: ``open(port:options:)`` connects it (a ``cancel()``
    /// meanwhile ends the attempt).
    static func make(host: String, port: Int, idleTimeout: Duration) -> TLSStream {
        TLSStream(host: host, port: port, idleTimeout: idleTimeout)
    }

    /// Connects (through the proxy `options` name, if any) and completes the TLS handshake;
    /// with `encrypted` false, a plain TCP connection over NIO (only for the measurement that
    /// keeps `http:` and `ws:` on POSIX sockets: docs/FIGURES.md, "One stack or two").
    func open(port: Int, options: EventSource.TLSOptions, encrypted: Bool = true) throws(End) {
        let context = try Self.context(for: options)
        // An IP address is no server name: NIOSSL then checks the certificate against the address.
        let isAddress = host.contains(":") || host.split(separator: ".").allSatisfy { Int($0) != nil }
        let serverName = isAddress ? nil : host
        let proxy = encrypted ? options.proxy.resolve(forHost: host, environment: ProcessInfo.processInfo.environment) : nil
        let target = proxy.map { (host: $0.host, port: $0.port) } ?? (host: host, port: port)
        let inbox = Inbox(stream: self)
        let direct = proxy == nil && encrypted
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.nanoseconds(Int64(clamping: idleTimeout.nanoseconds)))
            .channelOption(.autoRead, value: false)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .channelInitializer { [self] channel in
                // From here a cancel() closes the channel, which ends its connect at once.
                condition.lock()
                let cancelledAlready = cancelled
                if !cancelledAlready { self.channel = channel }
                condition.unlock()
                if cancelledAlready { return channel.eventLoop.makeFailedFuture(End.cancelled) }
                return channel.eventLoop.makeCompletedFuture {
                    if direct {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName))
                    }
                    try channel.pipeline.syncOperations.addHandler(inbox)
                }
            }
        let connected: any Channel
        do {
            connected = try bootstrap.connect(host: target.host, port: target.port).wait()
        } catch let error as NIOSSLExtraError where error == .cannotUseIPAddressInSNI {
            throw .failure(.tlsFailed("cannot start TLS with \(address): \(error)"))
        } catch {
            if isCancelled { throw .cancelled }
            throw Self.connectFailure(error, address: proxy == nil ? address : "\(target.host):\(target.port) (the proxy)")
        }
        condition.lock()
        let proceed = !cancelled
        if proceed { channel = connected }
        condition.unlock()
        guard proceed else { connected.close(promise: nil); throw .cancelled }
        guard encrypted else { return }
        if let proxy {
            try tunnel(through: proxy, port: port)
            do {
                try connected.eventLoop.submit {
                    try connected.pipeline.syncOperations.addHandler(NIOSSLClientHandler(context: context, serverHostname: serverName),
                                                                     position: .first)
                }.wait()
            } catch {
                throw .lost(.connectionLost("cannot start TLS through the proxy: \(error)"))
            }
        }
        // The handshake: NIOSSL reads on while it has no data to hand over.
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(idleTimeout.seconds)
        while !handshaken && end == nil && !atEOF && !cancelled {
            connected.read()
            if !condition.wait(until: deadline) && !handshaken {
                throw .lost(.timedOut)
            }
        }
        if cancelled { throw .cancelled }
        if let end { throw end }
        if !handshaken { throw .lost(.tlsFailed("the server at \(address) closed the connection during the TLS handshake")) }
    }

    /// Asks the proxy for a tunnel to the server (`CONNECT host:port`), on the plain connection.
    private func tunnel(through proxy: (host: String, port: Int, authorization: String?), port: Int) throws(End) {
        var head = "CONNECT \(address) HTTP/1.1\r\nHost: \(address)\r\n"
        if let authorization = proxy.authorization { head += "Proxy-Authorization: \(authorization)\r\n" }
        try write(Array((head + "\r\n").utf8))
        var answer: [UInt8] = []
        var byte = [UInt8](repeating: 0, count: 1)
        // Byte by byte up to the blank line: what follows it is the server's TLS.
        while !answer.ends(with: [13, 10, 13, 10]) {
            guard answer.count < 16_384 else { throw .failure(.protocolViolation("the proxy's answer to CONNECT is longer than 16 KiB")) }
            guard try receive(into: &byte) > 0 else {
                throw .lost(.connectionLost("the proxy closed the connection before answering CONNECT"))
            }
            answer.append(byte[0])
        }
        let statusLine = String(decoding: answer, as: UTF8.self).components(separatedBy: "\r\n").first ?? ""
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw .failure(.protocolViolation("the proxy answered CONNECT with \"\(statusLine)\""))
        }
        guard (200..<300).contains(status) else {
            throw .lost(.connectionLost("the proxy \(proxy.host):\(proxy.port) refused the tunnel to \(address): \(statusLine)"))
        }
    }

    // MARK: The reading thread

    /// Reads into `buffer`: the number of bytes, 0 at the end of the stream; waits at most the
    /// idle timeout for them.
    func receive(into buffer: inout [UInt8]) throws(End) -> Int {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date().addingTimeInterval(idleTimeout.seconds)
        while consumed >= input.count {
            if cancelled { throw .cancelled }
            if let end { throw end }
            if atEOF { return 0 }
            input.removeAll(keepingCapacity: true)
            consumed = 0
            channel?.read()
            if !condition.wait(until: deadline) && consumed >= input.count && end == nil && !atEOF && !cancelled {
                throw .lost(.timedOut)
            }
        }
        let count = min(buffer.count, input.count - consumed)
        buffer.replaceSubrange(0..<count, with: input[consumed..<consumed + count])
        consumed += count
        return count
    }

    // MARK: Any thread

    /// Writes `bytes`; waits until they are written, except on an event loop's thread (a
    /// subscriber called from one), where it cannot wait: a failure is then left to the reading.
    func write(_ bytes: [UInt8]) throws(End) {
        let channel: (any Channel)? = condition.withLock { cancelled ? nil : self.channel }
        guard let channel else { throw .cancelled }
        let written = channel.writeAndFlush(channel.allocator.buffer(bytes: bytes))
        guard MultiThreadedEventLoopGroup.currentEventLoop == nil else { return }
        do {
            try written.wait()
        } catch {
            // The channel's own failure (a TLS alert that closed it, say) before the write's.
            let (cancelled, end) = condition.withLock { (self.cancelled, self.end) }
            if cancelled { throw .cancelled }
            throw end ?? Self.failure(error, address: address)
        }
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { condition.withLock { cancelled } }

    /// Closes the connection, waking a waiting read; what it reads after throws `End.cancelled`.
    func cancel() {
        condition.lock()
        cancelled = true
        let channel = channel
        condition.broadcast()
        condition.unlock()
        channel?.close(promise: nil)
    }

    /// Closes the connection.
    func close() {
        let channel: (any Channel)? = condition.withLock { self.channel }
        channel?.close(promise: nil)
    }

    // MARK: The channel's event loop

    /// Hands the channel's bytes and its end to the stream.
    private final class Inbox: ChannelInboundHandler, @unchecked Sendable {   // used on its event loop only
        typealias InboundIn = ByteBuffer
        let stream: TLSStream

        init(stream: TLSStream) {
            self.stream = stream
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            stream.condition.withLock {
                stream.input.append(contentsOf: buffer.readableBytesView)
                stream.condition.broadcast()
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case .handshakeCompleted = event as? TLSUserEvent {
                stream.condition.withLock {
                    stream.handshaken = true
                    stream.condition.broadcast()
                }
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            stream.condition.withLock {
                // A server that closes without TLS's close_notify ends the stream as a plain close does.
                if case .uncleanShutdown = error as? NIOSSLError {
                    stream.atEOF = true
                } else if stream.end == nil {
                    stream.end = TLSStream.failure(error, address: stream.address)
                }
                stream.condition.broadcast()
            }
            context.close(promise: nil)
        }

        func channelInactive(context: ChannelHandlerContext) {
            stream.condition.withLock {
                stream.atEOF = true
                stream.condition.broadcast()
            }
            context.fireChannelInactive()
        }
    }

    // MARK: Errors

    /// A failure to connect to `address`, as the plain socket tells it.
    private static func connectFailure(_ error: any Error, address: String) -> End {
        if let error = error as? NIOConnectionError {
            if let first = error.connectionErrors.first?.error { return connectFailure(first, address: address) }
            if let dns = error.dnsAAAAError ?? error.dnsAError {
                return .lost(.hostNotFound(host: error.host, detail: "\(dns)"))
            }
            return .lost(.hostNotFound(host: error.host, detail: "no address found"))
        }
        if let error = error as? IOError, error.errnoCode == ECONNREFUSED {
            return .lost(.connectionRefused(address: address))
        }
        if case .connectTimeout(_)? = error as? ChannelError { return .lost(.timedOut) }
        return .lost(.connectionLost("cannot connect to \(address): \(error)"))
    }

    /// A failure of the open connection to `address`, as a sentence's detail.
    static func failure(_ error: any Error, address: String) -> End {
        let reasons: [String]
        switch error {
        case NIOSSLError.handshakeFailed(let boring), NIOSSLError.shutdownFailed(let boring):
            reasons = Self.reasons(boring)
        case let boring as BoringSSLError:
            reasons = Self.reasons(boring)
        case let error as NIOSSLExtraError where error == .failedToValidateHostname:
            return .lost(.tlsFailed("the certificate of \(address) is not for that host"))
        case let error as NIOSSLError:
            return .lost(.tlsFailed("\(error) with \(address)"))
        case let error as IOError:
            return .lost(.connectionLost(String(cString: strerror(error.errnoCode))))
        default:
            return .lost(.connectionLost("\(error)"))
        }
        let all = reasons.joined(separator: ", ")
        let said: String
        if all.contains("CERTIFICATE_VERIFY_FAILED") {
            said = "the certificate of \(address) is not trusted: it is not signed by a trusted root (add its CA to "
                + "the configuration's tls.trustRoots), has expired, or is not for that host"
        } else if all.contains("WRONG_VERSION_NUMBER") || all.contains("HTTP_REQUEST") || all.contains("PACKET_LENGTH_TOO_LONG") {
            said = "\(address) does not speak TLS (a plain http or ws port?)"
        } else if all.contains("CERTIFICATE_REQUIRED") || all.contains("HANDSHAKE_FAILURE") && reasons.contains(where: { $0.contains("ALERT") }) {
            said = "the server at \(address) requires a client certificate (the configuration's tls.clientCertificate)"
        } else if all.contains("ALERT_UNKNOWN_CA") || all.contains("ALERT_BAD_CERTIFICATE") || all.contains("ALERT_CERTIFICATE_UNKNOWN") {
            said = "the server at \(address) did not accept the client certificate"
        } else if all.contains("eofDuringHandshake") || all.isEmpty {
            said = "the server at \(address) closed the connection during the TLS handshake"
        } else {
            said = "the TLS handshake with \(address) failed"
        }
        return .lost(.tlsFailed(all.isEmpty ? said : "\(said) (\(all))"))
    }

    /// BoringSSL's reasons (`CERTIFICATE_VERIFY_FAILED`...) in an error.
    private static func reasons(_ error: BoringSSLError) -> [String] {
        guard case .sslError(let errors) = error else { return ["\(error)"] }
        return errors.map { error in
            // "Error: 268435581 error:1000007d:SSL routines:OPENSSL_internal:CERTIFICATE_VERIFY_FAILED at <file>:<line>"
            var text = "\(error)"
            if let at = text.range(of: " at ", options: .backwards) { text = String(text[..<at.lowerBound]) }
            return text.split(separator: ":").last.map(String.init) ?? text
        }
    }

    // MARK: Contexts

    /// One context per set of options, made when a connection first needs it (reading the
    /// system's roots and the options' files once).
    private static let contexts = Locked<[EventSource.TLSOptions: NIOSSLContext]>([:])

    private static func context(for options: EventSource.TLSOptions) throws(End) -> NIOSSLContext {
        if let context = contexts.withLock({ $0[options] }) { return context }
        var configuration = TLSConfiguration.makeClientConfiguration()
        do {
            let roots = try options.trustRoots.flatMap { try certificates($0) }
            if !roots.isEmpty {
                if options.trustsSystemRoots {
                    configuration.additionalTrustRoots = [.certificates(roots)]
                } else {
                    configuration.trustRoots = .certificates(roots)
                }
            } else if !options.trustsSystemRoots {
                configuration.trustRoots = .certificates([])
            }
            if let client = options.clientCertificate {
                configuration.certificateChain = try certificates(client.certificateChain).map { .certificate($0) }
                configuration.privateKey = .privateKey(try privateKey(client.privateKey))
            }
            let context = try NIOSSLContext(configuration: configuration)
            contexts.withLock { $0[options] = context }
            return context
        } catch let error as End {
            throw error
        } catch {
            throw .failure(.tlsFailed("the configuration's TLS options cannot be used: \(error)"))
        }
    }

    private static func certificates(_ pem: EventSource.TLSOptions.PEM) throws -> [NIOSSLCertificate] {
        try requireFile(pem)
        do {
            let certificates = switch pem {
            case .file(let path): try NIOSSLCertificate.fromPEMFile(path)
            case .text(let text): try NIOSSLCertificate.fromPEMBytes(Array(text.utf8))
            }
            guard !certificates.isEmpty else { throw End.failure(.tlsFailed("\(pem.name) holds no certificate")) }
            return certificates
        } catch let error as End {
            throw error
        } catch {
            throw End.failure(.tlsFailed("the certificates in \(pem.name) cannot be read: \(error)"))
        }
    }

    private static func privateKey(_ pem: EventSource.TLSOptions.PEM) throws -> NIOSSLPrivateKey {
        try requireFile(pem)
        do {
            return switch pem {
            case .file(let path): try NIOSSLPrivateKey(file: path, format: .pem)
            case .text(let text): try NIOSSLPrivateKey(bytes: Array(text.utf8), format: .pem)
            }
        } catch {
            throw End.failure(.tlsFailed("the private key in \(pem.name) cannot be read: \(error)"))
        }
    }
}

extension TLSStream {
    /// Throws a sentence if `pem` names a file that cannot be read.
    private static func requireFile(_ pem: EventSource.TLSOptions.PEM) throws {
        guard case .file(let path) = pem, !FileManager.default.isReadableFile(atPath: path) else { return }
        let exists = FileManager.default.fileExists(atPath: path)
        throw End.failure(.tlsFailed(exists ? "the file \(path) cannot be read" : "there is no file \(path)"))
    }
}

extension EventSource.TLSOptions.PEM {
    /// The file's path, or "the PEM text given".
    fileprivate var name: String {
        switch self {
        case .file(let path): path
        case .text: "the PEM text given"
        }
    }
}

extension Array where Element == UInt8 {
    /// Whether the last elements are `suffix`.
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.multipliedReportingOverflow(by: 1_000_000_000).overflow
            ? .max : seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
#endif
