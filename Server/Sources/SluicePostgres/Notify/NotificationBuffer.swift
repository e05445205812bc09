#if Server
import Sluice

/// The buffer between the listening connection and a subscriber: events in arrival order, at most
/// `capacity` of them; when full, the oldest goes and is counted, and the count comes out as one
/// ``PostgresNotificationGap/dropped(count:)`` gap before the next event. Tracks the subscriber's
/// demand. A value type: its transitions are tested without a server.
struct NotificationBuffer<Event> {
    let capacity: Int
    private var slots: [Event?]
    private var head = 0
    private(set) var count = 0
    private(set) var dropped = 0
    private(set) var demand = Subscribers.Demand.none

    init(capacity: Int) {
        self.capacity = capacity
        slots = []
    }

    /// Adds `event`, dropping the oldest when full.
    mutating func append(_ event: Event) {
        if count == capacity {
            slots[head] = nil
            head = (head + 1) % capacity
            count -= 1
            dropped += 1
        }
        if slots.isEmpty { slots = Array(repeating: nil, count: capacity) }   // at the first event
        slots[(head + count) % capacity] = event
        count += 1
    }

    mutating func add(_ more: Subscribers.Demand) {
        demand += more
    }

    /// What the subscriber should get next, if it has demand: the gap for dropped events first,
    /// then the oldest event.
    mutating func next(gap: (Int) -> Event) -> Event? {
        guard demand > .none else { return nil }
        if dropped > 0 {
            defer { dropped = 0 }
            demand -= 1
            return gap(dropped)
        }
        guard count > 0 else { return nil }
        let event = slots[head]
        slots[head] = nil
        head = (head + 1) % capacity
        count -= 1
        demand -= 1
        return event
    }
}
#endif
