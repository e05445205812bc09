import SluiceCore
import SluiceTesting
import Testing

typealias Scenario = PublisherContract.Scenario
typealias Rule = PublisherContract.Rule

/// The kit flags each kind of broken publisher under the rule it breaks — and nothing else.
///
/// These use the single-threaded scenarios (the flaws are not about threads, and a flawed
/// publisher run concurrently may break rule 8 too, by chance); rule 8 has its own test.
@Suite struct PublisherContractDetectionTests {
    @Test func ignoringDemandBreaksRule2() async throws {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { Toy(flaw: .ignoresDemand) }
        #expect(report.brokenRules == [.demand], "\(report)")
        // Where the probe adds demand as each value arrives (returned from or requested inside
        // receive), sending everything at once happens to stay within demand — unless it stops
        // adding (returnedDemandOnce).
        #expect(report.scenarios(breaking: .demand) == [.oneAtATime, .bursts, .returnedDemandOnce, .cancelMidStream])
        let violation = try #require(report.violations(of: .demand).first(where: { $0.scenario == .oneAtATime }))
        #expect(violation.message == "value #2 (2) arrived with only .max(1) demanded")
        #expect(violation.occurrences == 4)  // values 2 to 5
        let index = try #require(violation.eventIndex)
        #expect(violation.history[index].contains("← value #2: 2"))
    }

