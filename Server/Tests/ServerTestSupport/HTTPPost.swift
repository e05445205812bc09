import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// POSTs an empty body to `url`: the response's status and body text.
public func post(_ url: String) async throws -> (status: Int, body: String) {
    var request = URLRequest(url: URL(string: url)!)
    request.httpMethod = "POST"
    let (data, response) = try await URLSession.shared.data(for: request)
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// GETs `url`: the response's status and body text.
public func get(_ url: String) async throws -> (status: Int, body: String) {
    let (data, response) = try await URLSession.shared.data(for: URLRequest(url: URL(string: url)!))
    return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
}

/// A loopback port that was free a moment ago (bound and released).
public func freeLoopbackPort() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
    return Int(UInt16(bigEndian: address.sin_port))
}
