#if HAS_FLATMAP
import SluiceCore

/// `sequence → flatMap { Just($0) } → sink`: one inner publisher subscribed per element.
func flatMapJust(_ n: Int) -> Int {
    var sum = 0
    let cancellable = (0..<n).publisher
        .flatMap { Just($0) }
        .sink { sum = sum &* 31 &+ $0 }
    cancellable.cancel()
    return sum
}
#endif
