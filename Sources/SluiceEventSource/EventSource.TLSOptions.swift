import Foundation

extension EventSource {
    /// Whom an `https:` or `wss:` connection trusts and who it says it is — custom trust roots,
    /// the system's roots or not, a client certificate (mutual TLS) — and the proxy it goes
    /// through. Set as ``EventSource/Configuration/tls``; the same for an ``EventSource`` and an
    /// ``EventSocket``.
    ///
    /// These options are applied by the module's TLS stack (SwiftNIO SSL): off Apple's systems,
    /// in a build with the package trait `TLS`. Where that stack does not make the connection —
    /// a build without the trait, or Apple's systems, where URLSession makes every connection
    /// (its session's delegate decides trust there) — a stream whose options are not the
    /// defaults fails at its first attempt with ``EventSourceError/tlsOptionsUnavailable``
    /// rather than connect with other trust than it asked for.
    ///
    /// ```swift
    /// var configuration = EventSource.Configuration()
    /// configuration.tls.trustRoots = [.file("/etc/feed/ca.pem")]   // the feed's own CA
    /// configuration.tls.clientCertificate = .init(certificateChain: .file("client.pem"),
    ///                                              privateKey: .file("client-key.pem"))
    /// let feed = EventSource(url: URL(string: "https://feed.internal/events/prices")!,
    ///                        configuration: configuration)
    /// ```
    public struct TLSOptions: Sendable, Hashable {
        /// Certificates trusted as roots besides (or, with ``trustsSystemRoots`` `false`,
        /// instead of) the system's: a private CA, or a server's self-signed certificate. Empty
        /// by default.
        public var trustRoots: [PEM]
        /// Whether the system's trust roots (the distribution's CA bundle) are trusted too
        /// (`true`, the default). `false` with ``trustRoots`` pins the connection to those roots.
        public var trustsSystemRoots: Bool
        /// The certificate and key the client presents when the server asks for one (mutual
        /// TLS); `nil` (the default): none.
        public var clientCertificate: ClientCertificate?
        /// The proxy an `https:` or `wss:` connection goes through (``Proxy/environment``, the
        /// default: `https_proxy`, as curl reads it).
        public var proxy: Proxy

        /// Options; every argument has its documented default.
        ///
        /// - Parameters:
        ///   - trustRoots: Certificates trusted as roots (none).
        ///   - trustsSystemRoots: Whether the system's roots are trusted too (`true`).
        ///   - clientCertificate: The client's certificate and key (`nil`: none).
        ///   - proxy: The proxy of `https:` and `wss:` connections (``Proxy/environment``).
        public init(trustRoots: [PEM] = [], trustsSystemRoots: Bool = true, clientCertificate: ClientCertificate? = nil,
                    proxy: Proxy = .environment) {
            self.trustRoots = trustRoots
            self.trustsSystemRoots = trustsSystemRoots
            self.clientCertificate = clientCertificate
            self.proxy = proxy
        }

        /// Whether these are the default options (the system's roots alone, no client
        /// certificate, the environment's proxy): what every stack can honour.
        var isDefault: Bool { self == TLSOptions() }

        /// Certificates or a key in PEM form (`-----BEGIN CERTIFICATE-----` …), from a file or
        /// given as text. A file is read when a connection is first made with these options.
        public enum PEM: Sendable, Hashable {
            /// The PEM file at `path` (one or more certificates, or one key).
            case file(String)
            /// PEM text (one or more certificates, or one key).
            case text(String)
        }

        /// The certificate chain and private key a client presents for mutual TLS.
        public struct ClientCertificate: Sendable, Hashable {
            /// The client's certificate, then any intermediate certificates, in PEM.
            public var certificateChain: PEM
            /// The certificate's private key, in PEM (unencrypted: PKCS #8 or the key type's own form).
            public var privateKey: PEM

            /// A client certificate.
            ///
            /// - Parameters:
            ///   - certificateChain: The certificate, then any intermediates, in PEM.
            ///   - privateKey: Its private key, in PEM.
            public init(certificateChain: PEM, privateKey: PEM) {
                self.certificateChain = certificateChain
                self.privateKey = privateKey
            }
        }

        /// Which proxy an `https:` or `wss:` connection of the TLS stack goes through: it asks the
        /// proxy with `CONNECT host:port` for a tunnel and speaks TLS with the server inside it.
        public enum Proxy: Sendable, Hashable {
            /// The proxy named by `https_proxy` (or `HTTPS_PROXY`, then `all_proxy`, `ALL_PROXY`)
            /// in the environment, as curl reads it — `http://[user:password@]host:port` —
            /// unless `no_proxy` (or `NO_PROXY`) lists the server's host, one of its parent
            /// domains, or `*`. No proxy when none is set. The default.
            case environment
            /// No proxy, whatever the environment says.
            case none
            /// The HTTP proxy at `url` (`http://[user:password@]host:port`; port 1080 if none).
            case url(URL)
        }
    }
}

extension EventSource.TLSOptions.Proxy {
    /// The proxy to reach `host` through, given the environment `environment` (`nil`: go
    /// direct): `host` and `port` of the proxy, and its `Proxy-Authorization` value if its URL
    /// has credentials.
    func resolve(forHost host: String, environment: [String: String]) -> (host: String, port: Int, authorization: String?)? {
        let url: URL
        switch self {
        case .none:
            return nil
        case .url(let given):
            url = given
        case .environment:
            let names = ["https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
            guard let value = names.lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) else { return nil }
            let noProxy = (environment["no_proxy"] ?? environment["NO_PROXY"] ?? "").split(separator: ",")
                .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            let name = host.lowercased()
            for entry in noProxy where !entry.isEmpty {
                if entry == "*" { return nil }
                let suffix = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
                if name == suffix || name.hasSuffix("." + suffix) { return nil }
            }
            // curl takes a proxy without a scheme as http://.
            guard let parsed = URL(string: value.contains("://") ? value : "http://" + value) else { return nil }
            url = parsed
        }
        guard let proxyHost = url.host, !proxyHost.isEmpty else { return nil }
        var authorization: String?
        if let user = url.user {
            let credentials = (user.removingPercentEncoding ?? user) + ":" + ((url.password?.removingPercentEncoding ?? url.password) ?? "")
            authorization = "Basic " + Data(credentials.utf8).base64EncodedString()
        }
        let bare = proxyHost.hasPrefix("[") ? String(proxyHost.dropFirst().dropLast()) : proxyHost
        return (bare, url.port ?? 1080, authorization)
    }
}
