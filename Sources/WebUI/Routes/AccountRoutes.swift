import Foundation
import Hummingbird
import NIOCore
import Synchronization
import TernCore
import TernRuntime

/// Issue 35: adding an account (`accounts/new`) and removing one (`accounts/remove`). Adding runs
/// the core's `SetUpAccountUseCase`; the page's script asks for its steps as they happen
/// (`Accept: application/x-ndjson`: one JSON object a line, on the same request, so nothing polls),
/// and a form without script gets the page back with the steps and the error, or the mail.
struct AccountRoutes: Sendable {
    let services: TernServices
    let page: PageSecrets
    /// Issue 35: browser sign-ins started here (`OAuthRoutes`).
    let signIns: PendingOAuthSignIns
    static let streamType = "application/x-ndjson"

    var onlineDatabaseHost: String {
        let base = services.onlineSettingsDatabase
        return URL(string: base)?.host ?? base
    }

    func register(on router: Router<BasicRequestContext>) {
        router.get("accounts/new") { _, _ in
            WebResponse.html(AccountSetupView.page(await setupView(), head: page.head))
        }
        router.post("accounts/new") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            let values = Self.values(form)
            let streaming = request.headers[.accept]?.contains(Self.streamType) == true
            var setup: AccountSetupRequest
            do {
                setup = try Self.request(form, values: values)
                if let state = form["oauth-state"], !state.isEmpty { setup.oauth = try await signedIn(state: state) }
            } catch {
                let text =
                    (error as? OAuthSignInFailure)?.text
                    ?? AccountSetupWording.failure(.invalid(Self.ternError(error)), servers: nil, onlineDatabaseHost: onlineDatabaseHost)
                if streaming { return Self.stream([SetupLine.failed(step: nil, text: text)]) }
                var view = await setupView(values)
                view.error = text
                view.offeredSignIn = values.oauthProvider
                return WebResponse.html(AccountSetupView.page(view, head: page.head), status: .badRequest)
            }
            if streaming { return streamSetup(setup) }
            return await completeSetup(setup, values: values)
        }
        router.post("accounts/forget-certificate") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            guard let port = Int(form["port"] ?? "") else { throw HTTPError(.badRequest, message: "No port.") }
            _ = try await services.accountSettings.removePinnedCertificate(
                host: form["host"] ?? "", port: port, accountName: AccountName(form["account"] ?? ""))
            return WebResponse.redirect(to: "/settings?certificate-forgotten=1#accounts-title")
        }
        router.get("accounts/remove") { request, _ in
            let name = AccountName(FormFields(request.uri.query ?? "")["account"] ?? "")
            return WebResponse.html(try await removal(name, error: nil).render(head: page.head))
        }
        router.post("accounts/remove") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            let name = AccountName(form["account"] ?? "")
            let view = try await removal(name, error: nil)
            if view.queued > 0 && form["discard-queued"] != "yes" {
                var asked = view
                asked.error = "Confirm that the mail waiting to be sent is discarded, or cancel."
                return WebResponse.html(asked.render(head: page.head), status: .conflict)
            }
            try await services.removeAccount(name: name)
            return WebResponse.redirect(to: "/settings?removed=1#accounts-title")
        }
    }

    func setupView(_ values: AccountSetupFormValues = AccountSetupFormValues(), headingLevel: Int = 1) async -> AccountSetupView {
        var view = AccountSetupView(
            csrfToken: page.csrfToken, onlineDatabaseHost: onlineDatabaseHost, values: values,
            openServerSettings: !values.imapHost.isEmpty || !values.caFile.isEmpty, headingLevel: headingLevel)
        view.registeredProviders = Set(((try? await services.oauthClients.registrations()) ?? []).map(\.provider))
        return view
    }

    /// What the confirmation names: the account's stored mail, drafts and queued mail.
    func removal(_ name: AccountName, error: String?) async throws -> AccountRemovalView {
        guard let account = try await services.listAccounts().first(where: { $0.name == name }) else {
            throw HTTPError(.notFound, message: "There is no account named \(name).")
        }
        let folders = try await services.browse.folders(account: account.name)
        let waiting = try await services.accountStatus().first { $0.account == account.name }?.waiting
        return AccountRemovalView(
            account: account, messages: folders.reduce(0) { $0 + $1.messageCount }, folders: folders.count, drafts: waiting?.drafts ?? 0,
            queued: (waiting?.queue ?? 0) + (waiting?.failedQueue ?? 0), csrfToken: page.csrfToken, error: error)
    }

    /// The steps as lines of JSON while they run; the last line says where to go, or what failed.
    func streamSetup(_ setup: AccountSetupRequest) -> Response {
        let onlineHost = onlineDatabaseHost
        let setUpAccount = services.setUpAccount
        var response = Response(
            status: .ok, headers: [.contentType: "\(Self.streamType); charset=utf-8"],
            body: .init { writer in
                let (lines, sink) = AsyncStream<String>.makeStream()
                // The setup finishes even when the page goes away: it either keeps a whole account or nothing.
                Task {
                    if setup.servers != nil { sink.yield(SetupLine.step(.lookingUp, .skipped).text) }
                    let seen = SetupSeen()
                    do throws(AccountSetupFailure) {
                        _ = try await setUpAccount(setup) { event in
                            seen.observe(event)
                            for line in SetupLine.lines(for: event) { sink.yield(line.text) }
                        }
                        sink.yield(SetupLine.done(location: "mail").text)
                    } catch {
                        let text = AccountSetupWording.failure(error, servers: seen.servers, onlineDatabaseHost: onlineHost)
                        if case .signInWithProvider(let provider, _) = error {
                            // Not a failure: the next step is the provider's page.
                            sink.yield(SetupLine.signIn(provider, text: text).text)
                        } else {
                            sink.yield(SetupLine.step(error.step ?? .lookingUp, .failed).text)
                            sink.yield(SetupLine.failed(step: error.step, text: text).text)
                        }
                        if case .untrustedCertificate(_, let certificate) = error { sink.yield(SetupLine.certificate(certificate).text) }
                    }
                    sink.finish()
                }
                for await line in lines { try await writer.write(ByteBuffer(string: line)) }
                try await writer.finish(nil)
            })
        response.headers[.cacheControl] = "no-store"
        return response
    }

    static func stream(_ lines: [SetupLine]) -> Response {
        Response(
            status: .ok, headers: [.contentType: "\(streamType); charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: lines.map(\.text).joined())))
    }

    /// Without script: the whole setup, then the mail, or this page with each step's state and the error.
    func completeSetup(_ setup: AccountSetupRequest, values: AccountSetupFormValues) async -> Response {
        let seen = SetupSeen()
        if setup.servers != nil { seen.mark(.lookingUp, .skipped) }
        do throws(AccountSetupFailure) {
            _ = try await services.setUpAccount(setup) { event in seen.observe(event) }
            return WebResponse.redirect(to: "/mail")
        } catch {
            if let step = error.step { seen.mark(step, .failed) }
            var view = await setupView(values)
            if case .signInWithProvider(let provider, _) = error {
                seen.mark(.signingIn, .waiting)
                view.offeredSignIn = provider
            }
            if let servers = seen.servers { view.values.fill(servers) }
            view.steps = seen.steps
            view.found = seen.found
            view.openServerSettings = view.openServerSettings || seen.servers != nil || error.step == .lookingUp
            view.error = AccountSetupWording.failure(error, servers: seen.servers, onlineDatabaseHost: onlineDatabaseHost)
            if case .untrustedCertificate(_, let certificate) = error { view.certificate = certificate }
            return WebResponse.html(AccountSetupView.page(view, head: page.head), status: .unprocessableContent)
        }
    }

    static func values(_ form: FormFields) -> AccountSetupFormValues {
        func field(_ name: String) -> String { (form[name] ?? "").trimmingCharacters(in: .whitespaces) }
        var values = AccountSetupFormValues()
        values.name = field("name")
        values.email = field("email")
        values.lookupOnline = form["lookup-online"] == "yes"
        values.imapHost = field("imap-host")
        values.imapPort = field("imap-port")
        values.imapSecurity = field("imap-security")
        values.smtpHost = field("smtp-host")
        values.smtpPort = field("smtp-port")
        values.smtpSecurity = field("smtp-security")
        values.username = field("username")
        values.caFile = field("ca-file")
        values.plaintextConfirmed = form["insecure-plaintext"] == "yes"
        values.trustedCertificates = form.all("trusted-certificate").compactMap(CertificateJudgementView.pin(fieldValue:))
        if let signIn = form["sign-in"], OAuthProvider(rawValue: signIn) != nil { values.signIn = signIn }
        return values
    }

    /// The form as the use case takes it. Servers are typed when either host is; a port left empty
    /// is the usual one for the security chosen.
    static func request(_ form: FormFields, values: AccountSetupFormValues) throws -> AccountSetupRequest {
        var servers: AccountServerSettings?
        if !values.imapHost.isEmpty || !values.smtpHost.isEmpty {
            guard !values.imapHost.isEmpty else { throw TernError.serverMissing(.imap) }
            guard !values.smtpHost.isEmpty else { throw TernError.serverMissing(.smtp) }
            let imap = try endpoint(host: values.imapHost, port: values.imapPort, security: values.imapSecurity, role: .imap)
            let smtp = try endpoint(host: values.smtpHost, port: values.smtpPort, security: values.smtpSecurity, role: .smtp)
            // Issue 35: no encryption only once the person confirmed the warning next to the choice.
            if (imap.security == .plaintext || smtp.security == .plaintext) && !values.plaintextConfirmed {
                throw TernError.invalidInput("to connect without encryption, confirm the warning under Edit server settings")
            }
            // Issue 35: typed servers that sign in with a provider are that provider's kind of account.
            let oauth = values.oauthProvider
            servers = AccountServerSettings(
                imap: imap, smtp: smtp, username: values.username, provider: oauth?.mailProvider ?? .imap, oauth: oauth,
                passwordAccepted: oauth != .microsoft)
        }
        var request = AccountSetupRequest(
            name: AccountName(values.name), emailAddress: values.email, password: form["password"] ?? "", lookupOnline: values.lookupOnline,
            servers: servers, caFile: values.caFile.isEmpty ? nil : values.caFile)
        request.trustedCertificates = values.trustedCertificates
        // Issue 35: an empty password lets the setup find out whether the servers take a provider's sign-in.
        request.passwordOptional = true
        return request
    }

    static func endpoint(host: String, port: String, security: String, role: ServerRole) throws -> ServerEndpoint {
        let mode = ConnectionSecurity(rawValue: security) ?? .implicitTLS
        let usual =
            switch (role, mode) {
            case (.imap, .implicitTLS): 993
            case (.imap, .startTLS): 143
            case (.smtp, .implicitTLS): 465
            case (.smtp, .startTLS): 587
            case (.imap, .plaintext): 143
            case (.smtp, .plaintext): 587
            }
        guard let number = port.isEmpty ? usual : Int(port), (1...65535).contains(number) else {
            throw TernError.invalidInput("the \(role.rawValue) port must be a number from 1 to 65535")
        }
        guard host.allSatisfy({ !$0.isWhitespace && $0 != "/" }) else { throw TernError.invalidInput("'\(host)' is not a server name") }
        return ServerEndpoint(host: host, port: number, security: mode)
    }

    static func ternError(_ error: any Error) -> TernError { (error as? TernError) ?? .invalidInput(String(describing: error)) }
}

/// One line of the setup's stream, as `account.js` reads it.
struct SetupLine: Sendable {
    var fields: [String: String]

    var text: String {
        let json = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return json + "\n"
    }

    static func step(_ step: AccountSetupStep, _ state: SetupStepState) -> SetupLine {
        SetupLine(fields: ["type": "step", "step": step.rawValue, "state": state.rawValue, "text": state.words])
    }

    static func failed(step: AccountSetupStep?, text: String) -> SetupLine {
        SetupLine(fields: ["type": "failed", "step": step?.rawValue ?? "", "text": text])
    }

    /// A certificate to judge (`CertificateJudgementView` on the page).
    static func certificate(_ certificate: ServerCertificate) -> SetupLine {
        SetupLine(fields: [
            "type": "certificate", "place": "\(certificate.host):\(certificate.port)", "subject": certificate.subject,
            "issuer": certificate.issuer, "not-before": CertificateJudgementView.date(certificate.notValidBefore),
            "not-after": CertificateJudgementView.date(certificate.notValidAfter), "fingerprint": certificate.fingerprint.description,
            "value": CertificateJudgementView.fieldValue(certificate.pin)
        ])
    }

    /// Issue 35: the servers take this provider's sign-in; the page shows its section.
    static func signIn(_ provider: OAuthProvider, text: String) -> SetupLine {
        SetupLine(fields: ["type": "sign-in", "provider": provider.rawValue, "text": text])
    }

    static func done(location: String) -> SetupLine {
        SetupLine(fields: ["type": "done", "location": location, "text": "Account added. Opening your Inbox…"])
    }

    static func lines(for event: AccountSetupEvent) -> [SetupLine] {
        switch event {
        case .started(let step): [.step(step, .running)]
        case .finished(let step): [.step(step, .done)]
        case .discovery(let discovery):
            AccountSetupWording.discovery(discovery).map {
                [SetupLine(fields: ["type": "detail", "step": AccountSetupStep.lookingUp.rawValue, "text": $0])]
            }
                ?? []
        case .servers(let servers):
            [
                SetupLine(fields: [
                    "type": "servers", "imap-host": servers.imap.host, "imap-port": String(servers.imap.port),
                    "imap-security": servers.imap.security.rawValue, "smtp-host": servers.smtp.host, "smtp-port": String(servers.smtp.port),
                    "smtp-security": servers.smtp.security.rawValue, "username": servers.username,
                    "sign-in": servers.oauth?.rawValue ?? "password",
                    "text": servers.source.map { "Settings from \($0.description)." } ?? "Using the settings you typed."
                ])
            ]
        }
    }
}

/// What a setup went through: the page without script draws it, and a failure's words name its servers.
final class SetupSeen: Sendable {
    private struct State {
        var steps: [AccountSetupStep: SetupStepState] = [:]
        var servers: AccountServerSettings?
    }

    private let state = Mutex(State())

    func observe(_ event: AccountSetupEvent) {
        switch event {
        case .started(let step): mark(step, .running)
        case .finished(let step): mark(step, .done)
        case .servers(let servers): state.withLock { $0.servers = servers }
        case .discovery: break
        }
    }

    func mark(_ step: AccountSetupStep, _ value: SetupStepState) { state.withLock { $0.steps[step] = value } }
    var steps: [AccountSetupStep: SetupStepState] { state.withLock { $0.steps } }
    var servers: AccountServerSettings? { state.withLock { $0.servers } }
    var found: String? { servers?.source.map { "Settings from \($0.description)." } }
}
