#if Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import SluiceFeed

/// The stream writers of one event loop that have something to write, run together: the first
/// wake-up of a burst schedules one task on the loop, which drains every writer woken until it
/// runs. An event sent to 10,000 clients costs each loop one task, not one per client.
final class LoopWakeups: Sendable {
    private struct Woken {
        var writers: [(EventStreamHandler, ClientOutlet.Step?)] = []
        var spare: [(EventStreamHandler, ClientOutlet.Step?)] = []
    }

    private let loop: any EventLoop
    private let woken = NIOLockedValueBox(Woken())

    init(loop: any EventLoop) {
        self.loop = loop
    }

    /// `writer` is to drain on the loop, beginning with `step` if any.
    func wake(_ writer: EventStreamHandler, with step: ClientOutlet.Step?) {
        let first = woken.withLockedValue { woken in
            woken.writers.append((writer, step))
            return woken.writers.count == 1
        }
        if first { loop.execute { self.run() } }
    }

    /// Drains every writer woken so far, in the order they were woken.
    private func run() {
        var writers = woken.withLockedValue { woken in
            var taken: [(EventStreamHandler, ClientOutlet.Step?)] = []
            swap(&taken, &woken.spare)
            swap(&taken, &woken.writers)
            return taken
        }
        for (writer, step) in writers { writer.drain(first: step) }
        writers.removeAll(keepingCapacity: true)
        woken.withLockedValue { woken in
            if woken.spare.capacity < writers.capacity { swap(&woken.spare, &writers) }
        }
    }
}
#endif
