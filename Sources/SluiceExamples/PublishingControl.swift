/// Gives every ``Control`` a `publisher(for:)` method typed by the control's own class.
///
/// A method in an extension of a class cannot return `ControlPublisher<Self>`, but a method in an
/// extension of a protocol can; so ``Control`` adopts this protocol and the method lives on the
/// protocol. `textField.publisher(for: .editingChanged)` is then a
/// `ControlPublisher<TextField>`.
public protocol PublishingControl: Control {}

extension Control: PublishingControl {}

extension PublishingControl {
    /// A publisher that emits this control each time it fires `event`.
    public func publisher(for event: Control.Event = .primaryActionTriggered) -> ControlPublisher<Self> {
        ControlPublisher(control: self, event: event)
    }
}
