import SluiceCore

/// The bits of JSON both exports write by hand (the module needs no encoder).
enum TimelineJSON {
    /// `text` as a JSON string literal, quotes included. Control characters, `"`, `\` and `<` are
    /// written as `\u` escapes — `<` too, so that the literal can sit inside an HTML `<script>`
    /// element without ever closing it.
    static func string(_ text: String) -> String {
        var literal = "\""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar == "\"" || scalar == "\\" || scalar == "<" {
                let hex = String(scalar.value, radix: 16)
                literal += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                literal.unicodeScalars.append(scalar)
            }
        }
        return literal + "\""
    }

    /// `time` in microseconds, with nanosecond precision: `12.345`.
    static func microseconds(_ time: Duration) -> String {
        let (seconds, attoseconds) = time.components
        let nanoseconds = seconds * 1_000_000_000 + attoseconds / 1_000_000_000
        let fraction = String(nanoseconds % 1_000)
        return "\(nanoseconds / 1_000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }

    /// `.max(3)`, `.unlimited`, `.none`.
    static func demand(_ demand: Subscribers.Demand) -> String {
        if demand == .unlimited { return ".unlimited" }
        return demand == .none ? ".none" : ".max(\(demand.max ?? 0))"
    }

    /// A short label for an event: `value 2`, `request .max(1)`, `finished`…
    static func label(_ kind: TimelineEvent.Kind) -> String {
        switch kind {
        case .subscribe: "subscribe"
        case .request(let demand): "request " + self.demand(demand)
        case .value(let text): "value " + text
        case .returnedDemand(let demand): "returned " + self.demand(demand)
        case .completion(let text): text
        case .cancel: "cancel"
        }
    }

    /// The kind's name, as both exports categorise events: `value`, `request`…
    static func category(_ kind: TimelineEvent.Kind) -> String {
        switch kind {
        case .subscribe: "subscribe"
        case .request: "request"
        case .value: "value"
        case .returnedDemand: "returnedDemand"
        case .completion(let text): text == "finished" ? "finished" : "failure"
        case .cancel: "cancel"
        }
    }
}
