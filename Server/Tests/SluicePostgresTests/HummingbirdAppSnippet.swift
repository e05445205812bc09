import Hummingbird
import Logging
import PostgresNIO
import SluiceHummingbird
import SluicePostgres

// README: hummingbird-app
/// Purchases and their events, committed together; every instance serves every topic's events.
func runPurchasesApp(database: PostgresClient.Configuration, port: Int) async throws {
    let logger = Logger(label: "purchases")
    let postgres = PostgresClient(configuration: database, backgroundLogger: logger)
    let log = PostgresEventLog(client: postgres, logger: logger)        // makes its tables if missing
    let listener = PostgresEventLogListener(log: log, logger: logger)   // one per process, every topic
    let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }
    let streams = TopicEventStreams(feeds: { try await feeds.feed(of: $0) })

    let router = Router()
    router.post("purchases/:id") { _, context in                        // the row and its event: both or neither
        let id = try context.parameters.require("id", as: Int.self)
        let event = try await log.withTransaction { connection in
            try await connection.query("INSERT INTO purchases (id) VALUES (\(id))", logger: logger)
            return try await log.append(#"{"purchase":\#(id)}"#, to: "purchases", on: connection)
        }
        return event.description                                        // its id, once committed
    }
    router.get("events/:topic") { request, context in                  // resumable on any instance
        await streams.response(to: request, topic: try context.parameters.require("topic"))
    }
    router.get("events") { request, _ in                                // ?topic=a&topic=b: many topics, one connection
        await streams.response(to: request, topics: TopicEventStreams<ServerSentEvent>.topics(of: request))
    }
    let app = Application(router: router, server: .eventStreams([.topics(streams, under: "events"), .topicList(streams, at: "events")]),
                          configuration: .init(address: .hostname("127.0.0.1", port: port)),
                          services: [postgres, listener, feeds], logger: logger)
    try await app.runService()                                          // until SIGTERM or SIGINT
}
// README: end
