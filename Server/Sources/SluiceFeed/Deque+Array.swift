#if Server
import DequeModule

extension Collection {
    /// The elements as an array; none copied when there are none. Making an empty array from a
    /// deque (or a slice of one), the standard library writes the header of its shared empty
    /// array — a benign store, which Thread Sanitizer reports against any thread that reads an
    /// empty array at the same time.
    package var elementsArray: [Element] {
        isEmpty ? [] : Array(self)
    }
}
#endif
