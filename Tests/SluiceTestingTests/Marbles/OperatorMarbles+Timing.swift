import SluiceCore

extension OperatorMarbles {
    static let timing: [OperatorMarble] = [
        OperatorMarble(name: "debounce", family: "Timing", operators: ["Publisher/debounce(for:scheduler:options:)"]) { bench in
            bench.output("debounce(for: 300 ms)",
                         bench.cold("source", "-a-b-----c---|").debounce(for: MarbleBench.frames(3), scheduler: bench.scheduler))
        },
        OperatorMarble(name: "throttle", family: "Timing", operators: ["Publisher/throttle(for:scheduler:latest:)"]) { bench in
            let source = bench.cold("source", "-ab-c---de-f---|")
            bench.output("throttle(for: 300 ms, latest: false)",
                         source.throttle(for: MarbleBench.frames(3), scheduler: bench.scheduler, latest: false))
            bench.output("throttle(for: 300 ms, latest: true)",
                         source.throttle(for: MarbleBench.frames(3), scheduler: bench.scheduler, latest: true))
        },
        OperatorMarble(name: "delay", family: "Timing", operators: ["Publisher/delay(for:tolerance:scheduler:options:)"]) { bench in
            bench.output("delay(for: 200 ms)",
                         bench.cold("source", "-a-b--c|").delay(for: MarbleBench.frames(2), scheduler: bench.scheduler))
        },
        OperatorMarble(name: "timeout", family: "Timing", operators: ["Publisher/timeout(_:scheduler:options:customError:)"]) { bench in
            let source = bench.cold("source", "-a-b------c|")
            bench.output("timeout(300 ms)", source.timeout(MarbleBench.frames(3), scheduler: bench.scheduler))
            bench.output("timeout(300 ms) { error }",
                         source.timeout(MarbleBench.frames(3), scheduler: bench.scheduler) { MarbleError() })
        },
        OperatorMarble(name: "measureInterval", family: "Timing", operators: ["Publisher/measureInterval(using:options:)"]) { bench in
            bench.output("measureInterval(using: scheduler)",
                         bench.cold("source", "-a-b---c|").measureInterval(using: bench.scheduler))
        },
    ]

    static let errors: [OperatorMarble] = [
        OperatorMarble(name: "catch", family: "Error-handling", operators: ["Publisher/catch(_:)", "Publisher/tryCatch(_:)"]) { bench in
            let source = bench.cold("source", "-a-b-#")
            let fallback = bench.cold("fallback", "x-y|")
            bench.output("catch { _ in fallback }", source.catch { _ in fallback })
        },
        OperatorMarble(name: "retry", family: "Error-handling", operators: ["Publisher/retry(_:)"]) { bench in
            bench.output("retry(1)", bench.cold("source", "-a-#").retry(1))
        },
        OperatorMarble(name: "replaceError", family: "Error-handling", operators: ["Publisher/replaceError(with:)"]) { bench in
            bench.output("replaceError(with: \"z\")", bench.cold("source", "-a-b-#").replaceError(with: "z"))
        },
    ]

    static let sharing: [OperatorMarble] = [
        OperatorMarble(name: "share", family: "Sharing", operators: ["Publisher/share()"]) { bench in
            bench.extraFrames = 5
            let source = bench.cold("source", "-a-b-c-d|")
            let shared = source.share().eraseToAnyPublisher()
            bench.output("share(): subscriber 1", shared)
            bench.output("share(): subscriber 2, from frame 4", bench.subscribing(atFrame: 4, to: shared))
            bench.output("no share(): subscriber from frame 4", bench.subscribing(atFrame: 4, to: source))
        },
        OperatorMarble(name: "makeConnectable", family: "Sharing",
                       operators: ["Publisher/makeConnectable()", "Publisher/multicast(_:)", "Publisher/multicast(subject:)",
                                  "ConnectablePublisher/connect()"]) { bench in
            let source = bench.coldNeverFailing("source", "-a-b-c|")
            let connectable = source.makeConnectable()
            let multicast = source.multicast(subject: PassthroughSubject())
            bench.output("makeConnectable(), connect() at frame 2", connectable)
            bench.output("multicast(subject:), connect() at frame 2", multicast)
            bench.at(frame: 2) { connectable.connect() }
            bench.at(frame: 2) { multicast.connect() }
        },
        OperatorMarble(name: "autoconnect", family: "Sharing", operators: ["ConnectablePublisher/autoconnect()"]) { bench in
            let shared = bench.coldNeverFailing("source", "-a-b-c-d|").makeConnectable().autoconnect()
                .setFailureType(to: MarbleError.self).eraseToAnyPublisher()
            bench.output("autoconnect(): subscriber 1", shared)
            bench.output("autoconnect(): subscriber 2, from frame 4", bench.subscribing(atFrame: 4, to: shared))
        },
    ]
}
