import Foundation
import TernCore

/// What the "Add account" form holds, as typed (the password is never written back into a page).
struct AccountSetupFormValues: Sendable, Hashable {
    var name = ""
    var email = ""
    var lookupOnline = false
    var imapHost = ""
    var imapPort = ""
    var imapSecurity = ConnectionSecurity.implicitTLS.rawValue
    var smtpHost = ""
    var smtpPort = ""
    var smtpSecurity = ConnectionSecurity.implicitTLS.rawValue
    var username = ""
    var caFile = ""
    /// The person confirmed the warning about connecting without encryption.
    var plaintextConfirmed = false
    /// Certificates the person trusted on this screen ("Trust this certificate"), carried from one
    /// attempt to the next.
    var trustedCertificates: [PinnedCertificate] = []
    /// Issue 35: how the typed servers sign in: `password`, or an `OAuthProvider`'s raw value.
    var signIn = "password"

    var oauthProvider: OAuthProvider? { OAuthProvider(rawValue: signIn) }

    /// The servers found or used, written into "Edit server settings".
    mutating func fill(_ servers: AccountServerSettings) {
        imapHost = servers.imap.host
        imapPort = String(servers.imap.port)
        imapSecurity = servers.imap.security.rawValue
        smtpHost = servers.smtp.host
        smtpPort = String(servers.smtp.port)
        smtpSecurity = servers.smtp.security.rawValue
        username = servers.username
        signIn = servers.oauth?.rawValue ?? "password"
    }
}

/// A step's state on the screen.
enum SetupStepState: String, Sendable {
    case waiting, running, done, failed, skipped

    var words: String {
        switch self {
        case .waiting: "not started"
        case .running: "in progress…"
        case .done: "done"
        case .failed: "failed"
        case .skipped: "skipped: the settings you typed are used"
        }
    }
}

/// Issue 35: the "Add account" screen (with no account, in the mail page's main pane; from
/// Settings, a page of its own): name, address, password, the online database's consent (off by
/// default, naming its host), "Edit server settings" for typing the servers, and the steps the
/// setup goes through with each one's state, which `account.js` moves live as the server reports
/// them. Without script the form posts and the page comes back with the same steps and the error.
struct AccountSetupView: Sendable {
    var csrfToken: String
    /// The online database's host, named next to the consent.
    var onlineDatabaseHost: String
    var values = AccountSetupFormValues()
    var steps: [AccountSetupStep: SetupStepState] = [:]
    var error: String?
    /// Where the settings came from, said under the steps ("Found in the domain's autoconfig document …").
    var found: String?
    var openServerSettings = false
    /// 1 on a page of its own, 2 inside the mail page.
    var headingLevel = 1
    /// A server's certificate no trusted root vouches for, shown for the person to judge (issue 35).
    var certificate: ServerCertificate?
    /// Issue 35: providers whose client id is stored (their sign-in needs no field).
    var registeredProviders: Set<OAuthProvider> = []
    /// Issue 35: the provider's sign-in offered now (the servers take it and no password would do).
    var offeredSignIn: OAuthProvider?
    /// Issue 35: a browser sign-in that came back; the form continues the setup with it.
    var continuingSignIn: (state: String, provider: OAuthProvider)?

    static let stepNames: [AccountSetupStep: String] = [
        .lookingUp: "Looking up settings", .connecting: "Connecting to the incoming mail server", .signingIn: "Signing in",
        .checkingSending: "Checking sending", .saving: "Saving the account"
    ]

