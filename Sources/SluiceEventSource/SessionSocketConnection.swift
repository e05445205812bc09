import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``EventSocket`` connection on a `URLSessionWebSocketTask`: every connection on Apple's
/// systems, and `wss:` ones elsewhere (FoundationNetworking's task needs a libcurl built with
/// WebSocket support; without one it fails with ``EventSourceError/webSocketUnavailable``).
///
/// It asks the task for one message at a time; suspending leaves the next `receive` unasked, so a
/// full buffer stops the reading with the connection open.
final class SessionSocketConnection: NSObject, EventStreamConnection, URLSessionWebSocketDelegate, @unchecked Sendable {
    typealias Driver = EventStreamDriver<SocketMessageDecoder>

    private let id: UInt64
    private let driver: Driver
    private let state = Locked(State())
    private var task: URLSessionWebSocketTask?

    private struct State {
        var paused = false
        /// A `receive` is asked for and not yet answered.
        var receiving = false
        var ended = false
    }

    init(id: UInt64, driver: Driver) {
        self.id = id
        self.driver = driver
    }

    /// Opens the connection in a session of `configuration` whose delegate it is.
    func start(request: URLRequest, configuration: URLSessionConfiguration, maximumMessageSize: Int) {
        let session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        let task = session.webSocketTask(with: request)
        task.maximumMessageSize = maximumMessageSize
        self.task = task
        guard driver.attach(self, id: id) else {
            task.cancel()
            session.invalidateAndCancel()
            return
        }
        task.resume()
        session.finishTasksAndInvalidate()   // lets go of the delegate once the task ends
        receiveNext()
    }

    /// Not asking for the next message: the connection stays open.
    var pauseMethod: EventStreamPauseMethod { .suspend }

    func cancel() {
        state.withLock { $0.ended = true }
        task?.cancel(with: .normalClosure, reason: nil)
    }

    func suspend() {
        state.withLock { $0.paused = true }
    }

    func resume() {
        state.withLock { $0.paused = false }
        receiveNext()
    }

    /// Sends `text` as a text message; a failure is left to the reading to find.
    func send(text: String) {
        task?.send(.string(text)) { _ in }
    }

    /// Asks for the next message, unless one is asked for, the reading is suspended or it ended.
    private func receiveNext() {
        let ask = state.withLock { state in
            guard !state.paused, !state.receiving, !state.ended else { return false }
            state.receiving = true
            return true
        }
        guard ask, let task else { return }
        task.receive { [self] result in
            state.withLock { $0.receiving = false }
            switch result {
            case .success(.string(let text)):
                driver.received(id: id, Data(text.utf8))
                receiveNext()
            case .success(.data(let data)):
                driver.received(id: id, data)
                receiveNext()
            case .success:
                receiveNext()
            case .failure(let error):
                ended(with: error)
            }
        }
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask, didOpenWithProtocol protocol: String?) {
        if !driver.responded(id: id, .stream) { cancel() }
    }

    func urlSession(_ session: URLSession, webSocketTask: URLSessionWebSocketTask,
                    didCloseWith closeCode: URLSessionWebSocketTask.CloseCode, reason: Data?) {
        guard endOnce() else { return }
        driver.closed(id: id, code: closeCode.rawValue, reason: reason.map { String(decoding: $0, as: UTF8.self) } ?? "")
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        ended(with: error)
    }

    /// Marks the connection ended; `false` if it already was.
    private func endOnce() -> Bool {
        state.withLock { state in
            defer { state.ended = true }
            return !state.ended
        }
    }

    /// The task ended, or a `receive` failed: a close frame the task received (its pending
    /// `receive` may fail before the delegate hears of the close), an HTTP answer other than 101,
    /// or the network.
    private func ended(with error: (any Error)?) {
        guard endOnce() else { return }
        if let task, task.closeCode != .invalid {
            driver.closed(id: id, code: task.closeCode.rawValue,
                          reason: task.closeReason.map { String(decoding: $0, as: UTF8.self) } ?? "")
            return
        }
        if let error = error as? URLError, error.code == .unsupportedURL {
            driver.ended(id: id, with: .failure(.webSocketUnavailable))
            return
        }
        if let response = task?.response as? HTTPURLResponse, response.statusCode != 101 {
            _ = driver.responded(id: id, .status(response.statusCode,
                                                 retryAfter: StreamAnswer.retryAfter(response.value(forHTTPHeaderField: "Retry-After"))))
            return
        }
        driver.completed(id: id, error: error.map { EventSourceError(transportError: $0, url: task?.originalRequest?.url) })
    }
}
