import ArgumentParser
import Foundation
import TernCore
import TernRuntime

/// Issue 35 in the CLI: discovery's progress on standard error (so `--json` stays clean), and what
/// was found in `--json`.
enum DiscoveryOutput {
    static let lookupOnlineHelp: ArgumentHelp = """
        When nothing else finds the settings, ask the public database at autoconfig.thunderbird.net \
        (or $TERN_ISPDB_URL); it learns the address's domain. Off unless given.
        """

    /// Runs discovery for `email`, saying each step on standard error.
    static func discover(_ email: String, lookupOnline: Bool, caFile: String?) async throws -> DiscoveredAccountSettings {
        let runtime = try services()
        let database = runtime.onlineSettingsDatabase
        let discoverSettings = runtime.discoverAccountSettings(caFile: caFile)
        do throws(DiscoveryError) {
            return try await discoverSettings(
                email: email, lookupOnline: lookupOnline,
                progress: { event in
                    if let text = line(event) { printProgress(text) }
                })
        } catch {
            throw CLIError.discoveryFailed(error, onlineDatabase: database)
        }
    }

    static func line(_ event: DiscoveryEvent) -> String? {
        switch event {
        case .lookingUp(let step): "Looking up settings: \(name(step))…"
        case .asking(_, let place): "  asking \(place)"
        case .failed(_, let failure): "  \(failure.message)"
        case .nothingFound: "  nothing found"
        case .skipped: nil
        case .found(let settings):
            "Settings found in \(settings.source.description): IMAP \(settings.imap.description), SMTP \(settings.smtp.description), user \(settings.username)"
        }
    }

    static func name(_ step: DiscoveryStep) -> String {
        switch step {
        case .providerTable: "Tern's provider table"
        case .autoconfig: "the domain's autoconfig"
        case .dns: "DNS (SRV and MX records)"
        case .onlineDatabase: "the online database"
        }
    }

    static func printProgress(_ line: String) {
        FileHandle.standardError.write(Data((TerminalText.line(line) + "\n").utf8))
    }

    /// The line printed when discovery found nothing: each step's reasons, and what to do.
    static func failureLine(_ error: DiscoveryError, onlineDatabase: String) -> String {
        switch error {
        case .invalidAddress: return error.message
        case .nothingFound(let steps, let askedOnline):
            // Each step's reasons were said as it ran; the line names the steps and what is left to do.
            let tried = DiscoveryStep.allCases.filter { steps[$0] != nil }.map(name)
            var line = "no settings found by \(tried.joined(separator: ", "))"
            if !askedOnline {
                line += "; --lookup-online also asks \(URL(string: onlineDatabase)?.host ?? onlineDatabase)"
            }
            return line + "; or give --imap HOST:PORT and --smtp HOST:PORT"
        }
    }
}

/// What `--json` shows of discovered settings.
struct DiscoverySummary: Encodable {
    var step: String
    var source: String
    /// The document's address for autoconfig and the online database; the records or MX host for DNS.
    var location: String?
    var providerName: String?
    var provider: String
    var imap: AccountSummary.Endpoint
    var smtp: AccountSummary.Endpoint
    var username: String
    var authentication: [String]

    init(_ settings: DiscoveredAccountSettings) {
        step = settings.source.step.rawValue
        source = settings.source.description
        switch settings.source {
        case .providerTable: location = nil
        case .autoconfig(let url), .onlineDatabase(let url): location = url
        case .srvRecords(let names): location = names.joined(separator: " ")
        case .mxHost(let host, _): location = host
        }
        providerName = settings.providerName
        provider = settings.provider.rawValue
        imap = AccountSummary.Endpoint(host: settings.imap.host, port: settings.imap.port, security: settings.imap.security.rawValue)
        smtp = AccountSummary.Endpoint(host: settings.smtp.host, port: settings.smtp.port, security: settings.smtp.security.rawValue)
        username = settings.username
        authentication = settings.authentication.map(\.rawValue)
    }
}

extension AccountCommand {
    /// `tern account discover ADDR`: what `account add` would find, without adding anything.
    struct Discover: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discover", abstract: "Find an address's IMAP and SMTP settings without adding an account.",
            discussion: """
                In this order, each step only when the earlier ones found nothing: Tern's provider table, the \
                domain's autoconfig document, DNS (SRV records, then the MX host), and with --lookup-online \
                the public database.
                """)

        @Argument(help: "The email address.")
        var email: String
        @Flag(name: .customLong("lookup-online"), help: DiscoveryOutput.lookupOnlineHelp)
        var lookupOnline = false
        @Option(name: .customLong("ca-file"), help: "A PEM file of an extra CA to trust for the domain's autoconfig server.")
        var caFile: String?
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let settings = try await DiscoveryOutput.discover(email, lookupOnline: lookupOnline, caFile: caFile)
            if output.json {
                try printJSON(DiscoverySummary(settings))
            } else {
                print("IMAP \(settings.imap.description), SMTP \(settings.smtp.description), user \(settings.username)")
            }
        }
    }
}