    func render() -> HTMLText {
        let heading: HTMLText =
            headingLevel == 1 ? "<h1 id=\"account-setup-title\">Add account</h1>" : "<h2 id=\"account-setup-title\">Add account</h2>"
        let started = !steps.isEmpty || error != nil
        var stepItems = HTMLText()
        for step in AccountSetupStep.allCases {
            let state = steps[step] ?? .waiting
            stepItems += """
                <li data-step="\(step.rawValue)" data-state="\(state.rawValue)"><span class="step-name">\(Self.stepNames[step] ?? step.rawValue)</span>: \
                <span class="step-state">\(state.words)</span> <span class="step-detail"></span></li>
                """
        }
        var trusted = HTMLText()
        for pin in values.trustedCertificates {
            trusted += "<input type=\"hidden\" name=\"trusted-certificate\" value=\"\(CertificateJudgementView.fieldValue(pin))\">"
        }
        let consentHint = "If nothing else finds your settings, Tern asks \(onlineDatabaseHost), which then learns your address's domain."
        var signIns = HTMLText()
        for provider in OAuthProvider.allCases {
            signIns += OAuthSignInView(
                provider: provider, registered: registeredProviders.contains(provider), shown: offeredSignIn == provider,
                headingLevel: headingLevel + 1
            ).render()
        }
        var continuing = HTMLText()
        if let continuingSignIn {
            continuing = """
                <input type="hidden" name="oauth-state" value="\(continuingSignIn.state)">\
                <p class="notice" role="status">Signed in with \(continuingSignIn.provider.displayName). Continue to check the servers and add the account.</p>
                """
        }
        return """
            <section class="account-setup" aria-labelledby="account-setup-title">\(html: heading)
            <p>Tern finds your mail servers from your address, then checks that it can read and send your mail.</p>
            <form method="post" action="accounts/new" id="account-setup" class="settings-form"\(html: continuingSignIn == nil ? "" : " data-autostart")>
            <input type="hidden" name="csrf" value="\(csrfToken)">\(html: trusted)\(html: continuing)
            <p><label for="account-name">Account name</label> <input id="account-name" name="name" type="text" required maxlength="64" \
            value="\(values.name)" autocomplete="off" spellcheck="false" aria-describedby="account-name-hint"></p>
            <p id="account-name-hint" class="hint">A short name such as work or home: letters, digits, "-", "_" or ".".</p>
            <p><label for="account-email">Email address</label> <input id="account-email" name="email" type="email" required \
            value="\(values.email)" autocomplete="email" spellcheck="false"></p>
            <p><label for="account-password">Password</label> <input id="account-password" name="password" type="password" \
            autocomplete="current-password" aria-describedby="account-password-hint"></p>
            <p id="account-password-hint" class="hint">For Google and Microsoft accounts, leave it empty and sign in with them instead.</p>
            \(html: signIns)
            <p><input id="account-lookup-online" name="lookup-online" type="checkbox" value="yes"\(html: values.lookupOnline ? " checked" : "") \
            aria-describedby="account-lookup-online-hint"> <label for="account-lookup-online">Also ask the online database at \(onlineDatabaseHost)</label></p>
            <p id="account-lookup-online-hint" class="hint">\(consentHint)</p>
            <details id="server-settings"\(html: openServerSettings ? " open" : "")><summary>Edit server settings</summary>
            <p class="hint">Filled in, these servers are used as they are and nothing is looked up.</p>
            \(html: serverFields(role: "imap", legend: "Incoming mail (IMAP)", host: values.imapHost, port: values.imapPort, security: values.imapSecurity))
            \(html: serverFields(role: "smtp", legend: "Outgoing mail (SMTP)", host: values.smtpHost, port: values.smtpPort, security: values.smtpSecurity))
            <p><label for="account-username">User name</label> <input id="account-username" name="username" type="text" \
            value="\(values.username)" autocomplete="username" spellcheck="false" aria-describedby="account-username-hint"></p>
            <p id="account-username-hint" class="hint">Empty: your email address.</p>
            \(html: signInChoice)
            <p><label for="account-ca-file">Extra certificate authority (PEM file)</label> <input id="account-ca-file" name="ca-file" type="text" \
            value="\(values.caFile)" autocomplete="off" spellcheck="false" aria-describedby="account-ca-file-hint"></p>
            <p><input id="account-insecure-plaintext" name="insecure-plaintext" type="checkbox" value="yes"\(html: values.plaintextConfirmed ? " checked" : "") \
            aria-describedby="account-insecure-plaintext-warning"> <label for="account-insecure-plaintext">Allow "No encryption"</label></p>
            <p id="account-insecure-plaintext-warning" class="notice notice-warning">\(ConnectionSecurity.plaintextWarning)</p>
            <p id="account-ca-file-hint" class="hint">Only for a server whose certificate a private authority signed: the path of that authority's certificate on this computer.</p>
            </details>
            <p><button type="submit" class="button primary">Continue</button></p>
            </form>
            <div class="setup-progress" id="setup-progress"\(html: started ? "" : " hidden")>
            <h\(String(headingLevel + 1)) id="setup-steps-title">What Tern is doing</h\(String(headingLevel + 1))>
            <ol class="setup-steps" id="setup-steps" aria-labelledby="setup-steps-title" aria-live="polite">\(html: stepItems)</ol>
            <p id="setup-found" class="hint">\(found ?? "")</p>
            <p id="setup-error" class="notice notice-warning" role="alert"\(html: error == nil ? " hidden" : "")>\(error ?? "")</p>
            \(html: CertificateJudgementView(certificate: certificate, headingLevel: headingLevel + 1).render())
            </div>
            </section>
            """
    }

