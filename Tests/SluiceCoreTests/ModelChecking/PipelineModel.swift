import SluiceCore
import SluiceTesting

/// The error the model's failing sources end with.
struct ModelError: Error, Equatable, CustomStringConvertible {
    var description: String { "ModelError" }
}

/// A stream as plain data: the values a publisher emits, in order, and how it ends.
struct ModelStream: Equatable, CustomStringConvertible {
    var values: [Int]
    var failed: Bool

    var description: String { "\(values) then \(failed ? "failure" : "finished")" }
}

/// One operator of a random pipeline: how it transforms a publisher, and the same transformation
/// computed on plain arrays (the reference the publisher is checked against).
///
/// Every operator keeps `Int` values and `ModelError` failures, so operators compose freely;
/// those whose output is not an `Int` (collect, zip) fold it into one.
enum ModelOperator: CustomStringConvertible, Equatable {
    case map(Int)
    case filter(Int)
    case compactMap(Int)
    case scan
    case removeDuplicates
    case prefix(Int)
    case dropFirst(Int)
    case firstWhere(Int)
    case lastWhere(Int)
    case collect(Int)
    case reduce
    case output(Range<Int>)
    case replaceError(Int)
    case catchJust(Int)
    case append([Int])
    case prepend([Int])
    case flatMapPairs
    case mergeWith([Int])
    case zipWith([Int])

    var description: String {
        switch self {
        case .map(let k): "map { $0 + \(k) }"
        case .filter(let k): "filter { $0 % \(k) != 0 }"
        case .compactMap(let k): "compactMap { $0 % \(k) == 0 ? nil : $0 * 2 }"
        case .scan: "scan(0, +)"
        case .removeDuplicates: "removeDuplicates()"
        case .prefix(let n): "prefix(\(n))"
        case .dropFirst(let n): "dropFirst(\(n))"
        case .firstWhere(let k): "first { $0 % \(k) == 0 }"
        case .lastWhere(let k): "last { $0 % \(k) == 0 }"
        case .collect(let n): "collect(\(n)).map(fold)"
        case .reduce: "reduce(0, +)"
        case .output(let r): "output(in: \(r.lowerBound)..<\(r.upperBound))"
        case .replaceError(let v): "replaceError(with: \(v))"
        case .catchJust(let v): "catch { _ in Just(\(v)) }"
        case .append(let s): "append(\(s))"
        case .prepend(let s): "prepend(\(s))"
        case .flatMapPairs: "flatMap(maxPublishers: .max(1)) { [$0, $0 + 1].publisher }"
        case .mergeWith(let s): "merge(with: \(s).publisher)"
        case .zipWith(let s): "zip(\(s).publisher) { $0 * 100 + $1 }"
        }
    }

    /// Whether the operator's outcome (values and their order) is fully determined when its
    /// upstream may fail. Operators that run several publishers at once (flatMap, merge, zip)
    /// forward a failure as soon as it comes, so what they emitted before it depends
    /// on demand: the generator puts them only after upstreams that cannot fail.
    var needsNonFailingUpstream: Bool {
        switch self {
        case .flatMapPairs, .mergeWith, .zipWith: true
        default: false
        }
    }

    /// Whether only the multiset of values is determined, not their order (merge of two
    /// synchronous sources interleaves according to demand).
    var ordersByDemand: Bool {
        if case .mergeWith = self { return true }
        return false
    }

    /// Whether the operator's output can fail, given whether its upstream can.
    func canFail(upstream: Bool) -> Bool {
        switch self {
        case .replaceError, .catchJust: false
        default: upstream
        }
    }

    static func fold(_ values: [Int]) -> Int { values.reduce(7) { $0 &* 31 &+ $1 } }

    /// The operator applied to a publisher.
    func apply(_ upstream: AnyPublisher<Int, ModelError>) -> AnyPublisher<Int, ModelError> {
        switch self {
        case .map(let k): upstream.map { $0 + k }.eraseToAnyPublisher()
        case .filter(let k): upstream.filter { $0 % k != 0 }.eraseToAnyPublisher()
        case .compactMap(let k): upstream.compactMap { $0 % k == 0 ? nil : $0 * 2 }.eraseToAnyPublisher()
        case .scan: upstream.scan(0, +).eraseToAnyPublisher()
        case .removeDuplicates: upstream.removeDuplicates().eraseToAnyPublisher()
        case .prefix(let n): upstream.prefix(n).eraseToAnyPublisher()
        case .dropFirst(let n): upstream.dropFirst(n).eraseToAnyPublisher()
        case .firstWhere(let k): upstream.first { $0 % k == 0 }.eraseToAnyPublisher()
        case .lastWhere(let k): upstream.last { $0 % k == 0 }.eraseToAnyPublisher()
        case .collect(let n): upstream.collect(n).map(Self.fold).eraseToAnyPublisher()
        case .reduce: upstream.reduce(0, +).eraseToAnyPublisher()
        case .output(let r): upstream.output(in: r).eraseToAnyPublisher()
        case .replaceError(let v):
            upstream.replaceError(with: v).setFailureType(to: ModelError.self).eraseToAnyPublisher()
        case .catchJust(let v):
            upstream.catch { _ in Just(v) }.setFailureType(to: ModelError.self).eraseToAnyPublisher()
        case .append(let s): upstream.append(s).eraseToAnyPublisher()
        case .prepend(let s): upstream.prepend(s).eraseToAnyPublisher()
        case .flatMapPairs:
            upstream.flatMap(maxPublishers: .max(1)) { [$0, $0 + 1].publisher.setFailureType(to: ModelError.self) }
                .eraseToAnyPublisher()
        case .mergeWith(let s): upstream.merge(with: s.publisher.setFailureType(to: ModelError.self)).eraseToAnyPublisher()
        case .zipWith(let s):
            upstream.zip(s.publisher.setFailureType(to: ModelError.self)) { $0 * 100 + $1 }.eraseToAnyPublisher()
        }
    }

