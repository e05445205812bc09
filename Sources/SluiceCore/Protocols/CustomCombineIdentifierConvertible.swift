/// A protocol for uniquely identifying publisher streams.
///
/// Classes get an identifier derived from their object identity for free; structures that act as
/// subscribers store a ``CombineIdentifier`` created with `CombineIdentifier()`.
public protocol CustomCombineIdentifierConvertible {
    /// A unique identifier for identifying publisher streams.
    var combineIdentifier: CombineIdentifier { get }
}

extension CustomCombineIdentifierConvertible where Self: AnyObject {
    /// The identifier of this object, derived from its identity.
    @inlinable
    public var combineIdentifier: CombineIdentifier { CombineIdentifier(self) }
}
