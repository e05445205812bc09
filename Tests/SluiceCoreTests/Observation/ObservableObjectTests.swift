import Dispatch
@testable import SluiceCore
import SluiceTesting
import Testing

/// Apple's documentation example.
private final class Contact: ObservableObject, @unchecked Sendable {
    @Published var name: String
    @Published var age: Int

    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }

    func haveBirthday() -> Int {
        age += 1
        return age
    }
}

private class Base: ObservableObject, @unchecked Sendable {
    @Published var base = 0
    var plain = 0
}

private final class Derived: Base, @unchecked Sendable {
    var other = ""
    @Published var derived = "a"
}

/// Inherits its only `@Published` property.
private final class Inheriting: Base, @unchecked Sendable {
    var extra = 1
}

private final class NoPublished: ObservableObject {
    var value = 0 {
        willSet { objectWillChange.send() }
    }
}

/// Declares its own publisher of the default type.
private final class Manual: ObservableObject {
    let objectWillChange = ObservableObjectPublisher()
    var value = 0 {
        willSet { objectWillChange.send() }
    }
}

/// Uses another publisher type altogether.
private final class CustomPublisher: ObservableObject {
    let objectWillChange = PassthroughSubject<Int, Never>()
}

/// A main-actor view model, the typical SwiftUI shape.
@MainActor
private final class ViewModel: ObservableObject {
    @Published var count = 0
    @Published private(set) var log: [String] = []

    func increment() {
        count += 1
        log.append("incremented")
    }
}

/// Counts `objectWillChange` signals.
private func countSignals(of publisher: ObservableObjectPublisher) -> (Shared<Int>, AnyCancellable) {
    let count = Shared(0)
    let cancellable = publisher.sink { count.mutate { $0 += 1 } }
    return (count, cancellable)
}

@Suite("ObservableObject")
struct ObservableObjectTests {
    @Test func appleContactExample() {
        let printed = Shared<[String]>([])
        let john = Contact(name: "John Appleseed", age: 24)
        let cancellable = john.objectWillChange
            .sink { _ in
                printed.mutate { $0.append("\(john.age) will change") }
            }
        let age = john.haveBirthday()
        printed.mutate { $0.append("\(age)") }
        #expect(printed.value == ["24 will change", "25"])
        _ = cancellable
    }

    @Test func firesOnceBeforeEveryChangeOfAnyPublishedProperty() {
        let contact = Contact(name: "A", age: 1)
        let (count, cancellable) = countSignals(of: contact.objectWillChange)
        contact.name = "B"
        #expect(count.value == 1)
        contact.age = 2
        #expect(count.value == 2)
        contact.age += 1
        #expect(count.value == 3)
        _ = cancellable
    }

    @Test func firesBeforeThePropertysOwnPublisher() {
        let contact = Contact(name: "A", age: 1)
        let log = Shared<[String]>([])
        let willChange = contact.objectWillChange.sink { log.mutate { $0.append("will change, age \(contact.age)") } }
        let age = contact.$age.dropFirstValue { value in log.mutate { $0.append("age publishes \(value)") } }
        contact.age = 2
        #expect(log.value == ["will change, age 1", "age publishes 2"])
        _ = (willChange, age)
    }

    @Test func returnsTheSameInstanceOnEveryAccess() {
        let contact = Contact(name: "A", age: 1)
        let first = contact.objectWillChange
        for _ in 0..<10 {
            #expect(contact.objectWillChange === first)
        }
        let other = Contact(name: "B", age: 2)
        #expect(other.objectWillChange !== first)
        #expect(other.objectWillChange === other.objectWillChange)
    }

