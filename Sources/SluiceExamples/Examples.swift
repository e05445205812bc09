import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Sluice

/// The articles' systems, run end to end. Each example narrates what happens through the `print`
/// closure it is given — the `sluice-examples` executable passes Swift's `print`, tests pass a
/// closure that collects the lines.
///
/// Everything is deterministic: the control and the player are driven by explicit calls, and the
/// data task's session is waited for rather than slept on.
public enum Examples {
    /// Runs every example in turn, separated by a heading line for each.
    public static func runAll(print: @escaping (String) -> Void) {
        pepBoys(print: print)
        print("")
        controlEvents(print: print)
        print("")
        playheadProgress(print: print)
        print("")
        dataTask(print: print)
        print("")
        mapper(print: print)
        print("")
        shippingForm(print: print)
        print("")
        searchBox(print: print)
    }

    /// The Pep Boys publisher without, then with, backpressure, each driven by a subscriber that
    /// asks for less than everything; then the well-behaved one into a plain `sink`.
    public static func pepBoys(print: @escaping (String) -> Void) {
        print("== Pep Boys, ignoring backpressure ==")
        let greedy = NarratingSubscriber<String, Never>(initialDemand: .max(1), say: print)
        NaivePepBoys().subscribe(greedy)

        print("== Pep Boys, honouring backpressure ==")
        let patient = NarratingSubscriber<String, Never>(initialDemand: .max(2), say: print)
        PepBoys().subscribe(patient)
        patient.request(.max(1))

        print("== Pep Boys into a sink ==")
        let cancellable = PepBoys().sink(
            receiveCompletion: { print("completion: \($0)") },
            receiveValue: { print($0) })
        cancellable.cancel()
    }

    /// A control-event publisher over ``Control`` and ``TextField``: the chosen event only, the
    /// control typed as its own class, the target removed on cancel.
    public static func controlEvents(print: @escaping (String) -> Void) {
        print("== Control events ==")
        let button = Control()
        button.sendActions(for: .primaryActionTriggered)
        print("button tapped with no subscriber: targets \(button.registeredActionCount)")

        let taps = button.publisher().sink { control in
            print("tap received from \(type(of: control))")
        }
        print("subscribed to the button: targets \(button.registeredActionCount)")
        print("button sends primaryActionTriggered")
        button.sendActions(for: .primaryActionTriggered)
        print("button sends valueChanged (not the subscribed event)")
        button.sendActions(for: .valueChanged)
        taps.cancel()
        print("cancelled: targets \(button.registeredActionCount)")
        print("button sends primaryActionTriggered")
        button.sendActions(for: .primaryActionTriggered)

        let field = TextField()
        let typing = field.publisher(for: .editingChanged)
            .map { field in field.text ?? "" }   // `field` is a TextField: no cast needed
            .sink { print("text field now reads \"\($0)\"") }
        print("user types \"Moe\"")
        field.type("Moe")
        typing.cancel()

        let textPublisher = field.textPublisher.sink { print("textPublisher: \"\($0)\"") }
        print("user types \"!\"")
        field.type("!")
        textPublisher.cancel()
        print("all cancelled: text field targets \(field.registeredActionCount)")
    }

    /// The playhead-progress publisher over a ``Player``: values only while there is demand, the
    /// time observer removed on cancel.
    public static func playheadProgress(print: @escaping (String) -> Void) {
        print("== Playhead progress ==")
        let player = Player()
        let subscriber = NarratingSubscriber<TimeInterval, Never>(initialDemand: .none, say: print)
        player.playheadProgressPublisher(interval: 0.5).subscribe(subscriber)
        print("subscribed with no demand yet: time observers \(player.timeObserverCount)")

        subscriber.request(.max(2))
        print("requested 2: time observers \(player.timeObserverCount)")
        print("player advances 1.5 s")
        player.advance(by: 1.5)
        print("(the tick at 1.5 s found no demand and was skipped)")

        subscriber.request(.max(1))
        print("requested 1 more; player advances 1 s")
        player.advance(by: 1)

        subscriber.cancel()
        print("cancelled: time observers \(player.timeObserverCount)")
        player.advance(by: 1)
    }

