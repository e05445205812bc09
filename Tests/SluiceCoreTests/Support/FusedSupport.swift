import SluiceCore

/// The success value of a result publisher whose failure is `any Error`, if it succeeds.
func successValue<T>(_ publisher: Result<T, any Error>.Publisher) -> T? {
    try? publisher.result.get()
}

/// The `TestError` a result publisher whose failure is `any Error` fails with, if any.
func failureTestError<T>(_ publisher: Result<T, any Error>.Publisher) -> TestError? {
    guard case .failure(let error) = publisher.result else { return nil }
    return error as? TestError
}
