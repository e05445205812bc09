// expect: trait=fail default=pass
// `@preconcurrency import` only turns Sluice's Sendable errors into warnings (errors here, built
// with warnings as errors): its modules are built with complete concurrency checking, unlike
// Apple's Combine. A Sendable struct holding a `@Published` property's publisher compiles
// silently on Apple's SDK behind `@preconcurrency import Combine`; here it compiles without the
// trait (the publisher is Sendable when its values are) and warns with it.
@preconcurrency import Sluice

final class Model: ObservableObject {
    @Published var isOn = false
}

struct Holder: Sendable {
    let publisher: Published<Bool>.Publisher
}

func probe() {
    _ = Holder(publisher: Model().$isOn)
}

probe()
