import Foundation

/// The examples' WebSocket message of an event: `{"id":"<id>","data":"<text>"}` (a client resumes
/// with `?lastEventId=<id>`).
public enum SocketMessage {
    /// The message of the event `id` whose text is `data`.
    public static func json(id: some CustomStringConvertible, data: String) -> String {
        "{\"id\":\(jsonString(id.description)),\"data\":\(jsonString(data))}"
    }

    /// `text` as a JSON string literal.
    static func jsonString(_ text: String) -> String {
        String(decoding: (try? JSONEncoder().encode(text)) ?? Data(#""""#.utf8), as: UTF8.self)
    }
}
