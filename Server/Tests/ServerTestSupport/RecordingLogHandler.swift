import Logging
import NIOConcurrencyHelpers

/// A log handler that keeps every record, for tests that check what a module logs.
public struct RecordingLogHandler: LogHandler {
    /// One log record.
    public struct Record: Sendable {
        public let level: Logger.Level
        public let message: String
        public let metadata: Logger.Metadata
    }

    /// The records kept, shared by every copy of the handler.
    public final class Store: Sendable {
        private let box = NIOLockedValueBox<[Record]>([])
        public init() {}
        public var records: [Record] { box.withLockedValue { $0 } }
        /// The records whose message contains `text`.
        public func records(containing text: String) -> [Record] { records.filter { $0.message.contains(text) } }
        func append(_ record: Record) { box.withLockedValue { $0.append(record) } }
    }

    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .trace
    private let store: Store

    /// A logger whose records go to `store`, at every level.
    public static func logger(_ store: Store, label: String = "test") -> Logger {
        Logger(label: label) { _ in RecordingLogHandler(store: store) }
    }

    init(store: Store) { self.store = store }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        store.append(Record(level: event.level, message: event.message.description,
                            metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
    }
}