    /// Issue 35: how typed servers sign in (what discovery found is written here too).
    private var signInChoice: HTMLText {
        var options = HTMLText()
        for (value, label) in [("password", "Password")] + OAuthProvider.allCases.map({ ($0.rawValue, "\($0.displayName) sign-in (OAuth)") }) {
            options += "<option value=\"\(value)\"\(html: value == values.signIn ? " selected" : "")>\(label)</option>"
        }
        return """
            <p><label for="account-sign-in">Sign in with</label> <select id="account-sign-in" name="sign-in">\(html: options)</select></p>
            """
    }

    // Issue 35: "No encryption" is offered last and used only with the warning's checkbox ticked. A
    // server whose certificate the person may judge is offered below the steps (`CertificateJudgementView`).
    private func serverFields(role: String, legend: String, host: String, port: String, security: String) -> HTMLText {
        var options = HTMLText()
        for (value, label) in [
            (ConnectionSecurity.implicitTLS.rawValue, "SSL/TLS"), (ConnectionSecurity.startTLS.rawValue, "STARTTLS"),
            (ConnectionSecurity.plaintext.rawValue, "No encryption")
        ] {
            options += "<option value=\"\(value)\"\(html: value == security ? " selected" : "")>\(label)</option>"
        }
        return """
            <fieldset><legend>\(legend)</legend>
            <p><label for="account-\(role)-host">Server</label> <input id="account-\(role)-host" name="\(role)-host" type="text" value="\(host)" \
            autocomplete="off" spellcheck="false"></p>
            <p><label for="account-\(role)-port">Port</label> <input id="account-\(role)-port" name="\(role)-port" type="text" inputmode="numeric" \
            value="\(port)" autocomplete="off"></p>
            <p><label for="account-\(role)-security">Security</label> <select id="account-\(role)-security" name="\(role)-security">\(html: options)</select></p>
            </fieldset>
            """
    }

    /// The page of its own (Settings → Accounts → Add account).
    static func page(_ view: AccountSetupView, head: HTMLText) -> HTMLText {
        """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        \(html: head)<title>Add account — Tern</title><link rel="stylesheet" href="/assets/app.css">\
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml"><script type="module" src="/assets/account.js"></script></head>
        <body class="plain-page"><header class="app-header"><a class="brand" href="mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a>\
        <nav class="app-links" aria-label="App"><a href="mail">Back to mail</a> <a href="settings">Settings</a></nav></header>
        <main class="settings">\(html: view.render())</main></body></html>
        """
    }
}