    @Test func firstAccessesFromManyThreadsAgree() {
        for _ in 0..<20 {
            let contact = Contact(name: "A", age: 1)
            let seen = Shared<[ObjectIdentifier]>([])
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                let identifier = ObjectIdentifier(contact.objectWillChange)
                seen.mutate { $0.append(identifier) }
            }
            #expect(Set(seen.value).count == 1)
            let (count, cancellable) = countSignals(of: contact.objectWillChange)
            contact.age = 2
            #expect(count.value == 1)
            _ = cancellable
        }
    }

    @Test func subclassAndSuperclassPropertiesFireIt() {
        let object = Derived()
        let (count, cancellable) = countSignals(of: object.objectWillChange)
        object.derived = "b"
        object.base = 1
        object.plain = 1
        object.other = "x"
        #expect(count.value == 2)
        #expect(object.objectWillChange === object.objectWillChange)
        _ = cancellable
    }

    @Test func anInheritedPropertyFiresIt() {
        let object = Inheriting()
        let (count, cancellable) = countSignals(of: object.objectWillChange)
        object.base = 4
        object.extra = 2
        #expect(count.value == 1)
        #expect(object.objectWillChange === object.objectWillChange)
        _ = cancellable
    }

    @Test func accessedThroughTheSuperclassType() {
        let object: Base = Derived()
        let (count, cancellable) = countSignals(of: object.objectWillChange)
        (object as? Derived)?.derived = "c"
        #expect(count.value == 1)
        #expect((object as! Derived).objectWillChange === object.objectWillChange)
        _ = cancellable
    }

    @MainActor
    @Test func mainActorObjects() {
        let model = ViewModel()
        let (count, cancellable) = countSignals(of: model.objectWillChange)
        let values = Shared<[Int]>([])
        let counts = model.$count.sink { value in values.mutate { $0.append(value) } }
        model.increment()
        #expect(count.value == 2)
        #expect(values.value == [0, 1])
        #expect(model.log == ["incremented"])
        _ = (cancellable, counts)
    }

    @Test func withoutPublishedPropertiesEveryAccessReturnsTheSamePublisher() {
        // As Apple's (since iOS 13.3): so `objectWillChange.send()` in a `willSet` reaches the
        // object's subscribers.
        let object = NoPublished()
        let first = object.objectWillChange
        #expect(object.objectWillChange === first)
        let (count, cancellable) = countSignals(of: object.objectWillChange)
        object.value = 1
        object.value = 2
        #expect(count.value == 2)
        #expect(NoPublished().objectWillChange !== first)
        _ = cancellable
    }

    @Test func publishersOfObjectsWithoutPublishedPropertiesGoWithTheirObjects() {
        // The table holds each object weakly; once it has grown to its sweep size (64 entries
        // here), the entries of objects gone are swept out, and their publishers released.
        let survivor = NoPublished()
        let survivorPublisher = survivor.objectWillChange
        weak var weakPublisher: ObservableObjectPublisher?
        do {
            let object = NoPublished()
            weakPublisher = object.objectWillChange
        }
        let alive = (0..<300).map { _ in NoPublished() }
        for object in alive { _ = object.objectWillChange }
        #expect(weakPublisher == nil)
        #expect(survivor.objectWillChange === survivorPublisher)
        #expect(alive.allSatisfy { $0.objectWillChange === $0.objectWillChange })
    }

    @Test func aDeclaredPublisherIsUsed() {
        let object = Manual()
        #expect(object.objectWillChange === object.objectWillChange)
        let (count, cancellable) = countSignals(of: object.objectWillChange)
        object.value = 1
        #expect(count.value == 1)
        _ = cancellable
    }

    @Test func anotherPublisherTypeIsAllowed() {
        let object = CustomPublisher()
        let subscriber = TestSubscriber<Int, Never>()
        object.objectWillChange.subscribe(subscriber)
        object.objectWillChange.send(1)
        #expect(subscriber.values == [1])
    }

    @Test func nothingFiresWhenNobodyAsked() {
        let contact = Contact(name: "A", age: 1)
        contact.age = 2  // no objectWillChange installed yet: nothing to fire, nothing breaks
        let (count, cancellable) = countSignals(of: contact.objectWillChange)
        contact.age = 3
        #expect(count.value == 1)
        _ = cancellable
    }

    @Test func anObservedObjectDeallocates() {
        weak var weakContact: Contact?
        let count: Shared<Int>
        let cancellable: AnyCancellable
        do {
            let contact = Contact(name: "A", age: 1)
            weakContact = contact
            let signals = countSignals(of: contact.objectWillChange)
            count = signals.0
            cancellable = signals.1
            contact.age = 2
        }
        #expect(weakContact == nil)
        #expect(count.value == 1)
        cancellable.cancel()
    }

    // MARK: ObservableObjectPublisher

    @Test func observableObjectPublisherIgnoresDemand() {
        // As Apple's: every subscriber gets every signal, whatever it requested.
        let publisher = ObservableObjectPublisher()
        let subscriber = TestSubscriber<Void, Never>(initialDemand: .max(1))
        publisher.subscribe(subscriber)
        publisher.send()
        publisher.send()
        #expect(subscriber.values.count == 2)
        let none = TestSubscriber<Void, Never>(initialDemand: .none)
        publisher.subscribe(none)
        publisher.send()
        #expect(subscriber.values.count == 3)
        #expect(none.values.count == 1)
        #expect(Mirror(reflecting: none.subscription!).children.map(\.label) == ["downstream"])
        subscriber.request(.max(1))
        publisher.send()
        #expect(subscriber.values.count == 4)
        #expect(subscriber.eventDescriptions.first == "subscription(ObservableObjectPublisher)")
        subscriber.cancel()
        publisher.send()
        #expect(subscriber.values.count == 4)
        #expect(subscriber.completion == nil)
    }

    @Test func observableObjectPublisherKeepsTheContract() async throws {
        try await PublisherContract.verify(drive: { publisher in
            for _ in 0..<5 { publisher.send() }
        }) {
            ObservableObjectPublisher()
        }
        try await PublisherContract.verify {
            let contact = Contact(name: "A", age: 1)
            return PublisherContract.Fixture(contact.objectWillChange) {
                for age in 2...6 { contact.age = age }
            }
        }
    }
}

extension Published.Publisher {
    /// Sinks every value after the current one.
    fileprivate func dropFirstValue(_ receive: @escaping (Value) -> Void) -> AnyCancellable {
        let isFirst = Shared(true)
        return sink { value in
            if isFirst.mutate({ first in defer { first = false }; return first }) { return }
            receive(value)
        }
    }
}
