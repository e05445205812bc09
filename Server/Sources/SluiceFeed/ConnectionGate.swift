#if Server
import Logging
import Metrics
import NIOCore
import Synchronization

/// One server's ``ConnectionLimits``, shared by all its connections: it admits or refuses each
/// connection, counts what it closed and why (``counts``, and the metrics
/// `sluice_connections_open` and `sluice_connections_closed_total` with a `reason` dimension),
/// and logs each refusal (a crowd at the limit: one line a second with how many were refused).
///
/// ```swift
/// let gate = ConnectionGate(ConnectionLimits(headTimeout: .seconds(20)), logger: logger)
/// let app = Application(router: router, server: .http1(gate: gate))
/// ```
public final class ConnectionGate: Sendable {
    /// Why a connection was refused or closed by the gate.
    public enum Reason: String, Sendable, CaseIterable {
        /// The process keeps ``ConnectionLimits/maximumConnections`` already (503).
        case full
        /// Its address keeps ``ConnectionLimits/maximumConnectionsPerAddress`` already (503).
        case addressFull = "address_full"
        /// Its request head did not arrive within ``ConnectionLimits/headTimeout`` (408).
        case headTimeout = "head_timeout"
        /// Its request line passed ``ConnectionLimits/maximumRequestLine`` (414).
        case requestLineTooLong = "request_line_too_long"
        /// Its request head passed ``ConnectionLimits/maximumHead`` (431).
        case headTooLarge = "head_too_large"
        /// It stayed idle between requests for ``ConnectionLimits/idleTimeout``.
        case idle

        /// The status the connection is answered with before it closes (`nil`: closed without one).
        package var status: (code: Int, phrase: String)? {
            switch self {
            case .full, .addressFull: (503, "Service Unavailable")
            case .headTimeout: (408, "Request Timeout")
            case .requestLineTooLong: (414, "URI Too Long")
            case .headTooLarge: (431, "Request Header Fields Too Large")
            case .idle: nil
            }
        }
    }

    /// The gate's counters at one moment.
    public struct Counts: Sendable, Hashable {
        /// Connections open through the gate now.
        public var open: Int
        /// Connections the gate closed, by reason, since it was made.
        public var closed: [Reason: Int]
    }

    /// The limits it enforces.
    public let limits: ConnectionLimits
    let logger: Logger
    private let open = Atomic<Int>(0)
    private let closedCounts = Mutex<[Int]>(Array(repeating: 0, count: Reason.allCases.count))
    private let perAddress = Mutex<[String: Int]>([:])
    /// When the last line about a refused crowd was logged (uptime nanoseconds), and how many
    /// were refused since.
    private let refusalLog = Mutex<(last: UInt64, unlogged: Int)>((0, 0))
    private let openMetric: Gauge
    private let closedMetrics: [Counter]

    /// A gate of `limits`, logging to `logger` and counting to `metrics`.
    public init(_ limits: ConnectionLimits = ConnectionLimits(), logger: Logger = Logger(label: "SluiceFeed.ConnectionGate"),
                metrics: any MetricsFactory = MetricsSystem.factory) {
        self.limits = limits
        self.logger = logger
        openMetric = Gauge(label: "sluice_connections_open", factory: metrics)
        closedMetrics = Reason.allCases.map {
            Counter(label: "sluice_connections_closed_total", dimensions: [("reason", $0.rawValue)], factory: metrics)
        }
    }

    /// The counters now.
    public var counts: Counts {
        let counted = closedCounts.withLock(of: self) { $0 }
        let closed = Dictionary(uniqueKeysWithValues: zip(Reason.allCases, counted))
        return Counts(open: open.load(ordering: .relaxed), closed: closed)
    }

    /// A connection from `address` opens: `nil` if admitted (``release(_:)`` when it closes), or
    /// the reason it is refused.
    package func admit(_ address: String?) -> Reason? {
        let now = open.wrappingAdd(1, ordering: .relaxed).newValue
        if let maximum = limits.maximumConnections, now > maximum {
            open.wrappingSubtract(1, ordering: .relaxed)
            return refused(.full, address: address)
        }
        if let maximum = limits.maximumConnectionsPerAddress, let address {
            let admitted = perAddress.withLock(of: self) { counts -> Bool in
                let held = counts[address, default: 0]
                guard held < maximum else { return false }
                counts[address] = held + 1
                return true
            }
            guard admitted else {
                open.wrappingSubtract(1, ordering: .relaxed)
                return refused(.addressFull, address: address)
            }
        }
        openMetric.record(now)
        return nil
    }

    /// An admitted connection from `address` has closed.
    package func release(_ address: String?) {
        let now = open.wrappingSubtract(1, ordering: .relaxed).newValue
        openMetric.record(now)
        if limits.maximumConnectionsPerAddress != nil, let address {
            perAddress.withLock(of: self) { counts in
                let held = counts[address, default: 1] - 1
                counts[address] = held > 0 ? held : nil
            }
        }
    }

    /// Counts and logs a connection the gate closes for `reason` after admitting it.
    package func closing(_ reason: Reason, address: String?) {
        count(reason)
        let level: Logger.Level = reason == .idle ? .debug : .notice
        logger.log(level: level, "connection closed by its limits", metadata: [
            "reason": "\(reason.rawValue)", "address": "\(address ?? "?")",
        ])
    }

    private func count(_ reason: Reason) {
        let index = Reason.allCases.firstIndex(of: reason)!
        closedCounts.withLock(of: self) { $0[index] += 1 }
        closedMetrics[index].increment()
    }

    /// Counts a refusal; logs it unless a line went out within the last second (the next says how many).
    private func refused(_ reason: Reason, address: String?) -> Reason {
        count(reason)
        let now = NIODeadline.now().uptimeNanoseconds
        let unlogged = refusalLog.withLock(of: self) { log -> Int? in
            guard now &- log.last >= 1_000_000_000 || log.last == 0 else {
                log.unlogged += 1
                return nil
            }
            defer { log = (now, 0) }
            return log.unlogged
        }
        if let unlogged {
            logger.warning("connection refused: at the connection limit", metadata: [
                "reason": "\(reason.rawValue)", "address": "\(address ?? "?")",
                "open": "\(open.load(ordering: .relaxed))",
                "limit": "\(reason == .full ? limits.maximumConnections ?? 0 : limits.maximumConnectionsPerAddress ?? 0)",
                "refusedSinceLastLine": "\(unlogged)",
            ])
        }
        return reason
    }
}
#endif