/// How the web app words a setup's failure (the core's errors are typed; the words are this front end's).
enum AccountSetupWording {
    static func failure(_ failure: AccountSetupFailure, servers: AccountServerSettings?, onlineDatabaseHost: String) -> String {
        let imap = servers.map { "\($0.imap.host):\($0.imap.port)" } ?? "the incoming mail server"
        let smtp = servers.map { "\($0.smtp.host):\($0.smtp.port)" } ?? "the outgoing mail server"
        switch failure {
        case .invalid(let error):
            switch error {
            case .alreadyExists: return "There is already an account with this name. Choose another name."
            case .serverMissing(let role):
                return "Give the \(role.rawValue) server under Edit server settings, or leave both servers empty to look them up."
            case .invalidInput(let text): return "Check the form: \(text)."
            default: return WebErrorText.describe(error)
            }
        case .noSettings(.invalidAddress): return "That is not an email address."
        case .noSettings(.nothingFound(_, let askedOnline)):
            return askedOnline
                ? "No settings were found for this address. Enter your servers under Edit server settings."
                : "No settings were found for this address. Enter your servers under Edit server settings, or allow asking \(onlineDatabaseHost)."
        case .step(.connecting, .tlsRefused(let text)):
            return "\(imap) did not offer a secure connection Tern accepts (\(text)). Nothing was sent to it."
        case .step(.connecting, let error): return "Couldn't connect to \(imap): \(detail(error))."
        case .step(.signingIn, .authenticationRefused): return "\(imap) refused the user name or password. Check them and try again."
        case .step(.signingIn, let error): return "Couldn't sign in to \(imap): \(detail(error))."
        case .step(.checkingSending, .authenticationRefused): return "\(smtp) refused the user name or password for sending."
        case .step(.checkingSending, .tlsRefused(let text)):
            return "\(smtp) did not offer a secure connection Tern accepts (\(text)). Nothing was sent to it."
        case .step(.checkingSending, let error): return "Couldn't check sending with \(smtp): \(detail(error))."
        case .step(.lookingUp, let error), .step(.saving, let error): return "Couldn't save the account: \(detail(error))."
        case .signInWithProvider(let provider, _):
            return "These servers sign in with \(provider.displayName). Use Sign in with \(provider.displayName) below."
        case .untrustedCertificate(_, let certificate):
            return "The certificate of \(certificate.host):\(certificate.port) is not signed by an authority this computer trusts. "
                + "Nothing was sent to it. Check the certificate below before you trust it."
        }
    }

    static func detail(_ error: TernError) -> String {
        switch error {
        case .connectionLost(let text), .serverFailure(let text), .tlsRefused(let text), .authenticationRefused(let text),
            .storageUnavailable(let text), .secretUnavailable(let text), .invalidInput(let text):
            text
        default: error.message
        }
    }

    /// One line under "Looking up settings" for a discovery event; nil for what is not shown.
    static func discovery(_ event: DiscoveryEvent) -> String? {
        switch event {
        case .lookingUp(let step): "Looking in \(place(step))…"
        case .asking(_, let place): "Asking \(place)"
        case .failed(_, let failure): failure.message
        case .nothingFound(let step, _): "Nothing found in \(place(step))."
        case .skipped: nil
        case .found(let settings): "Found in \(settings.source.description)."
        }
    }

    static func place(_ step: DiscoveryStep) -> String {
        switch step {
        case .providerTable: "Tern's list of providers"
        case .autoconfig: "your domain's settings document"
        case .dns: "DNS"
        case .onlineDatabase: "the online database"
        }
    }
}

/// Settings → Accounts: each account with its sync state and Remove, the certificates trusted for
/// it with "Stop trusting", and Add account (issue 35).
struct AccountSettingsSection: Sendable {
    var rows: [(account: Account, status: HTMLText)]
    var csrfToken = ""

