// Counts nothing itself: runs N actions through one way of scheduling on a real NIO event loop, so
// that `Server/allocations` (valgrind's heap summary at two values of N) can tell the allocations
// per action of each way. The action is made once, so only what scheduling it costs is counted.
//
//   sluice-nio-allocations <execute | scheduleTask | schedule | scheduleAfter | scheduleCallback> <N>
//   sluice-nio-allocations <scheduleRepeating | scheduleRepeatedTask> <N>   (N ticks of one schedule)
import Foundation
import NIOCore
import NIOPosix
import SluiceNIO
import Synchronization

let arguments = CommandLine.arguments
guard arguments.count == 3, let count = Int(arguments[2]) else {
    print("usage: sluice-nio-allocations <execute|scheduleTask|schedule|scheduleAfter|scheduleCallback> <N>")
    exit(2)
}
let mode = arguments[1]

/// Counts the actions run, and signals when the last has (no allocation per action).
final class Counter: Sendable {
    let done = Atomic(0)
    let allDone = DispatchSemaphore(value: 0)
}
let counter = Counter()
let action: @Sendable () -> Void = {
    if counter.done.add(1, ordering: .relaxed).newValue == count { counter.allDone.signal() }
}

struct Handler: NIOScheduledCallbackHandler, Sendable {
    func handleScheduledCallback(eventLoop: some EventLoop) { action() }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let scheduler = EventLoopScheduler(loop)
switch mode {
case "scheduleRepeating":
    let repeating = scheduler.schedule(after: scheduler.now, interval: .nanoseconds(1), action)
    counter.allDone.wait()
    repeating.cancel()
    try group.syncShutdownGracefully()
    print("\(mode) \(count) done")
    exit(0)
case "scheduleRepeatedTask":
    let repeating = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .nanoseconds(1)) { _ in action() }
    counter.allDone.wait()
    repeating.cancel()
    try group.syncShutdownGracefully()
    print("\(mode) \(count) done")
    exit(0)
default:
    break
}
try loop.submit {
    let now = loop.now
    for _ in 0..<count {
        switch mode {
        case "execute": loop.execute(action)
        case "scheduleTask": loop.scheduleTask(deadline: now, action)
        case "schedule": scheduler.schedule(action)
        case "scheduleAfter": scheduler.schedule(after: .init(now), action)
        case "scheduleCallback": _ = try? loop.scheduleCallback(at: now, handler: Handler())
        default: fatalError("unknown mode \(mode)")
        }
    }
}.wait()
counter.allDone.wait()
try group.syncShutdownGracefully()
print("\(mode) \(count) done")
