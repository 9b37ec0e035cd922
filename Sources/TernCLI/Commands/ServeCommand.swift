import ArgumentParser
import Foundation
import TernRuntime
import WebUI

/// `tern serve`: the web app on 127.0.0.1 (PLATFORM.md), with the sync engine in the same process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the web app on 127.0.0.1 and print its address (with the secret token it needs).",
        discussion: "Open the printed address in a browser. TERN_SERVE_TOKEN fixes the token. Ctrl-C stops the server.")

    @Option(help: "The port to listen on (127.0.0.1 only).")
    var port = WebServerConfiguration.defaultPort
    @Option(help: ArgumentHelp("The address to listen on. Only 127.0.0.1 is served: the app shows your mail.", visibility: .hidden))
    var host = "127.0.0.1"
    @Flag(help: "Don't sync: show what the store holds and push nothing to the servers.")
    var noSync = false

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        let token: String?
        do {
            token = try WebServerConfiguration.token(from: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError("TERN_SERVE_TOKEN must be at least 16 letters, digits, '-' or '_'")
        }
        let configuration = WebServerConfiguration(host: host, port: port, token: token, runSync: !noSync,
                                                   autosaveSeconds: WebServerConfiguration.autosaveSeconds(from: ProcessInfo.processInfo.environment))
        let server: TernWebServer
        do {
            server = try TernWebServer(services: try services(longRunning: true), configuration: configuration)
        } catch WebServerError.notLoopback(let host) {
            throw ValidationError("tern serve listens on 127.0.0.1 only, not \(host): it shows your mail to whoever reaches it")
        }
        try await server.run { address in
            print("Tern is running at \(address)")
            fflush(nil)
        }
    }
}
