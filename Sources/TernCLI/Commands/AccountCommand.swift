import ArgumentParser
import Foundation
import TernCore
import TernRuntime

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Add, change, list and remove mail accounts.",
        subcommands: [Add.self, Discover.self, Change.self, Login.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add", abstract: "Add an account (generic IMAP/SMTP, or the Gmail preset).",
            discussion: """
                The password is never stored: Tern runs --password-command (its first output line is the \
                password) or reads --password-env each time it connects.
                Example: tern account add work --email me@example.org --imap imap.example.org:993 \
                --smtp smtp.example.org:465 --password-command 'pass show mail/work'
                Without --imap or --smtp the settings are looked up (issue 35): Tern's provider table, the \
                domain's autoconfig document, DNS (SRV, then MX), and with --lookup-online the public database. \
                Given flags win over what is found.
                """)

        @Argument(help: "A short name for the account, used on the command line.")
        var name: AccountName
        @Option(help: "The account's email address.")
        var email: String
        @Option(name: .customLong("display-name"), help: "The name shown on mail you send.")
        var displayName: String?
        @Option(name: .customLong("alias"), help: "Another address of this account (repeatable): Reply All leaves it out.")
        var aliases: [String] = []
        @Option(help: "IMAP server as HOST:PORT (implicit TLS unless --imap-starttls).")
        var imap: String?
        @Option(help: "SMTP server as HOST:PORT (implicit TLS unless --smtp-starttls).")
        var smtp: String?
        @Flag(name: .customLong("imap-starttls"), help: "Connect to IMAP in plain text and upgrade with STARTTLS.")
        var imapStartTLS = false
        @Flag(name: .customLong("smtp-starttls"), help: "Connect to SMTP in plain text and upgrade with STARTTLS.")
        var smtpStartTLS = false
        @Flag(
            name: .customLong("insecure-plaintext"),
            help: ArgumentHelp(
                "Connect to the given --imap and --smtp servers without any encryption.",
                discussion: "Your password and your mail then cross the network readable by anyone on the way."))
        var insecurePlaintext = false
        @Option(help: "Login name (default: the email address).")
        var user: String?
        @Option(name: .customLong("password-command"), help: "A shell command that prints the password.")
        var passwordCommand: String?
        @Option(name: .customLong("password-env"), help: "An environment variable that holds the password.")
        var passwordEnv: String?
        @Option(name: .customLong("ca-file"), help: "A PEM file of an extra CA to trust for this account's servers.")
        var caFile: String?
        @Option(
            name: .customLong("trust-certificate"),
            help: "Trust the server certificate with this fingerprint (SHA256:<hex>, repeatable), for the account's servers that present it.")
        var trustCertificates: [String] = []
        @Flag(help: "Use the Gmail preset (imap.gmail.com:993, smtp.gmail.com:465); signs in with OAuth 2.0 unless a password option is given.")
        var gmail = false
        @Flag(
            help:
                "Use the Microsoft preset (Outlook.com, Microsoft 365: outlook.office365.com:993, smtp.office365.com:587 STARTTLS); signs in with OAuth 2.0."
        )
        var microsoft = false
        @Flag(help: "Sign in with OAuth 2.0 in a browser (XOAUTH2) instead of a password.")
        var oauth = false
        @Option(
            name: .customLong("oauth-client-id"),
            help: "The OAuth client id (default: $TERN_OAUTH_CLIENT_ID, else the one stored for the provider in the web app's Settings).")
        var oauthClientID: String?
        @Option(name: .customLong("sync-window-days"), help: "How many days of history to sync (default: 90).")
        var syncWindowDays: Int?
        @Option(help: "Which bodies to download in the background: none, recent (the last 30 days, the default) or all (a complete offline copy).")
        var bodies: SyncCommand.BodiesChoice?
        @Option(name: .customLong("authserv-id"), help: Change.authservIdHelp)
        var authservId: String?
        @Flag(name: .customLong("lookup-online"), help: DiscoveryOutput.lookupOnlineHelp)
        var lookupOnline = false
        @OptionGroup var output: OutputOptions

        var usesOAuth: Bool { oauth || microsoft || (gmail && passwordCommand == nil && passwordEnv == nil) }

        func validate() throws {
            if passwordCommand != nil && passwordEnv != nil {
                throw ValidationError("give either --password-command or --password-env, not both")
            }
            if oauth && (passwordCommand != nil || passwordEnv != nil) {
                throw ValidationError("--oauth signs in without a password; drop --password-command/--password-env")
            }
            if microsoft && (passwordCommand != nil || passwordEnv != nil || gmail) {
                throw ValidationError("--microsoft signs in with OAuth only; drop --password-command/--password-env/--gmail")
            }
            if insecurePlaintext && (imap == nil || smtp == nil || imapStartTLS || smtpStartTLS) {
                throw ValidationError("--insecure-plaintext needs --imap and --smtp, and no --imap-starttls or --smtp-starttls")
            }
            for text in trustCertificates where CertificateFingerprint(text) == nil {
                throw ValidationError("'\(text)' is not a SHA-256 fingerprint: give SHA256: and 64 hex digits (colons allowed)")
            }
            if !usesOAuth && passwordCommand == nil && passwordEnv == nil {
                throw ValidationError(
                    "give --password-command CMD or --password-env VAR, or --oauth (for Gmail: --gmail alone signs in with OAuth)")
            }
        }

        func run() async throws {
            let plain: ConnectionSecurity? = insecurePlaintext ? .plaintext : nil
            let givenIMAP = try imap.map { try ServerEndpoint.parse($0, security: plain ?? (imapStartTLS ? .startTLS : .implicitTLS)) }
            let givenSMTP = try smtp.map { try ServerEndpoint.parse($0, security: plain ?? (smtpStartTLS ? .startTLS : .implicitTLS)) }
            if insecurePlaintext {
                FileHandle.standardError.write(Data("Warning: \(ConnectionSecurity.plaintextWarning)\n".utf8))
            }
            // Issue 35: what is not given is looked up; what is given wins.
            var discovered: DiscoveredAccountSettings?
            if !gmail && !microsoft && (givenIMAP == nil || givenSMTP == nil) {
                let found = try await DiscoveryOutput.discover(email, lookupOnline: lookupOnline, caFile: caFile)
                if found.needsOAuth && !usesOAuth {
                    DiscoveryOutput.printProgress("Note: these servers sign in with OAuth 2.0 only; a password may be refused (use --oauth).")
                }
                discovered = found
            }
            // Issue 35: Microsoft's servers refresh at Microsoft's token endpoint, whoever found them.
            let provider: MailProvider =
                microsoft || discovered?.provider == .microsoft ? .microsoft : (gmail || discovered?.provider == .gmail ? .gmail : .imap)
            let credential: CredentialSource
            if usesOAuth {
                credential = .oauth2(clientID: try await clientID(for: OAuthProvider(signingInTo: provider)))
            } else if let passwordCommand {
                credential = .passwordCommand(passwordCommand)
            } else {
                credential = .passwordEnvironment(passwordEnv ?? "")
            }
            var request = NewAccountRequest(
                name: name, emailAddress: email, displayName: displayName, imap: givenIMAP ?? discovered?.imap,
                smtp: givenSMTP ?? discovered?.smtp, username: user ?? discovered?.username, credential: credential, caFile: caFile,
                gmailPreset: gmail || discovered?.provider == .gmail, announceSignIn: SignInPrompt.announce)
            request.provider = provider
            request.syncWindowDays = syncWindowDays
            request.bodyHydration = bodies?.policy
            request.aliases = aliases
            if let imap = request.imap, let smtp = request.smtp {
                request.pinnedCertificates = try await services().trustCertificates.pins(
                    for: trustCertificates.compactMap(CertificateFingerprint.init), imap: imap, smtp: smtp, caFile: caFile)
            }
            var account = try await services().addAccount(request)
            if let authservId { account = try await services().accountSettings.setAuthservId(authservId, accountName: account.name) }
            if output.json {
                var summary = AccountSummary(account)
                summary.discovery = discovered.map(DiscoverySummary.init)
                try printJSON(summary)
            } else {
                print("Added account '\(account.name)' <\(account.emailAddress)>: IMAP \(account.imap.description), SMTP \(account.smtp.description)")
                if let discovered { print("Settings from \(discovered.source.description).") }
            }
        }

        /// The option, the environment, or the app registered for the provider in the web app's
        /// Settings (issue 35: stored once per provider).
        func clientID(for provider: OAuthProvider) async throws -> String {
            if let given = oauthClientID ?? ProcessInfo.processInfo.environment["TERN_OAUTH_CLIENT_ID"], !given.isEmpty { return given }
            if let stored = try await services().oauthClients.registration(for: provider) { return stored.clientID }
            throw ValidationError(
                "OAuth needs a client id: --oauth-client-id ID, TERN_OAUTH_CLIENT_ID, or the \(provider.displayName) client id in the web app's Settings"
            )
        }
    }

    struct Change: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set", abstract: "Change an account's settings.",
            discussion: """
                --authserv-id: a trusted sender's remote images load only when the account's provider \
                verified the sender (issue 32): Tern reads the Authentication-Results field the provider \
                adds to delivered mail, and only the one carrying this name. Gmail's (mx.google.com) is \
                known; for another provider, look at a received message's source: the name before the \
                first ';' of its top Authentication-Results line.
                Example: tern account set work --authserv-id mail.example.org
                """)

        static let authservIdHelp: ArgumentHelp =
            "The host name your provider writes in the Authentication-Results it adds (\"\" for the provider's known one)."

        @Argument(help: "The account's name.")
        var name: AccountName
        @Option(name: .customLong("authserv-id"), help: authservIdHelp)
        var authservId: String?
        @Option(name: .customLong("forget-certificate"), help: "Stop trusting the certificate pinned for this HOST:PORT.")
        var forgetCertificate: String?
        @OptionGroup var output: OutputOptions

        func validate() throws {
            if authservId == nil && forgetCertificate == nil {
                throw ValidationError("nothing to change: give --authserv-id or --forget-certificate")
            }
        }

        func run() async throws {
            var account: Account
            if let forgetCertificate {
                let place = try ServerEndpoint.parse(forgetCertificate, security: .implicitTLS)
                account = try await services().accountSettings.removePinnedCertificate(host: place.host, port: place.port, accountName: name)
                guard authservId != nil else {
                    if output.json {
                        try printJSON(AccountSummary(account))
                    } else {
                        print("'\(account.name)': the certificate of \(forgetCertificate) is no longer trusted.")
                    }
                    return
                }
            }
            account = try await services().accountSettings.setAuthservId(authservId, accountName: name)
            if output.json {
                try printJSON(AccountSummary(account))
            } else if let verifying = account.verifyingAuthservId {
                print("'\(account.name)': senders are verified by the Authentication-Results of \(verifying).")
            } else {
                print("'\(account.name)': no provider checks known; trusted senders' images load unverified.")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "list", abstract: "List accounts.")
        @OptionGroup var output: OutputOptions

        func run() async throws {
            let accounts = try await services().listAccounts()
            if output.json {
                try printJSON(accounts.map(AccountSummary.init))
                return
            }
            if accounts.isEmpty {
                print("No accounts. Add one with 'tern account add'.")
                return
            }
            let rows = accounts.map { account in
                [
                    account.name.rawValue, account.emailAddress, account.imap.description, account.smtp.description,
                    account.credential.kind, account.isActive ? "active" : "inactive"
                ]
            }
            print(TextTable(header: ["NAME", "EMAIL", "IMAP", "SMTP", "AUTH", "STATE"], rows: rows).rendered)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "remove", abstract: "Remove an account and everything Tern stored for it (mail, contacts, attachment files).")
        @Argument(help: "The account's name.")
        var name: AccountName

        func run() async throws {
            try await services().removeAccount(name: name)
            print("Removed account '\(name)' and its local data.")
        }
    }
}

