#if Server
import NIOCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bounds a server puts on each connection and on how many it keeps, so that no client holds
/// a connection it does not use and no crowd takes the process to its open-file limit.
///
/// Enforced by a ``ConnectionGate`` in front of each connection's HTTP decoding (in
/// SluiceHummingbird: `HTTPServerBuilder.http1(gate:)`, `.eventStreams(_:gate:)`). A refused
/// connection is answered with a plain-text status and `Connection: close`, then closed.
public struct ConnectionLimits: Sendable, Hashable {
    /// How long a request head may take to arrive, from the connection's opening (or, on a
    /// connection kept alive, from the first byte of its next request) to the empty line that ends
    /// it; then `408 Request Timeout` and the connection closes. `nil`: no limit. Default: 30 s
    /// (nginx's `client_header_timeout` is 60 s).
    public var headTimeout: TimeAmount?
    /// How long a kept-alive connection may wait between a response's end and its next request's
    /// first byte; then it closes. `nil`: no limit. Default: 75 s (nginx's `keepalive_timeout`).
    /// A stream being served is not idle, however rarely it writes.
    public var idleTimeout: TimeAmount?
    /// The longest request line answered, without its line end; a longer one gets `414 URI Too
    /// Long` as soon as it passes this length. Default: 8,192 bytes (nginx's header buffer).
    public var maximumRequestLine: Int
    /// The largest request head answered, its line ends included; a larger one gets `431 Request
    /// Header Fields Too Large` as soon as it passes this size. Default: 32,768 bytes (nginx's
    /// `large_client_header_buffers 4 8k`).
    public var maximumHead: Int
    /// The most connections the process keeps open through this gate; one more is answered `503
    /// Service Unavailable` (with `Retry-After`) and closed. `nil`: no limit. Default:
    /// ``defaultMaximumConnections``, below the open-file limit.
    public var maximumConnections: Int?
    /// The most connections one client address may keep open; one more is answered `503` and
    /// closed. `nil` (the default): no limit per address.
    public var maximumConnectionsPerAddress: Int?

    /// Limits with these values; each has its default.
    public init(headTimeout: TimeAmount? = .seconds(30), idleTimeout: TimeAmount? = .seconds(75),
                maximumRequestLine: Int = 8_192, maximumHead: Int = 32_768,
                maximumConnections: Int? = ConnectionLimits.defaultMaximumConnections,
                maximumConnectionsPerAddress: Int? = nil) {
        self.headTimeout = headTimeout
        self.idleTimeout = idleTimeout
        self.maximumRequestLine = maximumRequestLine
        self.maximumHead = maximumHead
        self.maximumConnections = maximumConnections
        self.maximumConnectionsPerAddress = maximumConnectionsPerAddress
    }

    /// The process's open-file limit now (its soft limit) less a reserve for everything else it
    /// opens — a twentieth of it, at least 64 — so that a crowd is refused before `accept` fails.
    /// With the limit raised at start-up (`ulimit -n`, `setrlimit`), make the limits after it.
    public static var defaultMaximumConnections: Int {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = Int32(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return 1_024 - 64 }
        let files = Int(clamping: limit.rlim_cur)
        return max(1, files - max(64, files / 20))
    }
}
#endif