    @Test func sendingAfterCancelBreaksRule3() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { Toy(flaw: .sendsAfterCancel) }
        #expect(report.brokenRules == [.termination], "\(report)")
        #expect(report.scenarios(breaking: .termination) == [.cancelInsideReceive])
        let violation = report.violations.first
        #expect(violation?.message == "value #2 (2) arrived after cancel() had returned")
        #expect(violation?.occurrences == 5)  // values 2 to 5, then the completion
        #expect(violation?.history.contains { $0.contains("→ cancel() inside receive(value #1)") } == true)
    }

    @Test func completingTwiceBreaksRule3() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { Toy(flaw: .completesTwice) }
        #expect(report.brokenRules == [.termination], "\(report)")
        #expect(report.violations.allSatisfy { $0.message == "a second completion (finished) arrived" })
        #expect(report.scenarios(breaking: .termination).contains(.unlimited))
        #expect(report.scenarios(breaking: .termination).contains(.oneAtATime))
    }

    @Test func sendingBeforeTheSubscriptionBreaksRule1() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) {
            Toy(flaw: .sendsBeforeSubscription)
        }
        // Reported under rule 1 only: the early value is not counted against later demand.
        #expect(report.brokenRules == [.subscriptionFirst], "\(report)")
        #expect(report.scenarios(breaking: .subscriptionFirst) == Scenario.singleThreaded)
        #expect(report.violations(of: .subscriptionFirst).allSatisfy {
            $0.message == "value #1 (0) arrived before receive(subscription:)" && $0.eventIndex == 0
        })
    }

    @Test func aSecondSubscriptionBreaksRule1() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { Toy(flaw: .subscribesTwice) }
        #expect(report.brokenRules == [.subscriptionFirst], "\(report)")
        #expect(report.scenarios(breaking: .subscriptionFirst) == Scenario.singleThreaded)
        #expect(report.violations.first?.message.hasPrefix("receive(subscription:) was called a second time") == true)
    }

    @Test func neverSendingASubscriptionBreaksRule1() async {
        let report = await PublisherContract.check(scenarios: [.unlimited, .cancelEarly]) { Silent() }
        #expect(report.brokenRules == [.subscriptionFirst], "\(report)")
        #expect(report.scenarios(breaking: .subscriptionFirst) == [.unlimited, .cancelEarly])
        #expect(report.violations.allSatisfy { $0.message == "the publisher never called receive(subscription:)" })
    }

    @Test func sendingAfterCompletionBreaksRule3() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) {
            Toy(flaw: .sendsAfterCompletion)
        }
        #expect(report.brokenRules == [.termination], "\(report)")
        #expect(report.violations.allSatisfy { $0.message.hasSuffix("(99) arrived after the completion") })
        #expect(report.scenarios(breaking: .termination).contains(.unlimited))
    }

    @Test func keepingTheSubscriberAfterCancelOrCompletionBreaksRule4() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { Toy(flaw: .retainsSubscriber) }
        #expect(report.brokenRules == [.release], "\(report)")
        // Every scenario ends in a cancel or a completion, and each one leaves the subscriber held.
        #expect(report.scenarios(breaking: .release) == Scenario.singleThreaded)
        let afterCompletion = report.violations.first { $0.scenario == .unlimited }
        #expect(afterCompletion?.message.hasPrefix(
            "the subscriber was still retained after completion: its subscription keeps a strong reference to it") == true)
        let afterCancel = report.violations.first { $0.scenario == .cancelInsideReceive }
        #expect(afterCancel?.message.hasPrefix("the subscriber was still retained after cancel:") == true)
    }

    @Test func aPublisherThatNeverForgetsASubscriberBreaksRule4() async {
        let report = await PublisherContract.check(scenarios: [.unlimited, .cancelEarly], drive: { $0.finish() }) {
            LeakyRegistry()
        }
        #expect(report.scenarios(breaking: .release) == [.unlimited, .cancelEarly], "\(report)")
        #expect(report.violations(of: .release).allSatisfy {
            $0.message.hasSuffix("something else (the publisher, a global, a pending closure) keeps it")
        })
        // Not forgetting a cancelled subscriber, it also finishes it after the cancel.
        #expect(report.brokenRules == [.termination, .release])
        #expect(report.scenarios(breaking: .termination) == [.cancelEarly])
        #expect(report.violations(of: .termination).first?.message
            == "the completion (finished) arrived after cancel() had returned")
    }

    // The deadlocked thread never returns (it waits on a lock it holds), so the check returning at
    // all, within the time limit, is the proof that the deadlock was reported rather than waited for.
    @Test(.timeLimit(.minutes(3)))
    func deadlockingOnCancelFromInsideReceiveBreaksRule7() async {
        let report = await PublisherContract.check(scenarios: [.cancelInsideReceive], timeout: .milliseconds(300)) {
            DeadlockingPublisher()
        }
        #expect(report.brokenRules == [.reentrancy], "\(report)")
        let violation = report.violations.first
        #expect(violation?.message.hasPrefix("receive(subscriber:) (subscribing the probe) did not return within") == true)
        #expect(violation?.message.hasSuffix(
            "calls still running, outermost first: request(.unlimited) inside receive(subscription:) [thread 1]"
                + " > cancel() inside receive(value #1) [thread 1]") == true, "\(report)")
    }

    @Test(.timeLimit(.minutes(3)))
    func deadlockingOnRequestFromInsideReceiveBreaksRule7() async {
        let report = await PublisherContract.check(scenarios: [.requestInsideReceive], timeout: .milliseconds(300)) {
            DeadlockingPublisher()
        }
        #expect(report.brokenRules == [.reentrancy], "\(report)")
        #expect(report.violations.first?.message.hasSuffix("request(.max(1)) inside receive(value #1) [thread 1]") == true,
                "\(report)")
    }

    @Test func anAsynchronousPublisherThatIgnoresCancelBreaksRule3() async {
        let report = await PublisherContract.check(scenarios: [.cancelMidStream], settle: .milliseconds(100)) {
            Ticker(ignoresCancel: true)
        }
        #expect(report.brokenRules == [.termination], "\(report)")
        // The first value after a cancel made on another thread may have been on its way: allowed
        // and marked. The next one cannot have been. (Which value comes first after the cancel
        // depends on how long the cancelling thread takes to run: a tick is due every millisecond.
        // The kit cancels after the second value.)
        let violation = report.violations.first
        let allowed = violation?.history.filter {
            $0.hasSuffix("(allowed: may have been on its way as cancel() returned on another thread)")
        } ?? []
        #expect(allowed.count == 1, "\(report)")
        // "← value #3: 3   [thread …": the number of the value let through.
        let number = allowed.first.flatMap { Int($0.dropFirst("← value #".count).prefix { $0.isNumber }) }
        #expect((number ?? 0) >= 3, "\(report)")
        if let number {
            #expect(violation?.message == "value #\(number + 1) (\(number + 1)) arrived after cancel() had returned (on another thread)")
        }
    }

    @Test func deliveringOnTwoThreadsAtOnceBreaksRule8() async {
        let report = await PublisherContract.check(scenarios: [.concurrent], valueLimit: 1_000) {
            Toy(count: nil, flaw: .deliversConcurrently)
        }
        #expect(report.brokenRules == [.threadSafety], "\(report)")
        #expect(report.violations.first?.message.contains("deliveries to one subscriber must be serialised") == true)
    }

    @Test(.timeLimit(.minutes(3)))
    func aRunawayLoopIsStoppedAndReported() async {
        let report = await PublisherContract.check(scenarios: [.unlimited], timeout: .milliseconds(300), valueLimit: 10) {
            Runaway()
        }
        #expect(report.brokenRules == [.termination, .reentrancy], "\(report)")
        #expect(report.violations(of: .termination).first?.message == "value #11 (11) arrived after cancel() had returned")
        #expect(report.violations(of: .reentrancy).first?.message.contains("the kit parked that thread") == true)
    }

    @Test func theArticlesPepBoysBreaksRule3WhenCalledFromInsideReceive() async {
        let report = await PublisherContract.check(scenarios: Scenario.singleThreaded) { ArticlePepBoys() }
        #expect(report.brokenRules == [.termination], "\(report)")
        #expect(report.scenarios(breaking: .termination) == [.requestInsideReceive, .order, .cancelInsideReceive])
        // Each nested request runs its own loop, and each loop sends its own completion.
        let nested = report.violations.first { $0.scenario == .requestInsideReceive }
        #expect(nested?.message == "a second completion (finished) arrived")
        #expect(nested?.occurrences == 2)
        // The loop holds `downstream` in a local, so a cancel from inside receive does not stop it.
        let cancelled = report.violations.first { $0.scenario == .cancelInsideReceive }
        #expect(cancelled?.message == "value #2 (Moe) arrived after cancel() had returned")
    }
}

