// expect: trait=pass default=fail
// Built with warnings as errors. A conformance that code written for Apple's SDK declares itself:
// without the trait Sluice already states it, and Swift warns ("already stated in the type's
// module"); with the trait it is the only one, as on Apple's systems.
import Sluice

extension AnyCancellable: @retroactive @unchecked Sendable {}

func probe() {
    let cancellable = AnyCancellable {}
    let cancel: @Sendable () -> Void = { cancellable.cancel() }
    cancel()
}

probe()
