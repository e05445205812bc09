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

private typealias Frames = LoopbackServer.Connection

/// A configuration for tests: reconnects at once.
private let quick = EventSource.Configuration(reconnectionTime: .milliseconds(10), maximumBackoff: .milliseconds(50))

/// The cursor of a stream of several topics, a topic's events and its control events, read without
/// a network.
@Suite("Topics: cursors and control events")
struct TopicCursorTests {
    let topics = ["orders", "chat", "prices"]

    @Test func theCheckIsTheServersFNV1aOfTheNames() {
        // FNV-1a (32 bits) over each name and a NUL, as SluiceFeed's TopicCursor makes it.
        #expect(FeedCursor.check(of: topics) == "01b34c44")
        #expect(FeedCursor.check(of: ["a", "b"]) == "81977b96")
        #expect(FeedCursor.check(of: ["b", "a"]) == "7f762f4e")
        #expect(FeedCursor.check(of: ["prices"]) == "e8bedb81")
    }

    @Test func aCursorGivesEachTopicItsIdWithTheEpochCarriedOn() {
        let cursor = FeedCursor("01b34c44/ep1-4,7,ep2-0", topics: topics)
        #expect(cursor?.entries == ["ep1-4", "ep1-7", "ep2-0"])
        #expect(FeedCursor("01b34c44/a_B9-12,3,4", topics: topics)?.entries == ["a_B9-12", "a_B9-3", "a_B9-4"])
    }

    @Test func anythingElseIsNotACursorOfTheseTopics() {
        for text in ["", "ep1-4", "01b34c44", "01b34c44/", "01b34c44/ep1-4,7", "01b34c44/ep1-4,7,8,9",
                     "01b34c45/ep1-4,7,8", "01b34c44/7,ep1-4,8", "01b34c44/ep1-4,,8", "01b34c44/ep-1-4,7,8",
                     "01b34c44/ep1-x,7,8", "01b34c44/ep1-4,7,-8", "01b34c44/ep 1-4,7,8"] {
            #expect(FeedCursor(text, topics: topics) == nil, "\(text)")
        }
        // The same entries read against the list in another order: another check.
        #expect(FeedCursor("01b34c44/ep1-4,7,8", topics: ["chat", "orders", "prices"]) == nil)
    }

    @Test func anEventOfATopicIsPlacedByItsTypeAndTheCursor() {
        let message = EventSource.Message(id: "01b34c44/ep1-4,7,8", event: "chat", data: "hi")
        let placed = message.placed(in: topics)
        #expect(placed.topic == "chat")
        #expect(placed.topicEventID == "ep1-7")
        #expect(placed.id == "01b34c44/ep1-4,7,8")   // the last event ID stays the cursor: it resumes them all
        #expect(placed.description == "topic: chat id: ep1-7 data: hi")
        // An event of no topic of the list, and a cursor of another list.
        #expect(EventSource.Message(id: "01b34c44/ep1-4,7,8", event: "message", data: "x").placed(in: topics).topic == nil)
        let foreign = EventSource.Message(id: "ffffffff/ep1-4,7,8", event: "chat", data: "x").placed(in: topics)
        #expect(foreign.topic == "chat" && foreign.topicEventID == nil)
        // A list of one topic also takes a plain id.
        #expect(EventSource.Message(id: "ep1-9", event: "prices", data: "x").placed(in: ["prices"]).topicEventID == "ep1-9")
    }

