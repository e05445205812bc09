import Dispatch
import Workloads

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// workload-runner WORKLOAD IMPLEMENTATION N   runs one implementation once at size N, prints the checksum
// workload-runner --list                      prints "workload⇥implementation⇥elements⇥title" per line
// workload-runner --check [N]                 checks that every implementation agrees (default N 1000)
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
default:
    fail("usage: workload-runner WORKLOAD IMPLEMENTATION N | --list | --check [N]")
}
