import OpenCombine

/// `PassthroughSubject.send` of `n` values into `assign(to:on:)`, each assigned to a property of an
/// object through a key path.
func assignSend(_ n: Int) -> Int {
    final class Model {
        var sum = 0
        var value: Int {
            get { sum }
            set { sum = sum &* 31 &+ newValue }
        }
    }
    let model = Model()
    let subject = PassthroughSubject<Int, Never>()
    let cancellable = subject.assign(to: \.value, on: model)
    for value in 0..<n {
        subject.send(value)
    }
    cancellable.cancel()
    return model.sum
}
