import SluiceCore

/// Assignments to a `@Published` property of a class, `n` times, with one sink on its projected
/// publisher (it also receives the initial value).
func publishedSet(_ n: Int) -> Int {
    final class Model {
        @Published var value = 0
    }
    var sum = 0
    let model = Model()
    let cancellable = model.$value.sink { sum = sum &* 31 &+ $0 }
    for value in 0..<n {
        model.value = value
    }
    cancellable.cancel()
    return sum
}
