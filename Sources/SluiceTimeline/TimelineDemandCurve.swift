import SluiceCore

/// The demand each lane's subscriber is still owed after each of its events: requests and returned
/// demand add, values take one; `nil` once it is unlimited. Both exports draw it.
struct TimelineDemandCurve {
    /// For each event of the recording, in order: the lane's outstanding demand after it (`nil`:
    /// unlimited).
    let outstanding: [Int?]

    init(_ recording: TimelineRecording) {
        var owed: [Int: Subscribers.Demand] = [:]
        outstanding = recording.events.map { event in
            var demand = owed[event.lane, default: .none]
            switch event.kind {
            case .request(let more), .returnedDemand(let more):
                demand += more
            case .value:
                if demand != .unlimited && demand > 0 { demand -= 1 }
            case .subscribe, .completion, .cancel:
                break
            }
            owed[event.lane] = demand
            return demand.max
        }
    }
}