    @Test func aTopicsResetDropAndRefusalAreTypedValuesThatNameIt() {
        func recognized(_ event: String, _ data: String) -> EventSource.Event {
            EventSource.Event(recognizing: EventSource.Message(event: event, data: data))
        }
        #expect(recognized("reset", #"{"topic":"chat","missed":3}"#) == .topicReset(topic: "chat", missed: 3))
        #expect(recognized("reset", #"{"missed":null,"topic":"chat"}"#) == .topicReset(topic: "chat", missed: nil))
        #expect(recognized("dropped", #"{"topic":"a \"b\"","dropped":2}"#) == .topicDropped(topic: "a \"b\"", count: 2))
        #expect(recognized("refused", #"{"topic":"x","reason":"forbidden"}"#) == .topicRefused(topic: "x", reason: "forbidden"))
        #expect(recognized("refused", #"{"topic":null,"reason":"unreadable"}"#) == .topicRefused(topic: nil, reason: "unreadable"))
        // A stream of one topic's control events are as they were.
        #expect(recognized("reset", #"{"missed":3}"#) == .reset(missed: 3))
        #expect(recognized("dropped", #"{"dropped":3}"#) == .dropped(count: 3))
        // What is not what Sluice sends stays an ordinary event.
        for (event, data) in [("reset", #"{"topic":"chat","missed":-1}"#), ("reset", #"{"topic":"chat"}"#),
                              ("dropped", #"{"topic":"chat","dropped":"2"}"#), ("reset", #"{"topic":"c","missed":1,"x":2}"#),
                              ("refused", #"{"topic":"x"}"#), ("refused", "no")] {
            #expect(recognized(event, data) == .event(EventSource.Message(event: event, data: data)), "\(event) \(data)")
        }
        #expect(EventSource.Event.topicReset(topic: "chat", missed: 1).topic == "chat")
        #expect(EventSource.Event.reset(missed: 1).topic == nil)
    }

    @Test func aSocketOfTopicsNamesATopicWithoutPositionAndResumesTheOthers() {
        var decoder = SocketMessageDecoder(lastEventID: "")
        decoder.follow(["a", "b"])
        #expect(decoder.connecting() == ["a"])
        #expect(decoder.opened() == [#"{"subscribe":"b"}"#])
        let messages = [#"{"event":"subscribed","topic":"a"}"#, #"{"event":"subscribed","topic":"b"}"#,
                        #"{"topic":"a","id":"e-1","data":"a1"}"#, #"{"topic":"b","id":"e-5","data":"b5"}"#,
                        #"{"topic":"a","id":"e-1","data":"a1 again"}"#,
                        #"{"event":"reset","topic":"b","missed":2}"#, #"{"event":"dropped","topic":"a","dropped":1}"#]
        var published: [EventSource.Event] = []
        for message in messages { decoder.take(Data(message.utf8)) }
        while let message = decoder.next() { published.append(EventSource.Event(recognizing: message)) }
        #expect(published == [
            .event(.init(id: "e-1", event: "a", data: "a1", topic: "a", topicEventID: "e-1")),
            .event(.init(id: "e-5", event: "b", data: "b5", topic: "b", topicEventID: "e-5")),
            .topicReset(topic: "b", missed: 2),
            .topicDropped(topic: "a", count: 1),
        ])
        // Subscribed to while open; left; then the connection is lost: the next one names a topic
        // that has no position yet and resumes the other after its last event.
        #expect(decoder.subscribe("c", after: nil) == [#"{"subscribe":"c"}"#])
        #expect(decoder.subscribe("c", after: nil).isEmpty)
        #expect(decoder.unsubscribe("a") == [#"{"unsubscribe":"a"}"#])
        decoder.take(Data(#"{"topic":"a","id":"e-2","data":"after leaving"}"#.utf8))
        #expect(decoder.next() == nil)
        #expect(decoder.connecting() == ["c"])
        #expect(decoder.opened() == [#"{"subscribe":"b","after":"e-5"}"#])
        // Every topic has a position: the URL's is left, then joined again after its last event;
        // what the server sends of it before it confirms is not published.
        decoder.take(Data(#"{"topic":"c","id":"x-3","data":"c3"}"#.utf8))
        #expect(decoder.next()?.topicEventID == "x-3")
        #expect(decoder.connecting() == ["b"])
        #expect(decoder.opened() == [#"{"unsubscribe":"b"}"#, #"{"subscribe":"b","after":"e-5"}"#, #"{"subscribe":"c","after":"x-3"}"#])
        for message in [#"{"event":"subscribed","topic":"b"}"#, #"{"topic":"b","id":"e-9","data":"live, too early"}"#,
                        #"{"event":"unsubscribed","topic":"b"}"#, #"{"event":"subscribed","topic":"b"}"#,
                        #"{"topic":"b","id":"e-6","data":"b6"}"#, #"{"event":"refused","topic":"c","reason":"forbidden"}"#] {
            decoder.take(Data(message.utf8))
        }
        var rest: [EventSource.Event] = []
        while let message = decoder.next() { rest.append(EventSource.Event(recognizing: message)) }
        #expect(rest == [.event(.init(id: "e-6", event: "b", data: "b6", topic: "b", topicEventID: "e-6")),
                         .topicRefused(topic: "c", reason: "forbidden")])
        #expect(decoder.topics?.wanted == ["b"])
        #expect(decoder.subscribe("q\"", after: "e-1") == [#"{"subscribe":"q\"","after":"e-1"}"#])
    }

    @Test func aResetsIDIsWhereTheTopicResumesOnTheNextSocket() {
        var decoder = SocketMessageDecoder(lastEventID: "")
        decoder.follow(["a", "b"])
        _ = decoder.connecting()
        _ = decoder.opened()
        for message in [#"{"topic":"a","id":"e-3","data":"a3"}"#, #"{"topic":"b","id":"e-4","data":"b4"}"#,
                        // b's history moved: the server puts it at g-10 (a new epoch), a at e-3 untouched.
                        #"{"event":"reset","topic":"b","id":"g-10","missed":null}"#,
                        // an id that is not an event id does not move it.
                        #"{"event":"reset","topic":"a","id":"not an id","missed":1}"#] {
            decoder.take(Data(message.utf8))
        }
        var published: [EventSource.Event] = []
        while let message = decoder.next() { published.append(EventSource.Event(recognizing: message)) }
        #expect(published.suffix(2) == [.topicReset(topic: "b", missed: nil), .topicReset(topic: "a", missed: 1)])
        #expect(decoder.connecting() == ["a"])
        #expect(decoder.opened() == [#"{"unsubscribe":"a"}"#, #"{"subscribe":"a","after":"e-3"}"#, #"{"subscribe":"b","after":"g-10"}"#])
    }
}

/// A stream of several topics over loopback: a Sluice feed's cursors, control events and resume.
@Suite("Topics over loopback", .timeLimit(.minutes(1)))
struct TopicsLoopbackTests {
    /// A feed of topics `a` and `b`: the first connection sends two events of each, a reset of `b`
    /// and a drop of `a`, and ends; the second (which must come with the last cursor) sends one
    /// more of `b`; the third is answered 204.
    private func feed() throws -> LoopbackServer {
        let check = FeedCursor.check(of: ["a", "b"])
        return try LoopbackServer { connection in
            switch connection.index {
            case 0:
                connection.writeStreamHead()
                connection.write("retry: 10\nid: \(check)/e-1,e-0\nevent: a\ndata: a1\n\n"
                                 + "id: \(check)/e-1,1\nevent: b\ndata: b1\n\n"
                                 + "event: reset\ndata: {\"topic\":\"b\",\"missed\":null}\n\n"
                                 + "id: \(check)/e-2,f-4\nevent: b\ndata: b4\n\n"
                                 + "event: dropped\ndata: {\"topic\":\"a\",\"dropped\":2}\n\n"
                                 + "id: \(check)/e-5,f-4\nevent: a\ndata: a5\n\n")
                connection.close()
            case 1:
                connection.writeStreamHead()
                connection.write("id: \(check)/e-5,f-5\nevent: b\ndata: b5\n\n")
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
    }

    private let expected: [EventSource.Event] = {
        let check = FeedCursor.check(of: ["a", "b"])
        return [
            .event(.init(id: "\(check)/e-1,e-0", event: "a", data: "a1", retry: 10, topic: "a", topicEventID: "e-1")),
            .event(.init(id: "\(check)/e-1,1", event: "b", data: "b1", topic: "b", topicEventID: "e-1")),
            .topicReset(topic: "b", missed: nil),
            .event(.init(id: "\(check)/e-2,f-4", event: "b", data: "b4", topic: "b", topicEventID: "f-4")),
            .topicDropped(topic: "a", count: 2),
            .event(.init(id: "\(check)/e-5,f-4", event: "a", data: "a5", topic: "a", topicEventID: "e-5")),
            .event(.init(id: "\(check)/e-5,f-5", event: "b", data: "b5", topic: "b", topicEventID: "f-5")),
        ]
    }()

    @Test func theAsyncSequenceFollowsEveryTopicAndResumesThemAllWithTheCursor() async throws {
        let server = try feed()
        let source = EventSource(url: server.url("/events?x=1"), topics: ["a", "b", "a"], configuration: quick)
        #expect(source.topics == ["a", "b"])
        var events: [EventSource.Event] = []
        for try await event in source.events { events.append(event) }
        #expect(events == expected)
        #expect(server.requests.values.map(\.path) == Array(repeating: "/events?x=1&topic=a&topic=b", count: 3))
        let check = FeedCursor.check(of: ["a", "b"])
        #expect(server.requests.values.map { $0.headers["last-event-id"] } == [nil, "\(check)/e-5,f-4", "\(check)/e-5,f-5"])
    }

    @Test func thePublisherFollowsEveryTopicToo() async throws {
        let server = try feed()
        let subscriber = RecordingSubscriber()
        EventSource(url: server.url("/events"), topics: ["a", "b"], configuration: quick).subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: expected.count))
        #expect(subscriber.events.values == expected)
        subscriber.cancel()
    }

    @Test func aTopicsNameIsEscapedInTheQuery() {
        let source = EventSource(url: URL(string: "http://127.0.0.1/events")!, topics: ["a+b", "c&d=e", "é"])
        #expect(source.request.url?.absoluteString == "http://127.0.0.1/events?topic=a%2Bb&topic=c%26d%3De&topic=%C3%A9")
        #expect(source.topics == ["a+b", "c&d=e", "é"])
        #expect(EventSource(url: URL(string: "http://127.0.0.1/events")!).topics.isEmpty)
    }

    /// A socket of topics: the client names `a` in its URL and subscribes to `b`; subscribes to `c`
    /// and leaves `a` while connected; after a drop it names `c` (no event yet) and resumes `b`
    /// after its last event.
    @Test func aSocketOfTopicsSubscribesUnsubscribesAndResumesEachTopic() async throws {
        let sent = Recorder<String>()
        let second = Recorder<Int>()
        let server = try LoopbackServer { connection in
            // Generous: the client's messages come when the test's task goes on after its wait,
            // which a loaded machine (the parallel run under Thread Sanitizer) delayed past 10 s.
            func read(_ count: Int) {
                for _ in 0..<count {
                    guard let frame = connection.readFrame(limit: 60), frame.opcode == 0x1 else { return }
                    sent.append("\(connection.index) " + String(decoding: frame.payload, as: UTF8.self))
                }
            }
            connection.acceptWebSocket()
            switch connection.index {
            case 0:
                connection.write(Frames.text(#"{"event":"subscribed","topic":"a"}"#))
                read(1)   // subscribe b
                connection.write(Frames.text(#"{"event":"subscribed","topic":"b"}"#)
                                 + Frames.text(#"{"topic":"a","id":"e-1","data":"a1"}"#)
                                 + Frames.text(#"{"topic":"b","id":"e-7","data":"b7"}"#))
                read(2)   // subscribe c, unsubscribe a
                connection.write(Frames.text(#"{"event":"subscribed","topic":"c"}"#)
                                 + Frames.text(#"{"topic":"a","id":"e-2","data":"a2, sent before leaving"}"#)
                                 + Frames.text(#"{"event":"unsubscribed","topic":"a"}"#)
                                 + Frames.text(#"{"topic":"b","id":"e-8","data":"b8"}"#)
                                 + Frames.close(1001, "going away"))
                _ = connection.readFrame()
                connection.close()
            case 1:
                read(1)   // subscribe b after e-8
                connection.write(Frames.text(#"{"topic":"b","id":"e-9","data":"b9"}"#)
                                 + Frames.text(#"{"topic":"c","id":"e-1","data":"c1"}"#))
                second.append(1)
                _ = connection.readFrame(limit: 30)
                connection.close()
            default:
                connection.respond(status: 204, reason: "No Content")
            }
        }
        let socket = EventSocket(url: server.webSocketURL("/ws?topic=a"), topics: ["b"], configuration: quick)
        #expect(socket.topics == ["a", "b"])
        let subscriber = RecordingSubscriber()
        socket.subscribe(subscriber)
        #expect(await subscriber.events.wait(forCount: 2))
        socket.subscribe("c")
        socket.unsubscribe("a")
        #expect(socket.topics == ["b", "c"])
        #expect(await subscriber.events.wait(forCount: 5))
        #expect(await second.wait(forCount: 1))
        let published = subscriber.events.values.compactMap { $0.message.map { "\($0.topic ?? "-") \($0.topicEventID ?? "-") \($0.data)" } }
        #expect(published == ["a e-1 a1", "b e-7 b7", "b e-8 b8", "b e-9 b9", "c e-1 c1"])
        #expect(sent.values == ["0 {\"subscribe\":\"b\"}", "0 {\"subscribe\":\"c\"}", "0 {\"unsubscribe\":\"a\"}",
                                "1 {\"subscribe\":\"b\",\"after\":\"e-8\"}"])
        #expect(server.requests.values.prefix(2).map(\.path) == ["/ws?topic=a", "/ws?topic=c"])
        subscriber.cancel()
    }

    @Test func sluiceTailLikeUseOfARequestWithTopicsInItsURL() {
        let socket = EventSocket(request: URLRequest(url: URL(string: "ws://127.0.0.1/ws?topic=a&x=1&topic=b")!), topics: ["c", "a"])
        #expect(socket.topics == ["a", "b", "c"])
        #expect(socket.request.url?.absoluteString == "ws://127.0.0.1/ws?x=1")
        #expect(EventSocket(url: URL(string: "ws://127.0.0.1/ws")!).topics.isEmpty)
    }
}
