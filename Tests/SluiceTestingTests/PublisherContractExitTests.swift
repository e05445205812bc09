import SluiceCore
import SluiceTesting
import Testing

/// A crash cannot be reported in-process; an exit test runs the verification in a child process
/// and observes the crash. These prove the recipe the kit documents works (Swift 6.2+, Linux too).
@Suite struct PublisherContractExitTests {
    @Test func aPublisherThatCrashesUnderTheContractIsCaughtByAnExitTest() async {
        await #expect(processExitsWith: .failure) {
            _ = await PublisherContract.check(scenarios: [.cancelInsideReceive]) { CrashesOnSecondCancel() }
        }
    }

    @Test func theSameRecipeLetsACorrectPublisherThrough() async {
        await #expect(processExitsWith: .success) {
            try await PublisherContract.verify(scenarios: [.cancelInsideReceive]) { Toy() }
        }
    }

    @Test func requestingZeroDemandTrapsInTheChildProcess() async {
        await #expect(processExitsWith: .failure) {
            PublisherContract.requestZeroDemand { Toy() }
        }
    }
}
