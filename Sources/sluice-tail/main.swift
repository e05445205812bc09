// sluice-tail: prints the events of a Server-Sent Events stream (an http or https URL) or of a Sluice
// feed's WebSocket stream (ws or wss) as they come, and resumes it after the last event whenever the
// connection drops (Last-Event-ID; a WebSocket's lastEventId).
//
//     sluice-tail [--header 'Name: value']... [--last-event-id ID] URL
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SluiceEventSource

func usage() -> Never {
    FileHandle.standardError.write(Data("usage: sluice-tail [--header 'Name: value']... [--last-event-id ID] URL\n".utf8))
    exit(2)
}

var arguments = CommandLine.arguments.dropFirst()
var headers: [(String, String)] = []
var lastEventID: String?
var urlString: String?
while let argument = arguments.popFirst() {
    switch argument {
    case "--header", "-H":
        guard let header = arguments.popFirst(), let colon = header.firstIndex(of: ":") else { usage() }
        headers.append((String(header[..<colon]), header[header.index(after: colon)...].trimmingCharacters(in: .whitespaces)))
    case "--last-event-id":
        guard let id = arguments.popFirst() else { usage() }
        lastEventID = id
    case "--help", "-h":
        usage()
    default:
        guard urlString == nil else { usage() }
        urlString = argument
    }
}
guard let urlString, let url = URL(string: urlString) else { usage() }

let overWebSocket = ["ws", "wss"].contains(url.scheme?.lowercased() ?? "")
var request = URLRequest(url: url)
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

/// One line per event: `id`, `event` and `data` (its line breaks shown as `\n`).
func line(for event: EventSource.Event) -> String {
    switch event {
    case .event(let message):
        let data = message.data.replacingOccurrences(of: "\n", with: "\\n")
        return "id: \(message.id)\tevent: \(message.event)\tdata: \(data)"
    case .reset(let missed):
        return "-- reset: \(missed.map { "\($0) events" } ?? "an unknown number of events") missed; refetch the state"
    case .dropped(let count):
        return "-- dropped: the server dropped \(count) events for this client"
    case .shutdown(let reason):
        return "-- shutdown: \(reason); reconnecting"
    }
}

do {
    let events: any AsyncSequence<EventSource.Event, any Error> = overWebSocket
        ? EventSocket(request: request).events : EventSource(request: request).events
    for try await event in events {
        print(line(for: event))
        fflush(nil)   // every line at once, also into a pipe
    }
} catch {
    FileHandle.standardError.write(Data("sluice-tail: \(error)\n".utf8))
    exit(1)
}
