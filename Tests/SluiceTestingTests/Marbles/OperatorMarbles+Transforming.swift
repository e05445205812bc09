import SluiceCore

extension OperatorMarbles {
    static let mapping: [OperatorMarble] = [
        OperatorMarble(name: "map", family: "Mapping", operators: ["Publisher/map(_:)", "Publisher/map(_:_:)", "Publisher/map(_:_:_:)"]) { bench in
            bench.output("map { $0.uppercased() }", bench.cold("source", "-a-b--c|").map { $0.uppercased() })
        },
        OperatorMarble(name: "tryMap", family: "Mapping", operators: ["Publisher/tryMap(_:)"]) { bench in
            bench.output("tryMap { throws at c }", bench.cold("source", "-a-b--c-d|").tryMap { value -> String in
                if value == "c" { throw MarbleError() }
                return value.uppercased()
            })
        },
        OperatorMarble(name: "scan", family: "Mapping", operators: ["Publisher/scan(_:_:)", "Publisher/tryScan(_:_:)"]) { bench in
            bench.output("scan(\"\") { $0 + $1 }", bench.cold("source", "-a-b--c|").scan("") { $0 + $1 })
        },
    ]

    static let filtering: [OperatorMarble] = [
        OperatorMarble(name: "filter", family: "Filtering", operators: ["Publisher/filter(_:)", "Publisher/tryFilter(_:)"]) { bench in
            bench.output("filter { $0 is uppercase }", bench.cold("source", "-a-B-c-D|").filter { $0 == $0.uppercased() })
        },
        OperatorMarble(name: "compactMap", family: "Filtering", operators: ["Publisher/compactMap(_:)", "Publisher/tryCompactMap(_:)"]) { bench in
            bench.output("compactMap { Int($0) }", bench.cold("source", "-a-1-b-2|").compactMap { Int($0) })
        },
        OperatorMarble(name: "removeDuplicates", family: "Filtering",
                       operators: ["Publisher/removeDuplicates()", "Publisher/removeDuplicates(by:)", "Publisher/tryRemoveDuplicates(by:)"]) { bench in
            bench.output("removeDuplicates()", bench.cold("source", "-a-a-b-b-a|").removeDuplicates())
        },
        OperatorMarble(name: "replaceEmpty", family: "Filtering", operators: ["Publisher/replaceEmpty(with:)"]) { bench in
            let empty = bench.cold("empty", "----|")
            let notEmpty = bench.cold("notEmpty", "-a--|")
            bench.output("empty.replaceEmpty(with: \"z\")", empty.replaceEmpty(with: "z"))
            bench.output("notEmpty.replaceEmpty(with: \"z\")", notEmpty.replaceEmpty(with: "z"))
        },
    ]

    static let reducing: [OperatorMarble] = [
        OperatorMarble(name: "collect", family: "Reducing", operators: ["Publisher/collect()", "Publisher/collect(_:)"]) { bench in
            let source = bench.cold("source", "-a-b-c-d-e|")
            bench.output("collect()", source.collect())
            bench.output("collect(2)", source.collect(2))
        },
        OperatorMarble(name: "collectByTime", family: "Reducing", operators: ["Publisher/collect(_:options:)"]) { bench in
            let source = bench.cold("source", "-ab-c----de-f|")
            bench.output("collect(.byTime(scheduler, 300 ms))",
                         source.collect(.byTime(bench.scheduler, MarbleBench.frames(3))))
            bench.output("collect(.byTimeOrCount(scheduler, 300 ms, 2))",
                         source.collect(.byTimeOrCount(bench.scheduler, MarbleBench.frames(3), 2)))
        },
        OperatorMarble(name: "reduce", family: "Reducing", operators: ["Publisher/reduce(_:_:)", "Publisher/tryReduce(_:_:)"]) { bench in
            bench.output("reduce(\"\") { $0 + $1 }", bench.cold("source", "-a-b--c|").reduce("") { $0 + $1 })
        },
        OperatorMarble(name: "count", family: "Reducing", operators: ["Publisher/count()"]) { bench in
            bench.output("count()", bench.cold("source", "-a-b--c|").count())
        },
        OperatorMarble(name: "ignoreOutput", family: "Reducing", operators: ["Publisher/ignoreOutput()"]) { bench in
            bench.output("ignoreOutput()", bench.cold("source", "-a-b--c|").ignoreOutput())
        },
        OperatorMarble(name: "minMax", family: "Reducing",
                       operators: ["Publisher/min()", "Publisher/min(by:)", "Publisher/tryMin(by:)", "Publisher/max()", "Publisher/max(by:)",
                                 "Publisher/tryMax(by:)"]) { bench in
            let source = bench.cold("source", "-b-c-a|")
            bench.output("min()", source.min())
            bench.output("max()", source.max())
        },
        OperatorMarble(name: "contains", family: "Reducing",
                       operators: ["Publisher/contains(_:)", "Publisher/contains(where:)", "Publisher/tryContains(where:)"]) { bench in
            let source = bench.cold("source", "-a-b-c|")
            bench.output("contains(\"b\")", source.contains("b"))
            bench.output("contains(\"z\")", source.contains("z"))
        },
        OperatorMarble(name: "allSatisfy", family: "Reducing", operators: ["Publisher/allSatisfy(_:)", "Publisher/tryAllSatisfy(_:)"]) { bench in
            let source = bench.cold("source", "-a-b-c|")
            bench.output("allSatisfy { $0 < \"b\" }", source.allSatisfy { $0 < "b" })
            bench.output("allSatisfy { $0 < \"z\" }", source.allSatisfy { $0 < "z" })
        },
    ]
}
