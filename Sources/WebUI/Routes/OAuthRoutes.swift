import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// Issue 35: "Sign in with Google / Microsoft" from the Add account form: the authorization-code
/// flow with PKCE (S256) whose redirect comes back to the app's own `/oauth/callback` on the
/// loopback address (RFC 8252 section 7.3). docs/decisions.md, "OAuth in the web app", says why the
/// callback stands outside the session and how the session takes over again.
///
/// 1. `accounts/oauth/start` (a form post, with the session and the CSRF token): keeps the client id
///    pasted for the provider, makes the authorization request and sends the browser on to the provider.
/// 2. `/oauth/callback` (`OAuthCallbackHandoff`, before the session): the provider's answer is kept
///    for the state it carries, and the browser is sent on to the app's own address.
/// 3. `accounts/oauth/finish` (with the session): the Add account form again, carrying the state;
///    the form's post (`accounts/new` with `oauth-state`) exchanges the code and runs the setup's steps.
struct OAuthRoutes: Sendable {
    let services: TernServices
    let page: PageSecrets
    let signIns: PendingOAuthSignIns

    func register(on router: Router<BasicRequestContext>) {
        router.post("accounts/oauth/start") { request, _ in
            var request = request
            let authority = request.head.authority ?? "127.0.0.1"
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            var values = AccountRoutes.values(form)
            guard let provider = form["sign-in-with"].flatMap(OAuthProvider.init(rawValue:)) else {
                throw HTTPError(.badRequest, message: "No provider to sign in with.")
            }
            values.signIn = provider.rawValue
            let routes = AccountRoutes(services: services, page: page, signIns: signIns)
            do {
                let registration = try await registration(for: provider, form: form)
                let authorization = await services.browserSignIn.start(
                    provider: provider, clientID: registration.clientID, redirectURI: "http://\(authority)\(OAuthCallbackHandoff.path)",
                    loginHint: values.email)
                await signIns.add(authorization, form: values)
                return WebResponse.html(OAuthLeavingPage.render(provider: provider, url: authorization.url, head: page.head))
            } catch {
                var view = await routes.setupView(values)
                view.offeredSignIn = provider
                view.openServerSettings = view.openServerSettings || !values.imapHost.isEmpty
                view.error = (error as? OAuthSignInFailure)?.text ?? WebErrorText.describe(AccountRoutes.ternError(error))
                return WebResponse.html(AccountSetupView.page(view, head: page.head), status: .badRequest)
            }
        }
        router.get("accounts/oauth/finish") { request, _ in
            let state = FormFields(request.uri.query ?? "")["state"] ?? ""
            let routes = AccountRoutes(services: services, page: page, signIns: signIns)
            guard let pending = await signIns.answered(state: state) else {
                var view = await routes.setupView()
                view.error = OAuthSignInFailure.expired.text
                return WebResponse.html(AccountSetupView.page(view, head: page.head), status: .badRequest)
            }
            var view = await routes.setupView(pending.form)
            view.openServerSettings = !pending.form.imapHost.isEmpty
            switch pending.answer {
            case .refused(let error, let description):
                _ = await signIns.take(state: state)
                view.offeredSignIn = pending.request.provider
                view.error = OAuthSignInFailure.refused(pending.request.provider, error: error, description: description).text
                return WebResponse.html(AccountSetupView.page(view, head: page.head), status: .unprocessableContent)
            case .code, nil:
                view.continuingSignIn = (state, pending.request.provider)
                return WebResponse.html(AccountSetupView.page(view, head: page.head))
            }
        }
    }

