import Sluice

/// The address a ``ShippingForm`` collects.
public struct ShippingInfo: Equatable, Sendable, CustomStringConvertible {
    /// The recipient's name.
    public var name: String
    /// The street address.
    public var address: String
    /// The city.
    public var city: String

    /// Creates shipping information from its three fields.
    public init(name: String, address: String, city: String) {
        self.name = name
        self.address = address
        self.city = city
    }

    /// Nothing entered yet.
    public static let empty = ShippingInfo(name: "", address: "", city: "")

    /// `name, address, city`.
    public var description: String { "\(name), \(address), \(city)" }
}

/// The articles' shipping form: three text fields whose latest texts are combined into one
/// ``ShippingInfo`` and assigned to a `@Published` property — the iOS 14 form of the pipeline,
/// `combineLatest` → `map(ShippingInfo.init)` → `assign(to: &$shippingInfo)`.
///
/// `combineLatest` emits nothing until every field has produced a value, so ``shippingInfo``
/// stays ``ShippingInfo/empty`` until the user has typed into all three; from then on every
/// keystroke in any field publishes a new value. `assign(to:)` ties the subscription to the
/// form's lifetime: no `AnyCancellable` to keep.
public final class ShippingForm: ObservableObject {
    /// The recipient's name field.
    public let nameTextField = TextField()
    /// The street address field.
    public let addressTextField = TextField()
    /// The city field.
    public let cityTextField = TextField()

    /// The shipping information, once all three fields have a value.
    @Published public private(set) var shippingInfo = ShippingInfo.empty

    /// Creates the form and wires its fields to ``shippingInfo``.
    public init() {
        nameTextField.textPublisher.combineLatest(
            addressTextField.textPublisher,
            cityTextField.textPublisher
        )
            .map(ShippingInfo.init)
            .assign(to: &$shippingInfo)
    }
}
