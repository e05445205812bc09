import Foundation
import SluiceCore
import Testing

@Suite("Subscribers.Completion")
struct CompletionTests {
    typealias Completion = Subscribers.Completion<TestError>

    @Test func equatable() {
        #expect(Completion.finished == .finished)
        #expect(Completion.failure(TestError(code: 1)) == .failure(TestError(code: 1)))
        #expect(Completion.failure(TestError(code: 1)) != .failure(TestError(code: 2)))
        #expect(Completion.finished != .failure(TestError()))
        #expect(Subscribers.Completion<Never>.finished == .finished)
    }

    @Test func hashable() {
        let set: Set<Completion> = [.finished, .finished, .failure(TestError(code: 1)), .failure(TestError(code: 1)),
                                    .failure(TestError(code: 2))]
        #expect(set.count == 3)
    }

    @Test(arguments: [Completion.finished, .failure(TestError(code: 7))])
    func codableRoundTrip(_ completion: Completion) throws {
        let data = try JSONEncoder().encode(completion)
        #expect(try JSONDecoder().decode(Completion.self, from: data) == completion)
    }

    @Test func codedForm() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(Completion.finished), as: UTF8.self) == #"{"success":true}"#)
        #expect(String(decoding: try encoder.encode(Completion.failure(TestError(code: 3))), as: UTF8.self)
            == #"{"error":{"code":3},"success":false}"#)
    }

    @Test func decodingAFailureWithoutItsErrorThrows() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Completion.self, from: Data(#"{"success":false}"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Completion.self, from: Data(#"{}"#.utf8))
        }
    }

    @Test func mapErrorKeepsFinishedAndTransformsFailures() {
        let finished: Subscribers.Completion<TestError> = .finished
        #expect(finished.mapError { _ in TestError(code: 9) } == .finished)
        let failure: Subscribers.Completion<TestError> = .failure(TestError(code: 2))
        #expect(failure.mapError { TestError(code: $0.code * 10) } == .failure(TestError(code: 20)))
    }
}