    /// The client id pasted with this sign-in is kept for every later account of the provider;
    /// without one, the stored registration.
    func registration(for provider: OAuthProvider, form: FormFields) async throws -> OAuthClientRegistration {
        let pasted = (form["oauth-client-id-\(provider.rawValue)"] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        if !pasted.isEmpty {
            try await services.oauthClients.set(provider, clientID: pasted, clientSecret: form["oauth-client-secret-\(provider.rawValue)"])
        }
        guard let registration = try await services.oauthClients.registration(for: provider) else {
            throw OAuthSignInFailure.noClientID(provider)
        }
        return registration
    }
}

extension AccountRoutes {
    /// The browser sign-in the form continues with: taken out (one use), its code exchanged for
    /// tokens with the PKCE verifier only this process holds.
    func signedIn(state: String) async throws -> OAuthSignedIn {
        guard let pending = await signIns.take(state: state) else { throw OAuthSignInFailure.expired }
        switch pending.answer {
        case .code(let code):
            do {
                let tokens = try await services.browserSignIn.exchange(code: code, for: pending.request)
                return OAuthSignedIn(provider: pending.request.provider, clientID: pending.request.clientID, tokens: tokens)
            } catch {
                throw OAuthSignInFailure.exchange(pending.request.provider, Self.ternError(error))
            }
        case .refused(let error, let description):
            throw OAuthSignInFailure.refused(pending.request.provider, error: error, description: description)
        case nil:
            throw OAuthSignInFailure.expired
        }
    }
}

/// Why a browser sign-in did not give tokens, worded for the Add account screen.
enum OAuthSignInFailure: Error, Sendable {
    case noClientID(OAuthProvider)
    case expired
    case refused(OAuthProvider, error: String, description: String?)
    case exchange(OAuthProvider, TernError)

    var text: String {
        switch self {
        case .noClientID(let provider):
            "Paste your \(provider.displayName) client id first: Tern ships none, and the steps to make one are above the field."
        case .expired:
            "This sign-in is no longer waiting: it was finished already, or started more than 10 minutes ago. Start it again with Sign in."
        case .refused(let provider, "access_denied", _):
            "\(provider.displayName) did not give Tern access: the sign-in was refused or cancelled. Nothing was added. Sign in again to retry."
        case .refused(let provider, let error, let description):
            "\(provider.displayName) did not sign you in (\([error, description].compactMap { $0 }.joined(separator: ": "))). Nothing was added."
        case .exchange(let provider, let error):
            "\(provider.displayName) did not accept the sign-in: \(AccountSetupWording.detail(error)). Nothing was added. Sign in again to retry."
        }
    }
}

/// Issue 35: the provider's answer, `GET /oauth/callback?code=…&state=…`, is a top-level navigation
/// from the provider's site: it carries no SameSite=Strict session cookie and comes cross-site,
/// outside the secret base. It is answered here, in front of the session, for a state this process
/// issued only: the answer is kept with its sign-in (once), and a page with nothing of the person's
/// sends the browser on to the finish page at the app's own address, a navigation from the app's own
/// origin that carries the session again (as `MailtoHandoff` does for a mailto link). An answer for
/// any other state changes nothing and is told apart in words.
struct OAuthCallbackHandoff: Sendable {
    static let path = "/oauth/callback"

    let signIns: PendingOAuthSignIns
    let secrets: WebAppSecrets

    func answer(_ request: Request) async -> Response? {
        guard request.uri.path == Self.path else { return nil }
        guard request.method == .get else { return WebErrorPage.refusal(.methodNotAllowed, "The sign-in answer is a GET.") }
        let query = FormFields(request.uri.query ?? "")
        let state = query["state"] ?? ""
        let answer: OAuthAnswer =
            if let code = query["code"], !code.isEmpty, query["error"] == nil {
                .code(code)
            } else {
                .refused(error: Self.token(query["error"]) ?? "invalid_request", description: query["error_description"].map(Self.printable))
            }
        guard await signIns.answer(state: state, with: answer) == .accepted else {
            return WebErrorPage.refusal(
                .badRequest,
                "This sign-in answer is not for a sign-in Tern is waiting for: it is for another one, more than 10 minutes old, "
                    + "or was used already. Nothing was changed. Start again from Add account.")
        }
        // `state` is the URL-safe base64 this process made: nothing in it can end the attribute or the URL.
        let target = secrets.publicPath("/accounts/oauth/finish?state=\(state)")
        var response = WebResponse.html(
            """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="0; url=\(target)">\
            <title>Back to Tern</title><link rel="stylesheet" href="/assets/app.css"></head><body class="plain-page"><main><h1>Back to Tern</h1>\
            <p><a href="\(target)">Continue adding the account in Tern</a></p></main></body></html>
            """)
        SecurityHeaders.apply(to: &response)
        return response
    }

    /// An RFC 6749 error code is a token of printable ASCII; anything else is not shown.
    static func token(_ text: String?) -> String? {
        guard let text, !text.isEmpty, text.count <= 64, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
            return nil
        }
        return text
    }

    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F }).prefix(200))
    }
}