    /// The single-value data-task publisher over a ``FakeSession``: nothing before demand, one
    /// value then `.finished`, the failure path, and nothing after a cancel.
    public static func dataTask(print: @escaping (String) -> Void) {
        print("== Data task ==")
        let known = URL(string: "https://example.com/pep-boys")!
        let unknown = URL(string: "https://example.com/stooges")!
        let queue = DispatchQueue(label: "Examples.dataTask")
        let session = FakeSession(responses: [known: Data("Manny, Moe and Jack".utf8)], queue: queue)

        let subscriber = NarratingSubscriber<FakeSession.DataTaskPublisher.Output, FakeSession.TransferError>(
            initialDemand: .none,
            describe: { "\"\(String(decoding: $0.data, as: UTF8.self))\" (status \($0.response.statusCode))" },
            say: print)
        session.dataTaskPublisher(for: known).subscribe(subscriber)
        session.waitUntilIdle()
        print("subscribed with no demand: nothing fetched")
        subscriber.request(.max(1))
        session.waitUntilIdle()

        print("fetching a URL the session does not know")
        let failing = session.dataTaskPublisher(for: unknown).sink(
            receiveCompletion: { print("completion: \($0)") },
            receiveValue: { _ in print("unexpected value") })
        session.waitUntilIdle()
        failing.cancel()

        print("fetching again, and cancelling before the response arrives")
        queue.suspend()   // hold the response back, so that the cancel surely comes first
        let cancelled = session.dataTaskPublisher(for: known).sink(
            receiveCompletion: { print("unexpected completion: \($0)") },
            receiveValue: { _ in print("unexpected value") })
        cancelled.cancel()
        queue.resume()
        session.waitUntilIdle()
        print("nothing delivered after the cancel")
        print("")
        realDataTask(print: print)
    }

    /// The real `URLSession.DataTaskPublisher`, against an HTTP server this example starts on
    /// 127.0.0.1: a page that exists, one that does not (a value with status 404, not a failure),
    /// and a port nobody listens on (a `URLError`).
    public static func realDataTask(print: @escaping (String) -> Void) {
        print("== Data task, for real: URLSession against a server on loopback ==")
        guard let server = try? LoopbackHTTPServer(route: { path in
            path == "/pep-boys" ? .respond(status: 200, body: Array("Manny, Moe and Jack".utf8))
                : .respond(status: 404, body: Array("not here".utf8))
        }) else {
            print("could not start a server on 127.0.0.1")
            return
        }
        defer { server.stop() }
        let closed = (try? LoopbackHTTPServer.closedPort()).map { "http://127.0.0.1:\($0)/pep-boys" } ?? "http://127.0.0.1:1/"
        for url in [server.url("/pep-boys"), server.url("/stooges"), URL(string: closed)!] {
            let done = DispatchSemaphore(value: 0)
            let path = url.path
            print("GET \(path) on \(url.port == Int(server.port) ? "the server" : "a closed port")")
            let cancellable = URLSession.shared.dataTaskPublisher(for: url)
                .map { "status \(($0.response as? HTTPURLResponse)?.statusCode ?? 0): \"\(String(decoding: $0.data, as: UTF8.self))\"" }
                .sink(
                    receiveCompletion: { completion in
                        switch completion {
                        case .finished: print("completion: finished")
                        case .failure(let error): print("completion: failure(URLError \(error.code.rawValue))")
                        }
                        done.signal()
                    },
                    receiveValue: { print("value: \($0)") })
            done.wait()
            cancellable.cancel()
        }
    }

    /// The hand-written `Mapper` operator, through its `mapper(_:)` method.
    public static func mapper(print: @escaping (String) -> Void) {
        print("== Mapper ==")
        let cancellable = [1, 2, 3, 4].publisher
            .mapper { value in "\(value)" }
            .sink(
                receiveCompletion: { print("completion: \($0)") },
                receiveValue: { print("mapped value: \($0) \(type(of: $0))") })
        cancellable.cancel()
    }

    /// The shipping form: three text fields → `combineLatest` → `map(ShippingInfo.init)` →
    /// `assign(to: &$shippingInfo)`; nothing is published until all three fields have a value.
    public static func shippingForm(print: @escaping (String) -> Void) {
        print("== Shipping form ==")
        let form = ShippingForm()
        let watching = form.$shippingInfo.dropFirst().sink { print("shipping info: \($0)") }
        print("user types name \"Moe\"")
        form.nameTextField.type("Moe")
        print("user types address \"Elm St\"")
        form.addressTextField.type("Elm St")
        print("nothing published yet: shipping info is \(form.shippingInfo == .empty ? "empty" : "\(form.shippingInfo)")")
        print("user types city \"NY\"")
        form.cityTextField.type("NY")
        watching.cancel()
    }
}
