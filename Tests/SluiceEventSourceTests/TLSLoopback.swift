#if TLS && !canImport(Darwin)
import Foundation
import NIOCore
import NIOPosix
import NIOSSL
@testable import SluiceEventSource
#if canImport(Glibc)
import Glibc
#endif

/// Certificates made for the run by the `openssl` command: a CA of the test's own (no system
/// trusts it), a server certificate it signed for 127.0.0.1 and localhost, and a client
/// certificate it signed (mutual TLS). Made once per process, in a temporary folder.
struct TestCertificates: Sendable {
    let folder: URL
    var caFile: String { folder.appendingPathComponent("ca.pem").path }
    var serverFile: String { folder.appendingPathComponent("server.pem").path }
    var serverKeyFile: String { folder.appendingPathComponent("server-key.pem").path }
    var clientFile: String { folder.appendingPathComponent("client.pem").path }
    var clientKeyFile: String { folder.appendingPathComponent("client-key.pem").path }

    /// The certificates of this run (made at the first use).
    static let shared: Result<TestCertificates, TestCertificateError> = Result { () throws(TestCertificateError) in
        try TestCertificates.make()
    }

    /// The folder of this process's certificates, removed when it exits.
    private static let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("sluice-tls-\(ProcessInfo.processInfo.processIdentifier)")

    private static func make() throws(TestCertificateError) -> TestCertificates {
        let folder = Self.folder
        atexit { try? FileManager.default.removeItem(at: TestCertificates.folder) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
                .write(to: folder.appendingPathComponent("server.ext"), atomically: true, encoding: .utf8)
            try "extendedKeyUsage=clientAuth\nbasicConstraints=CA:FALSE\n"
                .write(to: folder.appendingPathComponent("client.ext"), atomically: true, encoding: .utf8)
        } catch {
            throw TestCertificateError(detail: "cannot write in \(folder.path): \(error)")
        }
        let ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        let steps: [[String]] = [
            ["req", "-x509"] + ec + ["-keyout", "ca-key.pem", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Sluice test CA",
             "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign"],
            ["req"] + ec + ["-keyout", "server-key.pem", "-out", "server.csr", "-subj", "/CN=localhost"],
            ["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
             "-out", "server.pem", "-days", "2", "-extfile", "server.ext"],
            ["req"] + ec + ["-keyout", "client-key.pem", "-out", "client.csr", "-subj", "/CN=sluice-test-client"],
            ["x509", "-req", "-in", "client.csr", "-CA", "ca.pem", "-CAkey", "ca-key.pem", "-CAcreateserial",
             "-out", "client.pem", "-days", "2", "-extfile", "client.ext"],
        ]
        for arguments in steps {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["openssl"] + arguments
            process.currentDirectoryURL = folder
            process.standardOutput = FileHandle.nullDevice
            let errors = Pipe()
            process.standardError = errors
            do {
                try process.run()
            } catch {
                throw TestCertificateError(detail: "cannot run openssl: \(error)")
            }
            let said = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else {
                throw TestCertificateError(detail: "openssl \(arguments.joined(separator: " ")) failed: \(String(decoding: said, as: UTF8.self))")
            }
        }
        return TestCertificates(folder: folder)
    }
}

/// Why the test's certificates could not be made (the `openssl` command is needed).
struct TestCertificateError: Error, CustomStringConvertible {
    let detail: String
    var description: String { "The test's certificates could not be made with the openssl command: \(detail)" }
}

/// A TLS server on 127.0.0.1 in front of a ``LoopbackServer``: it ends TLS (SwiftNIO SSL, the
/// run's server certificate) and relays the bytes both ways, so a test's handler answers `https:`
/// and `wss:` as it answers `http:` and `ws:`. The relay keeps flow control: it reads from one
/// side only while the other can take what it writes, so a client that stops reading holds the
/// handler's writes back as a plain connection would.
final class TLSFront: Sendable {
    let port: Int
    let behind: LoopbackServer
    private let channel: any Channel

