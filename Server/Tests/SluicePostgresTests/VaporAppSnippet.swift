import PostgresNIO
import SluicePostgres
import SluiceVapor
import Vapor

// README: vapor-app
/// Purchases and their events, committed together; every instance serves every topic's events.
func configure(_ app: Application, database: PostgresClient.Configuration) async throws {
    let postgres = PostgresClient(configuration: database, backgroundLogger: app.logger)
    let log = PostgresEventLog(client: postgres, logger: app.logger)        // makes its tables if missing
    let listener = PostgresEventLogListener(log: log, logger: app.logger)   // one per process, every topic
    let feeds = PostgresTopicFeeds(listener: listener) { ServerSentEvent(data: $0) }
    app.lifecycle.use(RunServices(postgres, listener, feeds, logger: app.logger))   // stopped first on shutdown

    app.post("purchases", ":id") { request in                              // the row and its event: both or neither
        let id = try request.parameters.require("id", as: Int.self)
        let event = try await log.withTransaction { connection in
            try await connection.query("INSERT INTO purchases (id) VALUES (\(id))", logger: request.logger)
            return try await log.append(#"{"purchase":\#(id)}"#, to: "purchases", on: connection)
        }
        return event.description                                            // its id, once committed
    }
    app.get("events", ":topic") { request in                               // resumable on any instance
        let feed = try await feeds.feed(of: try request.parameters.require("topic"))
        return ServerSentEvents(feed: feed).response(to: request)
    }
}
// README: end