/// What `tern account list --json` shows: everything but secrets (which Tern never has).
struct AccountSummary: Encodable {
    var id: AccountID
    var name: AccountName
    var email: String
    var aliases: [String]
    var displayName: String?
    var provider: String
    var imap: Endpoint
    var smtp: Endpoint
    var username: String
    var auth: String
    var credentialSource: String
    var caFile: String?
    /// Issue 35: certificates trusted by fingerprint, each for one server.
    var trustedCertificates: [TrustedCertificate]
    /// Issue 32: whose Authentication-Results verify senders (the setting, else the provider's); null: none known.
    var authservId: String?
    var isActive: Bool
    var createdDate: Date
    var lastSyncDate: Date?
    /// `account add`: the settings discovery found (issue 35); absent when the servers were given.
    var discovery: DiscoverySummary?

    struct Endpoint: Encodable {
        var host: String
        var port: Int
        var security: String
    }

    struct TrustedCertificate: Encodable {
        var host: String
        var port: Int
        var fingerprint: String
    }

    init(_ account: Account) {
        id = account.id
        name = account.name
        email = account.emailAddress
        aliases = account.aliases
        displayName = account.displayName
        provider = account.provider.rawValue
        imap = Endpoint(host: account.imap.host, port: account.imap.port, security: account.imap.security.rawValue)
        smtp = Endpoint(host: account.smtp.host, port: account.smtp.port, security: account.smtp.security.rawValue)
        username = account.username
        auth = account.credential.kind
        credentialSource = account.credential.reference
        caFile = account.caFile
        trustedCertificates = account.pinnedCertificates.map {
            TrustedCertificate(host: $0.host, port: $0.port, fingerprint: $0.fingerprint.description)
        }
        authservId = account.verifyingAuthservId
        isActive = account.isActive
        createdDate = account.createdDate
        lastSyncDate = account.lastSyncDate
    }
}

extension AccountCommand {
    /// `tern account login NAME`: OAuth sign-in again (after a refresh token was revoked).
    struct Login: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "login", abstract: "Sign in to an OAuth account again in a browser.")
        @Argument(help: "The account's name.")
        var name: AccountName

        func run() async throws {
            let account = try await services().signIn(accountName: name, announce: SignInPrompt.announce)
            print("Signed in to '\(account.name)' <\(account.emailAddress)>.")
        }
    }
}

/// Tells the user where to sign in. On stderr, so `--json` output stays clean; flushed at once,
/// because the command then waits for the browser.
enum SignInPrompt {
    @Sendable static func announce(_ url: URL) {
        FileHandle.standardError.write(Data("Open this address in a browser to sign in (waiting up to 5 minutes):\n\(url.absoluteString)\n".utf8))
    }
}