    /// The operator applied to a stream of plain data.
    func apply(_ s: ModelStream) -> ModelStream {
        switch self {
        case .map(let k): return ModelStream(values: s.values.map { $0 + k }, failed: s.failed)
        case .filter(let k): return ModelStream(values: s.values.filter { $0 % k != 0 }, failed: s.failed)
        case .compactMap(let k):
            return ModelStream(values: s.values.compactMap { $0 % k == 0 ? nil : $0 * 2 }, failed: s.failed)
        case .scan:
            var total = 0
            return ModelStream(values: s.values.map { total += $0; return total }, failed: s.failed)
        case .removeDuplicates:
            var out: [Int] = []
            for v in s.values where out.last != v { out.append(v) }
            return ModelStream(values: out, failed: s.failed)
        case .prefix(let n):
            // Like output(in:), prefix looks at its range as values arrive: prefix(0) finishes on
            // the first value, and an upstream that ends before any value ends it as it ends.
            return s.values.count >= max(n, 1) ? ModelStream(values: Array(s.values.prefix(n)), failed: false) : s
        case .dropFirst(let n): return ModelStream(values: Array(s.values.dropFirst(n)), failed: s.failed)
        case .firstWhere(let k):
            if let v = s.values.first(where: { $0 % k == 0 }) { return ModelStream(values: [v], failed: false) }
            return ModelStream(values: [], failed: s.failed)
        case .lastWhere(let k):
            if s.failed { return ModelStream(values: [], failed: true) }
            return ModelStream(values: s.values.last(where: { $0 % k == 0 }).map { [$0] } ?? [], failed: false)
        case .collect(let n):
            var chunks: [Int] = []
            var index = 0
            while index + n <= s.values.count {
                chunks.append(Self.fold(Array(s.values[index..<index + n])))
                index += n
            }
            if !s.failed, index < s.values.count { chunks.append(Self.fold(Array(s.values[index...]))) }
            return ModelStream(values: chunks, failed: s.failed)
        case .reduce:
            return s.failed ? ModelStream(values: [], failed: true) : ModelStream(values: [s.values.reduce(0, +)], failed: false)
        case .output(let r):
            if s.values.count >= r.upperBound { return ModelStream(values: Array(s.values[r]), failed: false) }
            return ModelStream(values: Array(s.values.dropFirst(r.lowerBound)), failed: s.failed)
        case .replaceError(let v), .catchJust(let v):
            return s.failed ? ModelStream(values: s.values + [v], failed: false) : s
        case .append(let tail): return s.failed ? s : ModelStream(values: s.values + tail, failed: false)
        case .prepend(let head): return ModelStream(values: head + s.values, failed: s.failed)
        case .flatMapPairs: return ModelStream(values: s.values.flatMap { [$0, $0 + 1] }, failed: s.failed)
        case .mergeWith(let other): return ModelStream(values: s.values + other, failed: s.failed)
        case .zipWith(let other):
            return ModelStream(values: zip(s.values, other).map { $0 * 100 + $1 }, failed: s.failed)
        }
    }

    /// A random operator; `upstreamCanFail` keeps out those that need a non-failing upstream.
    static func random(upstreamCanFail: Bool, using g: inout SeededGenerator) -> ModelOperator {
        let smallArray = { (g: inout SeededGenerator) in (0..<Int.random(in: 0...3, using: &g)).map { _ in Int.random(in: 0...5, using: &g) } }
        while true {
            let op: ModelOperator
            switch Int.random(in: 0..<19, using: &g) {
            case 0: op = .map(Int.random(in: -2...3, using: &g))
            case 1: op = .filter(Int.random(in: 2...4, using: &g))
            case 2: op = .compactMap(Int.random(in: 2...4, using: &g))
            case 3: op = .scan
            case 4: op = .removeDuplicates
            case 5: op = .prefix(Int.random(in: 0...6, using: &g))
            case 6: op = .dropFirst(Int.random(in: 0...4, using: &g))
            case 7: op = .firstWhere(Int.random(in: 2...4, using: &g))
            case 8: op = .lastWhere(Int.random(in: 2...4, using: &g))
            case 9: op = .collect(Int.random(in: 1...3, using: &g))
            case 10: op = .reduce
            case 11:
                let lower = Int.random(in: 0...3, using: &g)
                op = .output(lower..<(lower + Int.random(in: 1...4, using: &g)))
            case 12: op = .replaceError(-1)
            case 13: op = .catchJust(-2)
            case 14: op = .append(smallArray(&g))
            case 15: op = .prepend(smallArray(&g))
            case 16: op = .flatMapPairs
            case 17: op = .mergeWith(smallArray(&g))
            default: op = .zipWith((0..<Int.random(in: 0...6, using: &g)).map { $0 })
            }
            if upstreamCanFail && op.needsNonFailingUpstream { continue }
            return op
        }
    }
}
