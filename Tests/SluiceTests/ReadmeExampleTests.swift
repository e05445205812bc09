import Sluice
import Testing

/// The README's short example, kept compiling and true.
@Suite struct ReadmeExampleTests {
    final class Model: ObservableObject {
        @Published var name = "Manny"
    }

    @Test func theShortExamplePrintsWhatTheReadmeSays() {
        var printed: [String] = []
        let model = Model()
        let names = PassthroughSubject<String, Never>()
        var bag = Set<AnyCancellable>()

        model.$name
            .map { "Hello, \($0)" }
            .sink { printed.append($0) }
            .store(in: &bag)

        names.filter { !$0.isEmpty }
            .assign(to: \.name, on: model)
            .store(in: &bag)

        names.send("Moe")
        names.send("")
        names.send("Jack")

        #expect(printed == ["Hello, Manny", "Hello, Moe", "Hello, Jack"])
        #expect(model.name == "Jack")
        #expect(bag.count == 2)
    }
}
