import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOHTTP1
import Sluice
import SluiceHummingbird
import Testing

extension OverLoopback {
    /// The application's middleware on the event-loop path (`EventStreamRoute.applying(_:)`):
    /// Hummingbird's CORS middleware and an authenticator give a stream served from the event loop
    /// the same head and the same refusals as the router's route, which the same middleware wraps.
    @Suite struct EventStreamMiddlewareTests {
        /// Refuses a request without `X-Token: good` with 401 and a `WWW-Authenticate` header.
        struct Authenticator: RouterMiddleware {
            typealias Context = BasicRequestContext
            func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
                guard request.headers[HTTPField.Name("X-Token")!] == "good" else {
                    throw HTTPError(.unauthorized, headers: [.wwwAuthenticate: "Token"], message: "who are you?")
                }
                return try await next(request, context)
            }
        }

        /// What a client sees of an answer: status, the headers the middleware concerns, and, for a
        /// refusal, its body.
        struct Seen: Equatable {
            var status: Int
            var allowOrigin: String?
            var authenticate: String?
            var contentType: String?
            var body: String?
        }

        @Test func theEventLoopPathAnswersAsTheRouterDoesWithCORSAndAnAuthenticator() async throws {
            let subject = PassthroughSubject<ServerSentEvent, Never>()
            let feed = EventFeed(subject)
            let streams = TopicEventStreams(feeds: { topic in
                guard topic == "news" else { throw CancellationError() }
                return feed
            }) { request, topic in request.headers[.authorization] == "staff" || topic == "news" ? .allowed : .forbidden }
            let cors = CORSMiddleware<BasicRequestContext>(allowOrigin: .originBased)
            let router = Router()
            router.add(middleware: cors)
            router.add(middleware: Authenticator())
            router.get("events/:topic") { request, context in
                await streams.response(to: request, topic: try context.parameters.require("topic"))
            }
            let loop = EventStreamRoute.topics(streams, under: "events").applying(Authenticator()).applying(cors)
            var answers: [[Seen]] = []
            for server in [HTTPServerBuilder.http1(), .eventStreams([loop])] {
                answers.append(try await withServer(router, server: server) { port, _ in
                    func ask(_ topic: String, token: String?) async throws -> Seen {
                        var headers = [("Origin", "https://app.example")]
                        if let token { headers.append(("X-Token", token)) }
                        let client = try await SSEClient.connect(port: port, path: "/events/\(topic)", headers: headers)
                        #expect(await client.wait { _ in client.status != nil })
                        let head = client.headers
                        let status = Int(client.status!.code)
                        await client.close()
                        var seen = Seen(status: status, allowOrigin: head?["Access-Control-Allow-Origin"].first,
                                        authenticate: head?["WWW-Authenticate"].first, contentType: head?["Content-Type"].first)
                        if status != 200 {   // the refusal's text, as a browser's fetch reads it
                            var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/events/\(topic)")!)
                            for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
                            let (body, _) = try await URLSession.shared.data(for: request)
                            seen.body = String(decoding: body, as: UTF8.self)
                        }
                        return seen
                    }
                    return [try await ask("news", token: "good"), try await ask("news", token: nil),
                            try await ask("other", token: "good")]
                })
            }
            let (router_, loop_) = (answers[0], answers[1])
            #expect(router_ == loop_)
            #expect(loop_[0] == Seen(status: 200, allowOrigin: "https://app.example", contentType: "text/event-stream"))
            #expect(loop_[1].status == 401 && loop_[1].authenticate == "Token" && loop_[1].allowOrigin == "https://app.example")
            #expect(loop_[2] == Seen(status: 403, allowOrigin: "https://app.example", contentType: "text/plain; charset=utf-8",
                                     body: "not allowed to read other\n"))
        }
    }
}