    func render() -> HTMLText {
        var items = HTMLText()
        for (account, status) in rows {
            let remove = MailLocation.url(path: "accounts/remove", items: [URLQueryItem(name: "account", value: account.name.rawValue)])
            items += """
                <li><strong>\(account.name)</strong> \(account.emailAddress) \(html: status) \
                <a class="button" href="\(remove)" aria-label="Remove account \(account.name)">Remove…</a>\(html: pins(of: account))</li>
                """
        }
        return """
            <section aria-labelledby="accounts-title"><h2 id="accounts-title">Accounts</h2><ul class="plain-list">\(html: items)</ul>
            <p><a class="button" href="accounts/new">Add account</a></p></section>
            """
    }
}

extension AccountSettingsSection {
    /// The certificates trusted by fingerprint for the account's servers, each with its removal.
    func pins(of account: Account) -> HTMLText {
        guard !account.pinnedCertificates.isEmpty else { return "" }
        var items = HTMLText()
        for pin in account.pinnedCertificates {
            let place = "\(pin.host):\(pin.port)"
            items += """
                <li>\(place): <span class="fingerprint">\(pin.fingerprint.description)</span> \
                <form method="post" action="accounts/forget-certificate" class="inline-form"><input type="hidden" name="csrf" value="\(csrfToken)">\
                <input type="hidden" name="account" value="\(account.name)"><input type="hidden" name="host" value="\(pin.host)">\
                <input type="hidden" name="port" value="\(String(pin.port))">\
                <button type="submit" class="button" aria-label="Stop trusting the certificate of \(place) for \(account.name)">Stop trusting</button></form></li>
                """
        }
        return "<p>Certificates trusted by their fingerprint:</p><ul class=\"plain-list\">\(html: items)</ul>"
    }
}

/// What removing an account deletes from this computer, said before it is done.
struct AccountRemovalView: Sendable {
    var account: Account
    var messages: Int
    var folders: Int
    var drafts: Int
    var queued: Int
    var csrfToken: String
    var error: String?

    func render(head: HTMLText) -> HTMLText {
        let queuedItem: HTMLText =
            queued > 0
            ? "<li>\(String(queued)) \(queued == 1 ? "message" : "messages") waiting to be sent, which will never be sent</li>"
            : ""
        let queuedConfirm: HTMLText =
            queued > 0
            ? """
            <p class="notice notice-warning" role="note">\(String(queued)) \(queued == 1 ? "message is" : "messages are") still waiting to be sent from this account.</p>
            <p><input id="remove-discard-queued" name="discard-queued" type="checkbox" value="yes" required> \
            <label for="remove-discard-queued">Discard the mail waiting to be sent</label></p>
            """
            : ""
        let errorLine: HTMLText = error.map { "<p class=\"notice notice-warning\" role=\"alert\">\($0)</p>" } ?? ""
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: head)<title>Remove account \(account.name) — Tern</title><link rel="stylesheet" href="/assets/app.css">\
            <link rel="icon" href="/assets/icon.svg" type="image/svg+xml"></head>
            <body class="plain-page"><header class="app-header"><a class="brand" href="mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a>\
            <nav class="app-links" aria-label="App"><a href="settings">Back to settings</a></nav></header>
            <main class="settings"><h1>Remove account \(account.name)?</h1>\(html: errorLine)
            <p>This deletes from this computer everything Tern keeps for \(account.emailAddress):</p>
            <ul>
            <li>\(String(messages)) stored \(messages == 1 ? "message" : "messages") in \(String(folders)) \(folders == 1 ? "folder" : "folders"), \
            with their search entries and downloaded attachments</li>
            <li>\(String(drafts)) \(drafts == 1 ? "draft" : "drafts") and their attached files</li>
            \(html: queuedItem)
            <li>the saved password or sign-in</li>
            </ul>
            <p>The mail on the server is not changed. Other accounts are not affected.</p>
            <form method="post" action="accounts/remove" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">\
            <input type="hidden" name="account" value="\(account.name)">
            \(html: queuedConfirm)
            <p><button type="submit" class="button danger">Remove account \(account.name)</button> <a class="button" href="settings">Cancel</a></p>
            </form></main></body></html>
            """
    }
}
