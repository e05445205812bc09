import SluiceCore
import SluiceTesting
import Testing

@Suite("Subject")
struct SubjectTests {
    @Test func voidSubjectsCanSendWithoutAnArgument() {
        func ping<S: Subject>(_ subject: S) where S.Output == Void { subject.send() }
        let subject = CurrentValueSubject<Void, Never>(())
        let subscriber = TestSubscriber<Void, Never>()
        subject.subscribe(subscriber)
        ping(subject)
        #expect(subscriber.values.count == 2)  // the current value, then the ping
    }

    @Test func subjectsWorkThroughTheExistential() {
        let subjects: [any Subject<Int, Never>] = [PassthroughSubject(), CurrentValueSubject(0)]
        var received: [[Int]] = []
        var cancellables: [AnyCancellable] = []
        for subject in subjects {
            let index = received.count
            received.append([])
            subject.sink { received[index].append($0) }.store(in: &cancellables)
            subject.send(1)
            subject.send(completion: .finished)
            subject.send(2)
        }
        #expect(received == [[1], [0, 1]])
    }
}
