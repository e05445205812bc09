// sluice-tail: prints the events of a Server-Sent Events stream (an http or https URL) or of a Sluice
// feed's WebSocket stream (ws or wss) as they come, and resumes it after the last event whenever the
// connection drops (Last-Event-ID; a WebSocket's lastEventId). Every failed attempt goes to stderr
// as it happens; -v adds each connection and resume. With --topic (repeatable) it follows several
// topics of a Sluice feed on one connection (`/events?topic=a&topic=b`, or a socket of topics on
// `/ws`), each line naming its event's topic, and every topic resumes after its own last event.
// Built with the package trait TLS (`swift build --traits TLS --product sluice-tail`), https and wss
// go through SwiftNIO SSL on Linux, with --cacert, --no-system-roots, --cert and --key.
//
//     sluice-tail [-v] [--max-attempts N] [--header 'Name: value']... [--last-event-id ID] [--topic T]...
//                 [--cacert PATH]... [--no-system-roots] [--cert PATH --key PATH] URL
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceEventSource

let usageText = """
    usage: sluice-tail [-v] [--max-attempts N] [--header 'Name: value']... [--last-event-id ID] [--topic T]...
                       [--cacert PATH]... [--no-system-roots] [--cert PATH --key PATH] URL

    Prints the events of a Server-Sent Events stream (http:, https:) or of a Sluice feed's WebSocket
    stream (ws:, wss:), one line each, and resumes after the last event whenever the connection drops.
    Failed attempts are written to stderr as they happen, with the wait before the next.

      -H, --header 'Name: value'  a header sent with every request (repeatable)
      --last-event-id ID          start after event ID
      -t, --topic T               follow topic T of a Sluice feed (repeatable: several topics on one
                                  connection, each line naming its topic)
      --max-attempts N            give up (exit 1) after N consecutive failed attempts
      --cacert PATH               also trust the CA certificates in the PEM file PATH (repeatable)
      --no-system-roots           trust only the --cacert certificates, not the system's
      --cert PATH, --key PATH     present this client certificate (PEM chain) and key (mutual TLS)
                                  (these four: off Apple's systems, only in a build with the trait
                                  TLS: swift build --traits TLS --product sluice-tail)
      -v, --verbose               also write each connection and resume to stderr
      -h, --help                  print this and exit

    """

/// Writes `text` and a line break to stderr at once.
func printError(_ text: String) {
    FileHandle.standardError.write(Data("sluice-tail: \(text)\n".utf8))
}

func usage() -> Never {
    FileHandle.standardError.write(Data(usageText.utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
var headers: [(String, String)] = []
var lastEventID: String?
var urlString: String?
var verbose = false
var maximumAttempts: Int?
var topics: [String] = []
var tls = EventSource.TLSOptions()
var certificate: String?
var key: String?
while let argument = arguments.popFirst() {
    switch argument {
    case "--header", "-H":
        guard let header = arguments.popFirst(), let colon = header.firstIndex(of: ":") else { usage() }
        headers.append((String(header[..<colon]), header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    case "--last-event-id":
        guard let id = arguments.popFirst() else { usage() }
        lastEventID = id
    case "--topic", "-t":
        guard let topic = arguments.popFirst() else { usage() }
        topics.append(topic)
    case "--max-attempts":
        guard let count = arguments.popFirst().flatMap({ Int($0) }), count >= 1 else { usage() }
        maximumAttempts = count
    case "--cacert":
        guard let path = arguments.popFirst() else { usage() }
        tls.trustRoots.append(.file(path))
    case "--no-system-roots":
        tls.trustsSystemRoots = false
    case "--cert":
        guard let path = arguments.popFirst() else { usage() }
        certificate = path
    case "--key":
        guard let path = arguments.popFirst() else { usage() }
        key = path
    case "--verbose", "-v":
        verbose = true
    case "--help", "-h":
        print(usageText, terminator: "")
        exit(0)
    default:
        guard urlString == nil, !argument.hasPrefix("-") else { usage() }
        urlString = argument
    }
}
guard let urlString, let url = URL(string: urlString) else { usage() }
switch (certificate, key) {
case (let certificate?, let key?):
    tls.clientCertificate = .init(certificateChain: .file(certificate), privateKey: .file(key))
case (nil, nil):
    break
default:
    printError("--cert and --key go together")
    usage()
}
#if !TLS || canImport(Darwin)
if tls != EventSource.TLSOptions() {
    printError("--cacert, --no-system-roots, --cert and --key need the TLS stack of the package trait TLS, off Apple's systems: "
        + "swift build --traits TLS --product sluice-tail")
    exit(2)
}
#endif

let overWebSocket = ["ws", "wss"].contains(url.scheme?.lowercased() ?? "")
// A stream of several topics over Server-Sent Events names them in its URL; a socket of topics
// subscribes to them itself.
var request = URLRequest(url: overWebSocket ? url : EventSource(url: url, topics: topics).request.url ?? url)
for (name, value) in headers { request.addValue(value, forHTTPHeaderField: name) }
if let lastEventID {
    if overWebSocket, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) {
        components.queryItems = (components.queryItems ?? []).filter { $0.name != "lastEventId" }
            + [URLQueryItem(name: "lastEventId", value: lastEventID)]
        request.url = components.url ?? url
    } else {
        request.setValue(lastEventID, forHTTPHeaderField: "Last-Event-ID")
    }
}

/// One line per event: `id`, `event` and `data` (its line breaks shown as `\n`); an event of a
/// topic: `topic`, its id in the topic and `data`.
func line(for event: EventSource.Event) -> String {
    switch event {
    case .event(let message):
        let data = message.data.replacingOccurrences(of: "\n", with: "\\n")
        if let topic = message.topic {
            return "topic: \(topic)\tid: \(message.topicEventID ?? message.id)\tdata: \(data)"
        }
        return "id: \(message.id)\tevent: \(message.event)\tdata: \(data)"
    case .reset(let missed):
        return "-- reset: \(missed.map { "\($0) events" } ?? "an unknown number of events") missed; refetch the state"
    case .dropped(let count):
        return "-- dropped: the server dropped \(count) events for this client"
    case .shutdown(let reason):
        return "-- shutdown: \(reason); reconnecting"
    case .topicReset(let topic, let missed):
        return "-- reset of \(topic): \(missed.map { "\($0) events" } ?? "an unknown number of events") missed; refetch its state"
    case .topicDropped(let topic, let count):
        return "-- dropped: the server dropped \(count) events of \(topic) for this client"
    case .topicRefused(let topic, let reason):
        return "-- refused\(topic.map { " \($0)" } ?? ""): \(reason)"
    }
}

/// Failed attempts always, connections and resumes with `-v`: on stderr, as they happen.
let report: @Sendable (EventSource.ConnectionEvent) -> Void = { [verbose] event in
    switch event {
    case .attemptFailed, .disconnected(error: .some, _): printError(event.description)
    case .connecting, .connected, .disconnected: if verbose { printError(event.description) }
    }
}

do {
    let configuration = EventSource.Configuration(maximumAttempts: maximumAttempts, tls: tls)
    let events: any AsyncSequence<EventSource.Event, any Error> = overWebSocket
        ? EventSocket(request: request, topics: topics, configuration: configuration, onConnectionEvent: report).events
        : EventSource(request: request, configuration: configuration, onConnectionEvent: report).events
    for try await event in events {
        print(line(for: event))
        fflush(nil)   // every line at once, also into a pipe
    }
} catch {
    printError("\(error)")
    exit(1)
}
