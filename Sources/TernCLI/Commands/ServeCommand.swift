import ArgumentParser
import Foundation
import TernCore
import TernRuntime
import WebUI

/// `tern serve`: the web app on 127.0.0.1 (PLATFORM.md), with the sync engine in the same process.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the web app on 127.0.0.1 and print its address (with the secret token it needs).",
        discussion: """
            Open the printed address in a browser. On a terminal the address carries its sign-in token; elsewhere (a \
            service's journal) it does not, and 'tern serve --print-url' prints it for the running server. \
            TERN_SERVE_TOKEN fixes the token. Ctrl-C stops the server.
            """)

    @Option(help: "The port to listen on (127.0.0.1 only).")
    var port = WebServerConfiguration.defaultPort
    @Option(help: ArgumentHelp("The address to listen on. Only 127.0.0.1 is served: the app shows your mail.", visibility: .hidden))
    var host = "127.0.0.1"
    @Flag(help: "Don't sync: show what the store holds and push nothing to the servers.")
    var noSync = false
    @Flag(help: "Print the sign-in address (with its token) of the tern serve running for this TERN_HOME, and exit.")
    var printURL = false

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let addressFile = ServeAddressFile(home: TernHome.fromEnvironment(environment))
        if printURL {
            do {
                print(try addressFile.signInAddress())
                return
            } catch {
                throw CLIError.serverNotRunning
            }
        }
        let token: String?
        do {
            token = try WebServerConfiguration.token(from: environment)
        } catch {
            throw ValidationError("TERN_SERVE_TOKEN must be at least 16 letters, digits, '-' or '_'")
        }
        let configuration = WebServerConfiguration(
            host: host, port: port, token: token, runSync: !noSync,
            autosaveSeconds: WebServerConfiguration.autosaveSeconds(from: environment),
            sessionLifetime: .from(environment: environment))
        let server: TernWebServer
        let opened = try services(longRunning: true)
        do {
            server = try TernWebServer(services: opened, configuration: configuration)
        } catch WebServerError.notLoopback(let host) {
            throw ValidationError("tern serve listens on 127.0.0.1 only, not \(host): it shows your mail to whoever reaches it")
        }
        defer { addressFile.remove() }
        try await server.run {
            // issue 32: the token goes to a terminal only, never to a log or a journal.
            do { try addressFile.write(configuration) } catch {
                FileHandle.standardError.write(
                    Data(
                        "tern serve: couldn't write \(TernHome.fromEnvironment(environment).secretsURL.path)/serve.json; --print-url won't find this server\n"
                            .utf8))
            }
            if isatty(STDOUT_FILENO) == 1 {
                print("Tern is running at \(configuration.signInAddress)")
            } else {
                print("Tern is running at \(configuration.publicAddress) (sign in with the address 'tern serve --print-url' prints)")
            }
            fflush(nil)
            checkStoreIntegrityInBackground(opened) { addressFile.remove() }
        }
    }
}
