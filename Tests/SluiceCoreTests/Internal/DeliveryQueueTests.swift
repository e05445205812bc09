@testable import SluiceCore
import Testing

@Suite("DeliveryQueue")
struct DeliveryQueueTests {
    @Test func firstInFirstOut() {
        var queue = DeliveryQueue<Int>()
        #expect(queue.isEmpty)
        for value in 1...3 { queue.append(value) }
        #expect(queue.count == 3)
        var popped = [queue.popFirst()]
        queue.append(4)
        for _ in 0..<4 { popped.append(queue.popFirst()) }
        #expect(popped == [1, 2, 3, 4, nil])
        #expect(queue.isEmpty)
    }

    @Test func removesSelectedValuesKeepingOrder() {
        var queue = DeliveryQueue<Int>()
        for value in 1...6 { queue.append(value) }
        _ = queue.popFirst()
        queue.removeAll { $0.isMultiple(of: 2) }
        #expect(queue.count == 2)
        let first = queue.popFirst()
        let second = queue.popFirst()
        #expect(first == 3 && second == 5)
        queue.append(9)
        queue.removeAll()
        #expect(queue.isEmpty)
    }
}
