import Sluice

/// A stand-in for `UITextField`: a ``Control`` with editable text.
///
/// ``type(_:)`` plays the user: it appends to ``text`` and fires ``Control/Event/editingChanged``,
/// one keystroke at a time.
public final class TextField: Control {
    /// The field's current text.
    public var text: String?

    /// Creates a field holding `text`.
    public init(text: String? = nil) {
        self.text = text
        super.init()
    }

    /// Simulates the user typing `characters`: for each one, appends it to ``text`` and sends
    /// ``Control/Event/editingChanged``.
    public func type(_ characters: String) {
        for character in characters {
            text = (text ?? "") + String(character)
            sendActions(for: .editingChanged)
        }
    }

    /// A publisher of the field's text after each edit (`""` when the text is `nil`), built on
    /// ``ControlPublisher`` the way the articles build their typed `textPublisher`.
    ///
    /// The closure reads the text from the control the publisher delivers, so the pipeline does
    /// not capture (and keep alive) the field itself.
    public var textPublisher: AnyPublisher<String, Never> {
        publisher(for: .editingChanged)
            .map { field in field.text ?? "" }
            .eraseToAnyPublisher()
    }
}
