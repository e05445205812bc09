import SluiceCore
import SluiceTesting
import Synchronization
import Testing

/// Each scenario asks of the publisher what it says it does: seen from the publisher's side with
/// a `Spy` that logs every request and cancel.
@Suite struct PublisherContractScenarioTests {
    private func observe(_ scenario: Scenario, count: Int = 5) async -> (calls: [CallLog.Call], threads: Int) {
        let log = CallLog()
        let report = await PublisherContract.check(scenarios: [scenario]) { Spy(log: log, count: count) }
        #expect(report.passed, "\(report)")
        return (log.calls, log.threadCount)
    }

    @Test func unlimitedRequestsUnlimitedOnce() async {
        let calls = await observe(.unlimited).calls
        #expect(calls == [.request(.unlimited)])
    }

    @Test func oneAtATimeRequestsOneMoreAfterEachValue() async {
        // The completion follows the 5th value without waiting for more demand.
        let calls = await observe(.oneAtATime).calls
        #expect(calls == Array(repeating: .request(.max(1)), count: 5))
    }

    @Test func burstsRequestInBurstsIncludingTwoBackToBack() async {
        let calls = await observe(.bursts, count: 12).calls
        #expect(calls == [
            .request(.max(3)), .request(.max(1)), .request(.max(2)), .request(.max(2)), .request(.max(5)),
        ])
    }

    @Test func demandFromReceiveRequestsOnceAndReturnsTheRest() async {
        let calls = await observe(.demandFromReceive).calls
        #expect(calls == [.request(.max(1))])
    }

    @Test func requestInsideReceiveRequestsAfterEveryValue() async {
        let calls = await observe(.requestInsideReceive).calls
        #expect(calls == Array(repeating: .request(.max(1)), count: 6))
    }

    @Test func cancelInsideReceiveCancelsTwiceThenRequests() async {
        let calls = await observe(.cancelInsideReceive).calls
        #expect(calls == [.request(.unlimited), .cancel, .cancel, .request(.max(1))])
    }

    @Test func cancelMidStreamCancelsTwiceThenRequestsAfterTwoValues() async {
        let calls = await observe(.cancelMidStream).calls
        #expect(calls == [.request(.max(2)), .cancel, .cancel, .request(.max(3))])
    }

    @Test func cancelEarlyCancelsBeforeAnyDemand() async {
        let calls = await observe(.cancelEarly).calls
        #expect(calls == [.cancel, .request(.max(1))])
    }

    @Test func lateDemandRequestsOnlyAfterSettling() async {
        let calls = await observe(.lateDemand).calls
        #expect(calls == [.request(.unlimited)])
    }

    @Test func concurrentRequestsAndCancelsFromSeveralThreads() async {
        let (calls, threads) = await observe(.concurrent, count: 1_000)
        #expect(calls.filter { $0 == .request(.max(1)) }.count == 101)
        #expect(calls.filter { $0 == .cancel }.count == 4)
        #expect(threads >= 5)
    }

    @Test func aPublisherThatNeverCompletesIsCancelledAtTheValueLimit() async {
        let log = CallLog()
        let report = await PublisherContract.check(scenarios: [.unlimited], valueLimit: 20) { Spy(log: log, count: 1_000) }
        #expect(report.passed)
        #expect(log.calls == [.request(.unlimited), .cancel])
    }

    @Test func aQuietPublisherIsCancelledToEndTheScenario() async {
        let log = CallLog()
        let report = await PublisherContract.check(scenarios: [.unlimited, .oneAtATime]) {
            Spy(log: log, quiet: true)
        }
        #expect(report.passed)
        #expect(log.calls == [.request(.unlimited), .cancel, .request(.max(1)), .cancel])
    }

    @Test func driveRunsOncePerScenarioOnTheFreshPublisher() async {
        let subjects = SubjectLog()
        let report = await PublisherContract.check(scenarios: [.unlimited, .oneAtATime], drive: { subject in
            subjects.drove(subject)
            subject.send(1)
            subject.send(completion: .finished)
        }) {
            subjects.made(CurrentValueSubject<Int, Never>(0))
        }
        #expect(report.passed, "\(report)")
        #expect(subjects.madeTwoAndDroveEachOnce)
    }
}

/// Keeps the subjects a factory made and the ones it drove, in order.
final class SubjectLog: Sendable {
    private let lock = Protected<(made: [AnyObject], drove: [AnyObject])>(([], []))

    func made<S: AnyObject>(_ subject: S) -> S {
        lock.withLock { $0.made.append(subject) }
        return subject
    }

    func drove(_ subject: AnyObject) {
        lock.withLock { $0.drove.append(subject) }
    }

    var madeTwoAndDroveEachOnce: Bool {
        lock.withLock { log in
            log.made.count == 2 && log.drove.count == 2 && zip(log.made, log.drove).allSatisfy { $0 === $1 }
        }
    }
}
