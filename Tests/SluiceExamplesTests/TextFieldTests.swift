import Sluice
import SluiceExamples
import SluiceTesting
import Testing

@Suite("TextField")
struct TextFieldTests {
    @Test func typingSendsEditingChangedPerCharacter() {
        let field = TextField()
        let subscriber = TestSubscriber<TextField, Never>()
        field.publisher(for: .editingChanged).subscribe(subscriber)
        field.type("Jack")
        #expect(subscriber.values.count == 4)
        #expect(field.text == "Jack")
    }

    @Test func textPublisherEmitsTheTextOnEditingChanged() {
        let field = TextField()
        let subscriber = TestSubscriber<String, Never>()
        field.textPublisher.subscribe(subscriber)
        field.type("Moe")
        #expect(subscriber.values == ["M", "Mo", "Moe"])
    }

    @Test func textPublisherIgnoresOtherEventsAndReadsNilAsEmpty() {
        let field = TextField()
        let subscriber = TestSubscriber<String, Never>()
        field.textPublisher.subscribe(subscriber)
        field.sendActions(for: .primaryActionTriggered)
        #expect(subscriber.values.isEmpty)
        field.sendActions(for: .editingChanged)
        #expect(subscriber.values == [""])
    }

    @Test func textPublisherCancelRemovesTheTarget() {
        let field = TextField()
        let subscriber = TestSubscriber<String, Never>()
        field.textPublisher.subscribe(subscriber)
        #expect(field.registeredActionCount == 1)
        subscriber.cancel()
        #expect(field.registeredActionCount == 0)
        field.type("x")
        #expect(subscriber.values.isEmpty)
    }

    @Test func textPublisherDoesNotRetainTheField() {
        var field: TextField? = TextField()
        weak let weakField = field
        let subscriber = TestSubscriber<String, Never>()
        field!.textPublisher.subscribe(subscriber)
        field = nil
        #expect(weakField == nil)
    }

    // MARK: The contract kit

    @Test func textPublisherKeepsTheContract() async throws {
        try await PublisherContract.verify {
            let field = TextField()
            return PublisherContract.Fixture(field.textPublisher) { field.type("Jack") }
        }
    }
}
