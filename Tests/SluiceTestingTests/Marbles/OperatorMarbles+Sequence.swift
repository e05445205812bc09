import SluiceCore

extension OperatorMarbles {
    static let selecting: [OperatorMarble] = [
        OperatorMarble(name: "first", family: "Selecting", operators: ["Publisher/first()", "Publisher/first(where:)", "Publisher/tryFirst(where:)"]) { bench in
            let source = bench.cold("source", "-a-B-c-D|")
            bench.output("first()", source.first())
            bench.output("first { $0 is uppercase }", source.first { $0 == $0.uppercased() })
        },
        OperatorMarble(name: "last", family: "Selecting", operators: ["Publisher/last()", "Publisher/last(where:)", "Publisher/tryLast(where:)"]) { bench in
            let source = bench.cold("source", "-a-B-c-D|")
            bench.output("last()", source.last())
            bench.output("last { $0 is lowercase }", source.last { $0 == $0.lowercased() })
        },
        OperatorMarble(name: "output", family: "Selecting", operators: ["Publisher/output(at:)", "Publisher/output(in:)"]) { bench in
            let source = bench.cold("source", "-a-b-c-d|")
            bench.output("output(at: 1)", source.output(at: 1))
            bench.output("output(in: 1...2)", source.output(in: 1...2))
        },
    ]

    static let sequence: [OperatorMarble] = [
        OperatorMarble(name: "drop", family: "Sequence", operators: ["Publisher/dropFirst(_:)", "Publisher/drop(while:)", "Publisher/tryDrop(while:)"]) { bench in
            let source = bench.cold("source", "-a-b-C-d|")
            bench.output("dropFirst(2)", source.dropFirst(2))
            bench.output("drop { $0 is lowercase }", source.drop { $0 == $0.lowercased() })
        },
        OperatorMarble(name: "prefix", family: "Sequence", operators: ["Publisher/prefix(_:)", "Publisher/prefix(while:)", "Publisher/tryPrefix(while:)"]) { bench in
            let source = bench.cold("source", "-a-b-C-d|")
            bench.output("prefix(2)", source.prefix(2))
            bench.output("prefix { $0 is lowercase }", source.prefix { $0 == $0.lowercased() })
        },
        OperatorMarble(name: "untilOutputFrom", family: "Sequence",
                       operators: ["Publisher/drop(untilOutputFrom:)", "Publisher/prefix(untilOutputFrom:)"]) { bench in
            let source = bench.cold("source", "-a-b-c-d-e|")
            let trigger = bench.cold("trigger", "----x|")
            bench.output("drop(untilOutputFrom: trigger)", source.drop(untilOutputFrom: trigger))
            bench.output("prefix(untilOutputFrom: trigger)", source.prefix(untilOutputFrom: trigger))
        },
        OperatorMarble(name: "appendPrepend", family: "Sequence",
                       operators: ["Publisher/append(_:)", "Publisher/prepend(_:)"]) { bench in
            bench.extraFrames = 5
            let first = bench.cold("first", "-a-b|")
            let second = bench.cold("second", "-x-y|")
            bench.output("first.append(second)", first.append(second))
            bench.output("first.prepend(second)", first.prepend(second))
        },
    ]
}