    /// A front for `behind`; with `requiringClientCertificate`, a client must present a
    /// certificate the run's CA signed.
    init(_ behind: LoopbackServer, requiringClientCertificate: Bool = false) throws {
        let certificates = try TestCertificates.shared.get()
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.serverFile).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.serverKeyFile, format: .pem)))
        if requiringClientCertificate {
            configuration.certificateVerification = .noHostnameVerification
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(certificates.caFile))
        }
        let context = try NIOSSLContext(configuration: configuration)
        let target = Int(behind.port)
        self.behind = behind
        channel = try ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { child in
                ClientBootstrap(group: child.eventLoop).connect(host: "127.0.0.1", port: target).flatMapThrowing { inner in
                    let outer = Relay()
                    let innerRelay = Relay()
                    outer.partner = innerRelay
                    innerRelay.partner = outer
                    try child.pipeline.syncOperations.addHandlers(NIOSSLServerHandler(context: context), outer)
                    try inner.pipeline.syncOperations.addHandler(innerRelay)
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = channel.localAddress?.port ?? 0
    }

    /// `https://127.0.0.1:<port><path>`.
    func url(_ path: String = "/events") -> URL { URL(string: "https://127.0.0.1:\(port)\(path)")! }

    /// `wss://127.0.0.1:<port><path>`.
    func webSocketURL(_ path: String = "/ws") -> URL { URL(string: "wss://127.0.0.1:\(port)\(path)")! }

    /// Stops accepting connections.
    func stop() {
        channel.close(promise: nil)
        behind.stop()
    }

    deinit { channel.close(promise: nil) }
}

/// One side of a relay: what it reads goes to its partner (on the same event loop); it reads
/// only while its partner can write.
private final class Relay: ChannelDuplexHandler, @unchecked Sendable {   // used on its event loop only
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    var partner: Relay?
    private var context: ChannelHandlerContext?
    private var readWaiting = false

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) { self.context = nil; partner = nil }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) { partner?.context?.write(data, promise: nil) }
    func channelReadComplete(context: ChannelHandlerContext) { partner?.context?.flush() }
    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
        context.fireChannelInactive()
    }
    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let partner, partner.readWaiting, let other = partner.context {
            partner.readWaiting = false
            other.read()
        }
        context.fireChannelWritabilityChanged()
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? true {
            context.read()
        } else {
            readWaiting = true
        }
    }
}

/// An HTTP proxy on 127.0.0.1 that opens `CONNECT` tunnels to loopback ports (a
/// ``LoopbackServer`` whose handler relays the bytes both ways), and records what it was asked.
final class ConnectProxy: Sendable {
    let server: LoopbackServer

    init() throws {
        server = try LoopbackServer { connection in
            let parts = connection.request.path.split(separator: ":")
            guard connection.request.method == "CONNECT", parts.count == 2, let port = UInt16(parts[1]) else {
                connection.respond(status: 400, reason: "Bad Request")
                return
            }
            #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard connected == 0 else {
                close(fd)
                connection.respond(status: 502, reason: "Bad Gateway")
                return
            }
            connection.write("HTTP/1.1 200 Connection established\r\n\r\n")
            let upstreamDone = DispatchSemaphore(value: 0)
            Thread {
                ConnectProxy.pump(from: fd, to: connection.fd)
                upstreamDone.signal()
            }.start()
            ConnectProxy.pump(from: connection.fd, to: fd)   // shuts `fd` down, which ends the other way too
            upstreamDone.wait()
            close(fd)
            connection.close()
        }
    }

    /// `http://127.0.0.1:<port>`.
    var url: URL { URL(string: "http://127.0.0.1:\(server.port)")! }

    /// Copies bytes until either side ends, then shuts both down.
    private static func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = recv(source, &buffer, buffer.count, 0)
            guard count > 0 else { break }
            var sent = 0
            while sent < count {
                let written = buffer[sent..<count].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard written > 0 else { shutdown(source, Int32(SHUT_RDWR)); return }
                sent += written
            }
        }
        shutdown(destination, Int32(SHUT_RDWR))
    }
}
#endif
