/// A publisher that allows for recording a series of inputs and a completion, for later playback to
/// each subscriber.
///
/// Every subscriber receives the recorded output from the start, as it requests demand, then the
/// recorded completion immediately after the last element (without needing further demand). A
/// recording with no output sends its completion on subscription. Nothing is sent after the
/// subscriber cancels. Playback runs on the thread that requests demand.
///
/// ```swift
/// let record = Record<Int, Never> { recording in
///     recording.receive(1)
///     recording.receive(2)
///     recording.receive(completion: .finished)
/// }
/// ```
public struct Record<Output, Failure: Error>: Publisher {
    /// The recorded output and completion.
    public let recording: Recording

    /// Creates a publisher to interactively record a series of outputs and a completion.
    ///
    /// - Parameter record: A closure that records outputs and, optionally, a completion into the
    ///   recording it is given. Without a recorded completion, playback ends with `.finished`.
    @inlinable
    public init(record: (inout Recording) -> Void) {
        var recording = Recording()
        record(&recording)
        self.recording = recording
    }

    /// Creates a record publisher from an existing recording.
    ///
    /// - Parameter recording: A previously-recorded recording of published elements and a
    ///   completion.
    @inlinable
    public init(recording: Recording) {
        self.recording = recording
    }

    /// Creates a record publisher to publish the provided elements, followed by the provided
    /// completion value.
    ///
    /// - Parameters:
    ///   - output: An array of output elements to publish.
    ///   - completion: The completion value with which to end publishing.
    @inlinable
    public init(output: [Output], completion: Subscribers.Completion<Failure>) {
        recording = Recording(output: output, completion: completion)
    }

    /// Sends the subscriber a subscription that replays the recorded output on demand, then the
    /// recorded completion.
    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let output = recording.output
        var iterator = output.makeIterator()
        guard let first = iterator.next() else {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: recording.completion)
            return
        }
        // The same pump as `Publishers.Sequence`, ending with the recorded completion.
        subscriber.receive(
            subscription: Publishers.Sequence<[Output], Failure>.Inner(
                downstream: subscriber, iterator: iterator, first: first, sequence: output,
                completion: recording.completion, endedName: "Cancelled Events", mirrorsCompletion: true))
    }
}

extension Record {
    /// A recorded sequence of outputs, followed by a completion value.
    ///
    /// Record elements with ``receive(_:)`` and end the recording with ``receive(completion:)``;
    /// recording anything after the completion stops the program.
    public struct Recording {
        /// The kind of values the recording holds.
        public typealias Input = Output

        @usableFromInline
        var storedOutput: [Output]

        @usableFromInline
        var storedCompletion: Subscribers.Completion<Failure>

        /// Whether a completion has been recorded; no more events may be added after it.
        @usableFromInline
        var isComplete: Bool

        /// The output which will be sent to a `Subscriber`.
        @inlinable
        public var output: [Output] { storedOutput }

        /// The completion which will be sent to a `Subscriber`: the recorded one, or `.finished`
        /// if none was recorded.
        @inlinable
        public var completion: Subscribers.Completion<Failure> { storedCompletion }

        /// Set up a recording in a state ready to receive output.
        @inlinable
        public init() {
            storedOutput = []
            storedCompletion = .finished
            isComplete = false
        }

        /// Set up a complete recording with the specified output and completion.
        @inlinable
        public init(output: [Output], completion: Subscribers.Completion<Failure> = .finished) {
            storedOutput = output
            storedCompletion = completion
            isComplete = true
        }

        /// Add an output to the recording.
        ///
        /// Adding output after a completion stops the program.
        @inlinable
        public mutating func receive(_ input: Input) {
            precondition(!isComplete, "Record.Recording: cannot receive output after a completion has been recorded")
            storedOutput.append(input)
        }

        /// Add a completion to the recording.
        ///
        /// Adding more than one completion stops the program.
        @inlinable
        public mutating func receive(completion: Subscribers.Completion<Failure>) {
            precondition(!isComplete, "Record.Recording: cannot receive more than one completion")
            storedCompletion = completion
            isComplete = true
        }
    }
}

// Not `Sendable` in Apple's Combine: under the `AppleConcurrencyShape` trait, not here either.
#if !AppleConcurrencyShape
extension Record: Sendable where Output: Sendable, Failure: Sendable {}
extension Record.Recording: Sendable where Output: Sendable, Failure: Sendable {}
#endif

/// The keys of a recording's coded form.
private enum RecordingCodingKeys: String, CodingKey { case output, completion }

/// The key of a record's coded form.
private enum RecordCodingKeys: String, CodingKey { case recording }

extension Record.Recording: Codable where Output: Codable, Failure: Codable {
    /// Decodes a complete recording (`{"output": [...], "completion": ...}`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RecordingCodingKeys.self)
        self.init(
            output: try container.decode([Output].self, forKey: .output),
            completion: try container.decode(Subscribers.Completion<Failure>.self, forKey: .completion))
    }

    /// Encodes the output and completion as `{"output": [...], "completion": ...}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordingCodingKeys.self)
        try container.encode(output, forKey: .output)
        try container.encode(completion, forKey: .completion)
    }

    /// Encodes the recording into the given encoder; the same as ``encode(to:)``.
    public func encode(into encoder: any Encoder) throws {
        try encode(to: encoder)
    }
}

extension Record: Codable where Output: Codable, Failure: Codable {
    /// Decodes a record publisher from its recording (`{"recording": ...}`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RecordCodingKeys.self)
        self.init(recording: try container.decode(Recording.self, forKey: .recording))
    }

    /// Encodes the record publisher's recording as `{"recording": ...}`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RecordCodingKeys.self)
        try container.encode(recording, forKey: .recording)
    }
}
