import Foundation
import SluiceHummingbird

/// The server's command line:
///
/// ```
/// sluice-feed --port P [--host 127.0.0.1] [--engine sluice|share-bounded|share-latest|channel|stream]
///             [--buffer N] [--policy drop-oldest|drop-newest|disconnect] [--instance NAME] [--postgres]
///             [--write-buffer BYTES] [--framework hummingbird|vapor] [--streams loop|router]
///             [--partition-limit SECONDS] [--topics N]
/// ```
///
/// `--port 0` lets the system pick a free port; the server prints the one it got. `--help` (`-h`)
/// prints the usage and exits.
struct FeedOptions: Sendable {
    var host = "127.0.0.1"
    var port = 8080
    var engine = EngineKind.sluice
    /// Sluice's per-client buffer; the `n` of `share(bufferingPolicy: .bufferingLatest(n))` and of
    /// `AsyncStream`'s `.bufferingNewest(n)`.
    var buffer = 256
    var policy = PolicyKind.dropOldest
    var instance = "feed"
    /// Publish posted events through PostgreSQL and feed from its notifications (settings from the
    /// `SLUICE_PG_*` environment variables).
    var postgres = false
    /// With `--postgres`: how long the instance keeps its feeds open while it cannot reach the
    /// database, before it ends their streams so that its clients resume elsewhere (30 s; the
    /// fleet test sets it short).
    var partitionLimit = Duration.seconds(30)
    /// The high-water mark of each connection's write buffer in bytes (the low one is half of it):
    /// how much NIO holds for a client that does not read before the engine's writer is made to
    /// wait. `nil`: NIO's default (64 KiB). The fan-out benchmark sets it small, for every engine,
    /// so that a stalled client's back-pressure reaches the engine within tens of events.
    var writeBuffer: Int?
    /// `--topics N`: Sluice's engine with `N` topics in memory (``TopicsEngine``), served at
    /// `GET /events?topic=…` as the event log's topics are; the benchmark's events go to topics
    /// drawn at random (``BenchTopics``). Sluice's engine on Hummingbird only, without `--postgres`.
    var topics: Int?
    /// The HTTP framework serving the routes: Hummingbird (every engine) or Vapor (Sluice's engine).
    var framework = Framework.hummingbird

    /// On Hummingbird, how Sluice's Server-Sent Events are served: from the event loop
    /// (`.eventStreams`, as the guide's apps serve them) or by the router's route, a task per response.
    var streams = StreamServing.loop

    /// How Sluice's streams are served on Hummingbird.
    enum StreamServing: String, CaseIterable, Sendable {
        case loop
        case router
    }

    /// The HTTP frameworks the server can run on.
    enum Framework: String, CaseIterable, Sendable {
        case hummingbird
        case vapor
    }

    /// The engines the server can fan out with.
    enum EngineKind: String, CaseIterable, Sendable {
        case sluice
        case shareBounded = "share-bounded"
        case shareLatest = "share-latest"
        case channel
        case stream
    }

    /// `--policy`: what Sluice's engine does with a client that falls behind.
    enum PolicyKind: String, CaseIterable, Sendable {
        case dropOldest = "drop-oldest"
        case dropNewest = "drop-newest"
        case disconnect
    }

    /// The Sluice engine's policy with the `--buffer` size.
    var slowClientPolicy: SlowClientPolicy {
        switch policy {
        case .dropOldest: .dropOldest(buffer: buffer)
        case .dropNewest: .dropNewest(buffer: buffer)
        case .disconnect: .disconnect(buffer: buffer)
        }
    }

    static let usage = """
        usage: sluice-feed --port P [--host 127.0.0.1] [--engine \(EngineKind.allCases.map(\.rawValue).joined(separator: "|"))]
                           [--buffer N] [--policy \(PolicyKind.allCases.map(\.rawValue).joined(separator: "|"))]
                           [--instance NAME] [--postgres] [--write-buffer BYTES] [--framework hummingbird|vapor]
                           [--streams loop|router] [--partition-limit SECONDS] [--topics N]
        """

    /// A command-line mistake, with what to say about it.
    struct Mistake: Error, CustomStringConvertible {
        let description: String
    }

    /// Parses the arguments after the program's name.
    static func parse(_ arguments: some Collection<String>) throws(Mistake) -> FeedOptions {
        var options = FeedOptions()
        var rest = arguments.makeIterator()
        func value(of flag: String) throws(Mistake) -> String {
            guard let value = rest.next() else { throw Mistake(description: "\(flag) needs a value") }
            return value
        }
        func number(of flag: String, atLeast minimum: Int) throws(Mistake) -> Int {
            let text = try value(of: flag)
            guard let number = Int(text), number >= minimum else {
                throw Mistake(description: "\(flag) takes a whole number of at least \(minimum), not \(text)")
            }
            return number
        }
        while let flag = rest.next() {
            switch flag {
            case "--help", "-h":
                print(usage)
                exit(0)
            case "--host": options.host = try value(of: flag)
            case "--port": options.port = try number(of: flag, atLeast: 0)
            case "--buffer": options.buffer = try number(of: flag, atLeast: 1)
            case "--instance": options.instance = try value(of: flag)
            case "--postgres": options.postgres = true
            case "--write-buffer": options.writeBuffer = try number(of: flag, atLeast: 2)
            case "--partition-limit": options.partitionLimit = .seconds(try number(of: flag, atLeast: 1))
            case "--topics": options.topics = try number(of: flag, atLeast: 1)
            case "--engine":
                let text = try value(of: flag)
                guard let engine = EngineKind(rawValue: text) else { throw Mistake(description: "unknown engine \(text)") }
                options.engine = engine
            case "--framework":
                let text = try value(of: flag)
                guard let framework = Framework(rawValue: text) else { throw Mistake(description: "unknown framework \(text)") }
                options.framework = framework
            case "--streams":
                let text = try value(of: flag)
                guard let streams = StreamServing(rawValue: text) else { throw Mistake(description: "unknown way of serving streams \(text)") }
                options.streams = streams
            case "--policy":
                let text = try value(of: flag)
                guard let policy = PolicyKind(rawValue: text) else { throw Mistake(description: "unknown policy \(text)") }
                options.policy = policy
            default:
                throw Mistake(description: "unknown argument \(flag)")
            }
        }
        if options.framework == .vapor, options.engine != .sluice || options.writeBuffer != nil {
            throw Mistake(description: "--framework vapor serves Sluice's engine only, without --write-buffer")
        }
        if options.topics != nil, options.engine != .sluice || options.framework != .hummingbird || options.postgres {
            throw Mistake(description: "--topics serves Sluice's engine on Hummingbird only, without --postgres")
        }
        return options
    }
}
