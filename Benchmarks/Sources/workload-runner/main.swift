import Dispatch
import WorkloadSupport
import Workloads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// workload-runner WORKLOAD IMPLEMENTATION N   runs one implementation once at size N, prints the checksum
// workload-runner --list                      prints "workload⇥implementation⇥elements⇥title" per line
// workload-runner --check [N]                 checks that every implementation agrees (default N 1000)
// workload-runner --scaling-list               prints "workload⇥implementation⇥title" per scaling workload
// workload-runner --scaling W IMPL N [R]       runs scaling workload W at size N, R times (default 3),
//                                              prints "best-ns-per-element⇥checksum"
// workload-runner --memory SHAPE IMPL N        builds N idle subscriptions of SHAPE, prints the
//                                              resident bytes they added per subscription
//
// No top-level `await`: that would make main run under `dispatch_main()`, which valgrind 3.19
// does not survive. Synchronous bodies run on the main thread; async ones in a task we wait for.

func fail(_ message: String) -> Never {
    let line = Array("workload-runner: \(message)\n".utf8)
    _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(2)
}

/// Where a task leaves its result for the thread waiting on it.
final class ResultBox<T>: @unchecked Sendable {
    var value: T?  // written before the semaphore's `signal`, read after its `wait`
}

/// Runs `body` in a task and blocks this thread until it returns.
func waitFor<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "--list":
    for workload in workloads {
        for implementation in Implementation.allCases where workload.body(implementation) != nil {
            print(workload.name, implementation.rawValue, workload.elements, workload.title, separator: "\t")
        }
    }
case "--check":
    let n = arguments.count > 1 ? Int(arguments[1]) ?? 1_000 : 1_000
    let problems = waitFor { await selfCheck(n: n) }
    for problem in problems {
        print("MISMATCH \(problem)")
    }
    if !problems.isEmpty { exit(1) }
    print("self-check: every implementation of every workload agrees (n = \(n))")
case let name? where arguments.count == 3:
    guard let workload = workload(named: name) else { fail("no workload \(name)") }
    guard let implementation = Implementation(rawValue: arguments[1]) else {
        fail("no implementation \(arguments[1]) (one of \(Implementation.allCases.map(\.rawValue)))")
    }
    guard let n = Int(arguments[2]), n >= 0 else { fail("N must be a non-negative integer") }
    switch workload.body(implementation) {
    case .sync(let body)?:
        print(body(n))
    case .async(let body)?:
        print(waitFor { await body(n) })
    case nil:
        fail("\(name) has no \(implementation.rawValue) version")
    }
case "--scaling-list":
    for workload in scalingWorkloads {
        for implementation in [Implementation.sluice, .openCombine] where workload.body(implementation) != nil {
            print(workload.name, implementation.rawValue, workload.title, separator: "\t")
        }
    }
case "--scaling" where arguments.count == 4 || arguments.count == 5:
    guard let workload = scalingWorkload(named: arguments[1]) else { fail("no scaling workload \(arguments[1])") }
    guard let implementation = Implementation(rawValue: arguments[2]), let body = workload.body(implementation) else {
        fail("\(arguments[1]) has no \(arguments[2]) version")
    }
    guard let n = Int(arguments[3]), n > 0 else { fail("N must be a positive integer") }
    let repeats = arguments.count == 5 ? Int(arguments[4]) ?? 3 : 3
    let (nanoseconds, checksum) = runScaling(body, n: n, repeats: repeats)
    print(Double(nanoseconds) / Double(n), checksum, separator: "\t")
case "--memory" where arguments.count == 4:
    guard let implementation = Implementation(rawValue: arguments[2]),
          let build = memoryShape(arguments[1], implementation) else {
        fail("no memory shape \(arguments[1]) for \(arguments[2])")
    }
    guard let n = Int(arguments[3]), n > 0 else { fail("N must be a positive integer") }
    let probe = MemoryProbe()
    let checksum = build(n, probe)
    print(Double(probe.bytes) / Double(n), checksum, separator: "\t")
default:
    fail("usage: workload-runner WORKLOAD IMPLEMENTATION N | --list | --check [N] | --scaling-list | --scaling W IMPL N [R] | --memory SHAPE IMPL N")
}