/// Correct publishers pass.
@Suite struct PublisherContractPassingTests {
    @Test func aCorrectFinitePublisherPasses() async throws {
        try await PublisherContract.verify { Toy() }
    }

    @Test func aCorrectPublisherOfOneValuePasses() async throws {
        try await PublisherContract.verify { Toy(count: 1) }
    }

    @Test func aCorrectPublisherOfNoValuesPasses() async throws {
        try await PublisherContract.verify { Toy(count: 0) }
    }

    @Test func aPublisherThatNeverCompletesPasses() async {
        let report = await PublisherContract.check(valueLimit: 50) { Toy(count: nil) }
        #expect(report.passed, "\(report)")
        #expect(report.scenarios == Scenario.all)
    }

    @Test func anAsynchronousPublisherPassesWithASettlePeriod() async {
        let report = await PublisherContract.check(settle: .milliseconds(50)) { Ticker() }
        #expect(report.passed, "\(report)")
    }

    @Test func aPublisherThatIsQuietUntilDrivenPassesWithAFixture() async throws {
        try await PublisherContract.verify {
            let subject = PassthroughSubject<Int, Never>()
            return PublisherContract.Fixture(subject.map { $0 * 10 }) {
                subject.send(1)
                subject.send(2)
                subject.send(completion: .finished)
            }
        }
    }

    @Test func verifyThrowsTheReportWhenARuleBreaks() async {
        await #expect(throws: PublisherContract.Report.self) {
            try await PublisherContract.verify(scenarios: [.oneAtATime]) { Toy(flaw: .ignoresDemand) }
        }
        do {
            try await PublisherContract.verify(scenarios: [.oneAtATime]) { Toy(flaw: .ignoresDemand) }
        } catch {
            #expect(error.brokenRules == [.demand])
            #expect(error.scenarios == [.oneAtATime])
        }
    }
}
