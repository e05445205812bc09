import SluiceCore

extension OperatorMarbles {
    static let combining: [OperatorMarble] = [
        OperatorMarble(name: "merge", family: "Combining",
                       operators: ["Publisher/merge(with:)", "Publisher/merge(with:_:)", "Publisher/merge(with:_:_:)",
                                  "Publisher/merge(with:_:_:_:)", "Publisher/merge(with:_:_:_:_:)", "Publisher/merge(with:_:_:_:_:_:)",
                                  "Publisher/merge(with:_:_:_:_:_:_:)", "Publishers/MergeMany"]) { bench in
            let first = bench.cold("first", "a---b---|")
            bench.output("first.merge(with: second)", first.merge(with: bench.cold("second", "--x---y-z|")))
        },
        OperatorMarble(name: "zip", family: "Combining", operators: ["Publisher/zip(_:)", "Publisher/zip(_:_:)", "Publisher/zip(_:_:_:)", "Publisher/zip(_:_:_:_:)"]) { bench in
            let first = bench.cold("first", "-a---b-c---|")
            bench.output("first.zip(second) { $0 + $1 }", first.zip(bench.cold("second", "--1-2-----3|")) { $0 + $1 })
        },
        OperatorMarble(name: "combineLatest", family: "Combining",
                       operators: ["Publisher/combineLatest(_:)", "Publisher/combineLatest(_:_:)", "Publisher/combineLatest(_:_:_:)",
                                  "Publisher/combineLatest(_:_:_:_:)"]) { bench in
            let first = bench.cold("first", "-a---b-c---|")
            bench.output("first.combineLatest(second) { $0 + $1 }",
                         first.combineLatest(bench.cold("second", "--1-2-----3|")) { $0 + $1 })
        },
    ]

    /// The inner publishers of the flattening pictures: hot, so that their rows are on the same
    /// clock as the source that picks them.
    private static func inners(_ bench: MarbleBench) -> AnyPublisher<MarbleBench.Source, MarbleError> {
        bench.cold("source", "-a--b------|", values: [
            "a": bench.hot("a", "--1---2-----|"),
            "b": bench.hot("b", "-----3---4--|"),
        ], first: true)
    }

    static let flattening: [OperatorMarble] = [
        OperatorMarble(name: "flatMap", family: "Flattening", operators: ["Publisher/flatMap(maxPublishers:_:)"]) { bench in
            bench.output("flatMap { $0 }", inners(bench).flatMap { $0 })
        },
        OperatorMarble(name: "switchToLatest", family: "Flattening", operators: ["Publisher/switchToLatest()"]) { bench in
            bench.output("switchToLatest()", inners(bench).switchToLatest())
        },
    ]
}
