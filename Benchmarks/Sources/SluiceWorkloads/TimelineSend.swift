#if HAS_TIMELINE
import SluiceCore
import SluiceTimeline

/// `passthroughSend1` — `PassthroughSubject.send` of `n` values to one sink — while a `Timeline`
/// records every subscription of the process (in a ring of 100,000 events, which wraps): one event
/// per value. Against `passthroughSend1`, what recording costs per event.
func timelineSend(_ n: Int) -> Int {
    let timeline = Timeline(capacity: 100_000)
    timeline.start()
    defer { timeline.stop() }
    return passthroughSend1(n)
}
#endif
