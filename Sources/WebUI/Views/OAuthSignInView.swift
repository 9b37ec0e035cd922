import Foundation
import TernCore

/// Issue 35: "Sign in with Google / Microsoft" on the Add account form, one section per provider,
/// drawn hidden until the setup says the servers take that provider's sign-in (`account.js` shows
/// it from the stream; a page without script is drawn with it shown). Tern ships no client id: when
/// none is stored for the provider, two sentences say how to make one and a field takes it. The
/// button posts the whole form to `accounts/oauth/start` as an ordinary navigation, since the
/// sign-in leaves the app for the provider's page.
struct OAuthSignInView: Sendable {
    var provider: OAuthProvider
    /// A client id is stored for the provider: no field, only the button.
    var registered: Bool
    var shown: Bool
    var headingLevel: Int

    /// Microsoft matches a loopback redirect URI's port loosely (RFC 8252 section 7.3), so one
    /// registration serves whatever port `tern serve` runs on; Google's desktop clients accept any
    /// loopback address without registering it.
    static let redirectToRegister = "http://127.0.0.1/oauth/callback"

    static func instructions(_ provider: OAuthProvider) -> String {
        switch provider {
        case .google:
            "Tern ships no Google client id: in the Google Cloud console, enable the Gmail API and create an OAuth client ID "
                + "of type Desktop app, which accepts Tern's address \(redirectToRegister) as it is. "
                + "Paste its client id and client secret here; Tern keeps them for every Google account and you can change them in Settings."
        case .microsoft:
            "Tern ships no Microsoft client id: in the Microsoft Entra admin center, register an app under App registrations for "
                + "personal and work accounts, with the platform Mobile and desktop applications and the redirect URI \(redirectToRegister). "
                + "Paste its Application (client) ID here; Tern keeps it for every Microsoft account and you can change it in Settings."
        }
    }

    func render() -> HTMLText {
        let id = "setup-oauth-\(provider.rawValue)"
        let level = String(headingLevel)
        var fields = HTMLText()
        if !registered {
            fields += """
                <p id="\(id)-help">\(Self.instructions(provider))</p>
                <p><label for="\(id)-client-id">\(provider.displayName) client id</label> <input id="\(id)-client-id" \
                name="oauth-client-id-\(provider.rawValue)" type="text" autocomplete="off" spellcheck="false" aria-describedby="\(id)-help"></p>
                """
            if provider.usesClientSecret {
                fields += """
                    <p><label for="\(id)-client-secret">\(provider.displayName) client secret</label> <input id="\(id)-client-secret" \
                    name="oauth-client-secret-\(provider.rawValue)" type="text" autocomplete="off" spellcheck="false"></p>
                    """
            }
        }
        return """
            <section id="\(id)" class="oauth-sign-in" aria-labelledby="\(id)-title"\(html: shown ? "" : " hidden")>
            <h\(level) id="\(id)-title">Sign in with \(provider.displayName)</h\(level)>
            <p>These servers sign in through \(provider.displayName)'s own page: Tern never sees your \(provider.displayName) password.</p>
            \(html: fields)
            <p><button type="submit" class="button primary" name="sign-in-with" value="\(provider.rawValue)" formaction="accounts/oauth/start" \
            formnovalidate>Sign in with \(provider.displayName)</button></p>
            </section>
            """
    }
}

/// Issue 35: the page between the app and the provider: it says where the browser goes and goes
/// there (a refresh; the link for a browser that refuses refreshes). A form post cannot be
/// redirected to the provider: the app's `form-action 'self'` would stop it.
enum OAuthLeavingPage {
    static func render(provider: OAuthProvider, url: URL, head: HTMLText) -> HTMLText {
        let target = url.absoluteString
        return """
            <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: head)<meta http-equiv="refresh" content="0; url=\(target)"><title>Sign in with \(provider.displayName) — Tern</title>\
            <link rel="stylesheet" href="/assets/app.css"><link rel="icon" href="/assets/icon.svg" type="image/svg+xml"></head>
            <body class="plain-page"><main class="settings"><h1>Sign in with \(provider.displayName)</h1>
            <p>Tern is opening \(provider.displayName)'s sign-in page. After you allow access, you come back here and the account is added.</p>
            <p><a class="button primary" href="\(target)">Continue to \(provider.displayName)</a></p></main></body></html>
            """
    }
}

/// Settings → Sign-in apps (issue 35): the client id of the app registered with each provider,
/// used by every account of it; changed here, it serves the next sign-ins (an account keeps the id
/// its refresh token was issued to until it signs in again). Empty forgets it.
struct OAuthClientsSection: Sendable {
    var registrations: [OAuthClientRegistration]
    var csrfToken: String

    func render() -> HTMLText {
        var fields = HTMLText()
        for provider in OAuthProvider.allCases {
            let registration = registrations.first { $0.provider == provider }
            let id = "settings-oauth-\(provider.rawValue)"
            fields += """
                <p><label for="\(id)-client-id">\(provider.displayName) client id</label> <input id="\(id)-client-id" \
                name="oauth-client-id-\(provider.rawValue)" type="text" value="\(registration?.clientID ?? "")" autocomplete="off" spellcheck="false"></p>
                """
            if provider.usesClientSecret {
                fields += """
                    <p><label for="\(id)-client-secret">\(provider.displayName) client secret</label> <input id="\(id)-client-secret" \
                    name="oauth-client-secret-\(provider.rawValue)" type="text" value="\(registration?.clientSecret ?? "")" autocomplete="off" \
                    spellcheck="false"></p>
                    """
            }
        }
        return """
            <section aria-labelledby="sign-in-apps-title"><h2 id="sign-in-apps-title">Sign-in apps</h2>
            <p>Google and Microsoft accounts sign in through an app you registered with them; Tern ships none. \
            A change applies to the next sign-in; an empty client id forgets it.</p>
            <form method="post" action="settings/oauth-clients" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">
            \(html: fields)
            <button type="submit" class="button">Save sign-in apps</button></form></section>
            """
    }
}
