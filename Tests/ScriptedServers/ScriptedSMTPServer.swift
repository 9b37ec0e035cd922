import Foundation

/// A submission server that answers each command line with what `script` returns
/// (`ScriptedLineServer`); the content after a 354 is taken whole and answered as the command ".".
public final class ScriptedSMTPServer: Sendable {
    /// An answer that closes the connection instead.
    public static let close = "\u{0}close"
    let lineServer: ScriptedLineServer
    private let received: Locked<[String]>

    /// The commands received; those that came over TLS started by STARTTLS marked "TLS: ".
    public var commands: [String] { received.withLock { $0 } }
    public var commandsOverTLS: [String] { commands.filter { $0.hasPrefix("TLS: ") } }

    public var port: Int { lineServer.port }

    /// `silentSTARTTLS`: STARTTLS is not answered; the server starts TLS at once (what an on-path
    /// attacker who forged the answer in an earlier packet lets through).
    public static func start(
        tls: Bool, greeting: String = "220 scripted ESMTP\r\n", silentSTARTTLS: Bool = false,
        script: @escaping @Sendable (_ command: String) -> String
    ) async throws -> ScriptedSMTPServer {
        let log = Locked<[String]>([])
        let inContent = Locked(false)
        let lineServer = try await ScriptedLineServer.start(tls: tls, greeting: greeting) { line, overTLS in
            let skipped = inContent.withLock { inside in
                defer { if line == "." { inside = false } }
                return inside && line != "."
            }
            if skipped { return .write("") }
            log.withLock { $0.append(overTLS && !tls ? "TLS: " + line : line) }
            if silentSTARTTLS, !overTLS, line.uppercased() == "STARTTLS" { return .startTLS }
            let answer = script(line)
            if answer == close { return .close }
            if answer.hasPrefix("354") { inContent.withLock { $0 = true } }
            return .write(answer)
        }
        return ScriptedSMTPServer(lineServer: lineServer, log: log)
    }

    private init(lineServer: ScriptedLineServer, log: Locked<[String]>) {
        self.lineServer = lineServer
        self.received = log
    }

    public func stop() { lineServer.stop() }
}
