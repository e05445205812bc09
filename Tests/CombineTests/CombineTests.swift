// Code written for Apple's systems, compiled unchanged against the `Combine` module.
#if canImport(Combine)
import Combine
#endif
import Foundation
import Testing

private struct Point: Codable, Equatable {
    var x: Int
    var y: Int
}

@Suite("Combine module")
struct CombineTests {
    @Test func canImportCombineHoldsWhereTheModuleIsInTheGraph() {
        #if canImport(Combine)
        let canImportCombine = true
        #else
        let canImportCombine = false
        #endif
        #expect(canImportCombine)
    }

    @Test func importCombineBringsInTheOperators() {
        var received: [String] = []
        var completion: Subscribers.Completion<Never>?
        let cancellable: AnyCancellable = [1, 2, 3, 4].publisher
            .filter { $0.isMultiple(of: 2) }
            .map { "#\($0)" }
            .sink(receiveCompletion: { completion = $0 }, receiveValue: { received.append($0) })
        #expect(received == ["#2", "#4"])
        #expect(completion == .finished)
        cancellable.cancel()
    }

    @Test func moduleQualifiedNamesResolveThroughTheModule() {
        let subject = Combine.PassthroughSubject<Int, Never>()
        let erased: Combine.AnyPublisher<Int, Never> = subject.eraseToAnyPublisher()
        var received: [Int] = []
        let cancellable = erased.sink { received.append($0) }
        subject.send(7)
        #expect(received == [7])
        cancellable.cancel()
    }

    @Test func importCombineBringsInTheFoundationIntegration() {
        var points: [Point] = []
        let cancellable = Just(Data(#"{"x":1,"y":2}"#.utf8))
            .decode(type: Point.self, decoder: JSONDecoder())
            .sink(receiveCompletion: { _ in }, receiveValue: { points.append($0) })
        #expect(points == [Point(x: 1, y: 2)])
        cancellable.cancel()
    }

    @Test func dispatchQueueIsAScheduler() async {
        let queue = DispatchQueue(label: "CombineTests.dispatchQueueIsAScheduler")
        let values = Just(42).receive(on: queue).values
        var received: [Int] = []
        for await value in values { received.append(value) }
        #expect(received == [42])
    }
}
