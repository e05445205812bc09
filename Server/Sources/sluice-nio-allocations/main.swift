// Counts nothing itself: runs N actions through one way of scheduling on a real NIO event loop, so
// that `Server/allocations` (valgrind's heap summary at two values of N) can tell the allocations
// per action of each way. The action is made once, so only what scheduling it costs is counted.
//
//   sluice-nio-allocations <execute | scheduleTask | schedule | scheduleAfter | scheduleCallback> <N>
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

final class Counter: Sendable {
    let done = Atomic(0)
}
let counter = Counter()
let action: @Sendable () -> Void = { counter.done.add(1, ordering: .relaxed) }

struct Handler: NIOScheduledCallbackHandler, Sendable {
    func handleScheduledCallback(eventLoop: some EventLoop) { action() }
}

let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
let loop = group.next()
let scheduler = EventLoopScheduler(loop)
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
while counter.done.load(ordering: .relaxed) < count {
    try loop.submit {}.wait()
}
try group.syncShutdownGracefully()
print("\(mode) \(count) done")
