import Vapor

/// Boots a Vapor application configured by `configure`, serves it on a loopback port for `body`,
/// then shuts it down as `Application.execute()` does: lifecycle handlers first, then the server.
func withVaporApp(_ configure: (Application) async throws -> Void, run body: (_ port: Int) async throws -> Void) async throws {
    let app = try await Application.make(.testing)
    app.logger.logLevel = .warning
    try await configure(app)
    try await app.asyncBoot()
    let server = app.server
    try await server.start(address: .hostname("127.0.0.1", port: 0))
    do {
        try await body(app.http.server.shared.localAddress!.port!)
    } catch {
        try? await app.asyncShutdown()
        await server.shutdown()
        throw error
    }
    try await app.asyncShutdown()
    await server.shutdown()
}
