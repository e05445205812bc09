extension TimelineRecording {
    /// The recording as Chrome Trace Event JSON (the JSON Object Format), which Perfetto and
    /// `chrome://tracing` open.
    ///
    /// One process, "Sluice pipelines"; one track per lane — its `tid` is the lane's number, named
    /// by an `M` (`thread_name`) event "1 Sink ← Map" and sorted by lane. On each track: the
    /// subscription as one complete (`X`) slice from its subscribe to its completion or cancel (or
    /// its last event), and every event as an instant (`i`) event whose `args` hold the value or
    /// demand and the thread it happened on (numbered from 1). The demand the lane's subscriber is
    /// still owed is a counter (`C`) event, "demand 1 Sink", after each request, value and returned
    /// demand while it is bounded. `ts` and `dur` are in microseconds since the recording started;
    /// `otherData.dropped` says how many older events were dropped.
    public func chromeTraceJSON() -> String {
        var entries: [String] = [
            #"{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Sluice pipelines"}}"#
        ]
        for lane in lanes {
            entries.append(#"{"ph":"M","name":"thread_name","pid":1,"tid":\#(lane.id),"args":{"name":\#(TimelineJSON.string(lane.title))}}"#)
            entries.append(#"{"ph":"M","name":"thread_sort_index","pid":1,"tid":\#(lane.id),"args":{"sort_index":\#(lane.id)}}"#)
            let own = events(ofLane: lane.id)
            guard let first = own.first, let last = own.last else { continue }
            let end = own.first { if case .completion = $0.kind { true } else { $0.kind == .cancel } } ?? last
            entries.append(#"{"ph":"X","name":\#(TimelineJSON.string(lane.subscriber)),"cat":"subscription","ts":\#(TimelineJSON.microseconds(first.time)),"dur":\#(TimelineJSON.microseconds(end.time - first.time)),"pid":1,"tid":\#(lane.id),"args":{"publisher":\#(TimelineJSON.string(lane.publisher))}}"#)
        }
        let curve = TimelineDemandCurve(self)
        let titles = Dictionary(uniqueKeysWithValues: lanes.map { ($0.id, $0.subscriber) })
        for (event, outstanding) in zip(events, curve.outstanding) {
            let ts = TimelineJSON.microseconds(event.time)
            var args = #""thread":\#(event.thread)"#
            switch event.kind {
            case .value(let text): args += #","value":\#(TimelineJSON.string(text))"#
            case .request(let demand), .returnedDemand(let demand):
                args += #","demand":\#(TimelineJSON.string(TimelineJSON.demand(demand)))"#
            case .completion(let text): args += #","completion":\#(TimelineJSON.string(text))"#
            case .subscribe, .cancel: break
            }
            let name = TimelineJSON.string(TimelineJSON.label(event.kind))
            let category = TimelineJSON.category(event.kind)
            entries.append(#"{"ph":"i","s":"t","name":\#(name),"cat":"\#(category)","ts":\#(ts),"pid":1,"tid":\#(event.lane),"args":{\#(args)}}"#)
            switch event.kind {
            case .request, .returnedDemand, .value:
                guard let outstanding else { break }
                let counter = TimelineJSON.string("demand \(event.lane) \(titles[event.lane] ?? "")")
                entries.append(#"{"ph":"C","name":\#(counter),"ts":\#(ts),"pid":1,"tid":\#(event.lane),"args":{"outstanding":\#(outstanding)}}"#)
            default:
                break
            }
        }
        return #"{"displayTimeUnit":"ns","otherData":{"producer":"SluiceTimeline","dropped":\#(dropped)},"traceEvents":["#
            + "\n" + entries.joined(separator: ",\n") + "\n]}\n"
    }
}
