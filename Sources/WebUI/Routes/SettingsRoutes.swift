import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// Settings (issue 17): trusted senders (list, remove, clear all), the metered override, accounts
/// with their sync state, the undo delays, and the appearance (issue 39). Each change is a form with the CSRF token.
struct SettingsRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets
    var csrfToken: String { page.csrfToken }

    func register(on router: Router<BasicRequestContext>) {
        router.get("settings") { request, _ in
            let query = FormFields(request.uri.query ?? "")
            let notice =
                query["saved"] == "1"
                ? "Settings saved."
                : query["removed"] == "1"
                    ? "The account was removed." : query["certificate-forgotten"] == "1" ? "The certificate is no longer trusted." : nil
            return WebResponse.html(try await page(notice: notice))
        }
        router.post("settings") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            do {
                for key in [SettingKey.undoSendDelay, .undoActionWindow, .meteredConnection, .catchUp, .catchUpOnMetered, .readReceipts]
                    + Self.appearanceKeys
                {
                    if let value = form[key.rawValue] { try await services.settings.set(key, to: value) }
                }
            } catch {
                return WebResponse.html(try await page(notice: WebErrorText.describe(error)), status: .badRequest)
            }
            return WebResponse.redirect(to: "/settings?saved=1" + (form[SettingKey.theme.rawValue] == nil ? "" : "#appearance-title"))
        }
        // Issue 19: who writes summaries and smart replies; a remote endpoint only when allowed.
        router.post("settings/assist") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            do {
                try await services.settings.set(.assistAllowRemote, to: form[SettingKey.assistAllowRemote.rawValue] == "yes" ? "yes" : "no")
                for key in [SettingKey.assistEndpoint, .assistModel, .assistProvider] {
                    if let value = form[key.rawValue] { try await services.settings.set(key, to: value) }
                }
            } catch {
                return WebResponse.html(try await page(notice: WebErrorText.describe(error)), status: .badRequest)
            }
            return WebResponse.redirect(to: "/settings?saved=1#assist-title")
        }
        router.post("settings/assist/test") { _, _ in
            WebResponse.html(try await page(notice: await testConnection()))
        }
        // Issue 35: the client id (and secret) of the app registered with each provider, for every account of it.
        router.post("settings/oauth-clients") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            do {
                for provider in OAuthProvider.allCases {
                    guard let clientID = form["oauth-client-id-\(provider.rawValue)"] else { continue }
                    try await services.oauthClients.set(provider, clientID: clientID, clientSecret: form["oauth-client-secret-\(provider.rawValue)"])
                }
            } catch {
                return WebResponse.html(try await page(notice: WebErrorText.describe(error)), status: .badRequest)
            }
            return WebResponse.redirect(to: "/settings?saved=1#sign-in-apps-title")
        }
        router.post("trusted-senders/remove") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            if let address = form["address"] { try await services.trustedSenders.remove(address) }
            return WebResponse.redirect(to: "/settings#trusted-senders")
        }
        router.post("trusted-senders/clear") { _, _ in
            _ = try await services.trustedSenders.clear()
            return WebResponse.redirect(to: "/settings#trusted-senders")
        }
    }

    /// Issue 36: notifications of new Inbox mail (`notifications.js`): the choice and the browser's
    /// permission both belong to the browser, so the form is the script's, kept in the browser.
    static let notificationsSection: HTMLText = """
        <section id="notifications-settings" aria-labelledby="notifications-title"><h2 id="notifications-title">Notifications</h2>
        <p data-needs-script>Notifications of new mail need the page's script.</p>
        <form class="settings-form" data-with-script hidden><label for="notifications-choice">New mail in the Inbox</label>
        <select id="notifications-choice" name="notifications"><option value="off">Off</option>\
        <option value="full">Notify with sender and subject</option><option value="private">Notify “New mail” only</option></select>
        <button type="submit" class="button">Save notifications</button></form>
        <p data-notification-status role="status"></p></section>
        """

    /// Issue 39: the Appearance section's settings, saved by the same form route as the others.
    static let appearanceKeys: [SettingKey] = [.theme, .density, .textSize]

    func page(notice: String?) async throws -> HTMLText {
        let settings = try await services.settings.current()
        let trusted = try await services.trustedSenders.list()
        let accounts = try await services.listAccounts()
        let folders = try await services.browse.folders(account: nil)
        let statuses = state.syncStatuses.current
        let identities = IdentitiesSection(accounts: try await services.identities.list(), csrfToken: csrfToken)
        let signInApps = OAuthClientsSection(registrations: try await services.oauthClients.registrations(), csrfToken: csrfToken)
        var senders = HTMLText()
        for sender in trusted {
            senders += """
                <li>\(sender.senderEmail) <form method="post" action="trusted-senders/remove" class="inline-form">\
                <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="address" value="\(sender.senderEmail)">\
                <button type="submit" class="button" aria-label="Remove \(sender.senderEmail)">Remove</button></form></li>
                """
        }
        let accountsSection = AccountSettingsSection(
            rows: accounts.map { account in
                let lastSync = folders.filter { $0.account == account.name }.compactMap(\.lastSyncDate).max()
                return (account, SyncStatusView(account: account, status: statuses[account.id], lastSync: lastSync).render())
            }, csrfToken: csrfToken)
        let trustedList: HTMLText =
            trusted.isEmpty
            ? "<p>No trusted senders.</p>"
            : """
            <ul class="plain-list">\(html: senders)</ul><form method="post" action="trusted-senders/clear">\
            <input type="hidden" name="csrf" value="\(csrfToken)"><button type="submit" class="button">Clear all trusted senders</button></form>
            """
        let noticeMarkup: HTMLText = notice.map { "<p class=\"banner\" role=\"status\">\($0)</p>" } ?? ""
        return """
            <!doctype html><html lang="en"\(html: Appearance(settings).rootAttributes)><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
            \(html: page.head)<title>Settings — Tern</title><link rel="stylesheet" href="/assets/app.css">\
            <link rel="icon" href="/assets/icon.svg" type="image/svg+xml"><script type="module" src="/assets/notifications.js"></script>
            <script type="module" src="/assets/settings.js"></script></head>
            <body class="plain-page"><header class="app-header"><a class="brand" href="mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a>\
            <nav class="app-links" aria-label="App"><a href="mail">Back to mail</a></nav></header>
            <main class="settings"><h1>Settings</h1>\(html: noticeMarkup)
            <form method="post" action="settings" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">
            \(html: select(.undoSendDelay, label: "Undo send delay", value: String(settings.undoSendDelay),
                       choices: TernSettings.undoSendDelayChoices.map { (String($0), $0 == 0 ? "Off" : "\($0) seconds") }))
            \(html: select(.undoActionWindow, label: "Undo archive and delete for", value: String(settings.undoActionWindow),
                       choices: [5, 10, 20, 30].map { (String($0), "\($0) seconds") }))
            \(html: select(.meteredConnection, label: "Metered connection", value: settings.meteredConnection.rawValue,
                       choices: [("auto", "Ask the system"), ("yes", "Always metered"), ("no", "Never metered")]))
            \(html: select(.catchUp, label: "Older mail in the background", value: settings.catchUp.rawValue,
                       choices: [("on", "Keep fetching"), ("paused", "Paused")]))
            \(html: select(.catchUpOnMetered, label: "Older mail on a metered connection", value: settings.catchUpOnMetered.rawValue,
                       choices: [("pause", "Wait for an unmetered connection"), ("continue", "Fetch anyway")]))
            \(html: select(.readReceipts, label: "Read receipt requests", value: settings.readReceipts.rawValue,
                       choices: [("ask", "Ask each time"), ("never", "Never ask")]))
            <button type="submit" class="button">Save settings</button></form>
            \(html: appearanceSection(settings))
            \(html: Self.notificationsSection)
            \(html: emailLinksSection)
            \(html: assistSection(settings))
            <section aria-labelledby="trusted-senders"><h2 id="trusted-senders">Trusted senders</h2>\
            <p>Remote images always load for these senders. Trackers are still blocked.</p>
            \(html: trustedList)
            </section>
            \(html: accountsSection.render())
            \(html: signInApps.render())
            \(html: identities.render())
            </main></body></html>
            """
    }

    /// The endpoint the settings name, asked for its models: what the "Test connection" button says.
    func testConnection() async -> String {
        let settings = (try? await services.settings.current()) ?? TernSettings()
        do {
            let models = try await SettingsAssistProviders.testEndpoint(settings)
            return models.isEmpty ? "Connected. The server lists no models." : "Connected. Models: \(models.prefix(5).joined(separator: ", "))."
        } catch let failure as AssistFailure {
            return "Couldn't connect: \(failure.description)."
        } catch {
            return "Couldn't connect: \(error)."
        }
    }

    /// Issue 36: Tern as the browser's handler for `mailto:` links; `settings.js` shows the button
    /// where the browser offers `registerProtocolHandler` and says what came of it.
    var emailLinksSection: HTMLText {
        """
        <section aria-labelledby="email-links-title"><h2 id="email-links-title">Email links</h2>\
        <p>Open mailto: links from web pages in Tern's composer, filled in from the link. Nothing is sent until you press Send.</p>\
        <p><button type="button" class="button" id="register-mailto" data-handler="compose?mailto=%s" hidden>Use Tern for email links</button></p>\
        <p id="mailto-status" role="status"></p>\
        <noscript><p>Turning this on needs JavaScript in this page.</p></noscript></section>
        """
    }

    /// Issue 39: colour scheme, density and text size, applied to the app and to message bodies.
    func appearanceSection(_ settings: TernSettings) -> HTMLText {
        """
        <section aria-labelledby="appearance-title"><h2 id="appearance-title">Appearance</h2>
        <form method="post" action="settings" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">
        \(html: select(.theme, label: "Theme", value: settings.theme.rawValue,
                   choices: [("system", "Same as the system"), ("light", "Light"), ("dark", "Dark")]))
        \(html: select(.density, label: "Density", value: settings.density.rawValue,
                   choices: [("comfortable", "Comfortable"), ("compact", "Compact")]))
        \(html: select(.textSize, label: "Text size", value: String(settings.textSize),
                   choices: TernSettings.textSizeChoices.map { (String($0), $0 == 100 ? "100 % (the browser's size)" : "\($0) %") }))
        <button type="submit" class="button">Save appearance</button></form>
        </section>
        """
    }

    func assistSection(_ settings: TernSettings) -> HTMLText {
        let endpoint = AssistEndpointAddress(settings.assistEndpoint)
        let remoteWarning: HTMLText =
            settings.assistAllowRemote && endpoint.map({ !$0.isLoopback }) == true
            ? "<p class=\"notice notice-warning\" role=\"note\">Mail you open is sent to \(endpoint?.host ?? ""), another computer, to be summarized.</p>"
            : ""
        return """
            <section aria-labelledby="assist-title"><h2 id="assist-title">Summaries and suggested replies</h2>\
            <p>Tern writes them on this computer. Nothing is sent to any service unless you choose a model server below.</p>
            \(html: remoteWarning)
            <form method="post" action="settings/assist" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">
            \(html: select(.assistProvider, label: "Written by", value: settings.assistProvider.rawValue,
                       choices: [("builtin", "Tern (built in, offline)"), ("endpoint", "A model server on this computer"), ("off", "Off")]))
            <p><label for="setting-assist-endpoint">Model server address</label> <input id="setting-assist-endpoint" name="assist-endpoint" type="url" \
            value="\(settings.assistEndpoint)" placeholder="http://127.0.0.1:8080/v1" aria-describedby="assist-endpoint-hint" autocomplete="off"></p>
            <p id="assist-endpoint-hint" class="hint">An OpenAI-compatible server such as llama.cpp's llama-server or Ollama (http://127.0.0.1:11434/v1).</p>
            <p><label for="setting-assist-model">Model name</label> <input id="setting-assist-model" name="assist-model" type="text" \
            value="\(settings.assistModel)" autocomplete="off"></p>
            <p><input id="setting-assist-allow-remote" name="assist-allow-remote" type="checkbox" value="yes"\(html: settings.assistAllowRemote ? " checked" : "") \
            aria-describedby="assist-remote-warning"> <label for="setting-assist-allow-remote">Allow a server on another computer</label></p>
            <p id="assist-remote-warning" class="hint settings-warning">Warning: with this on, the mail you open leaves this computer.</p>
            <button type="submit" class="button">Save</button></form>
            <form method="post" action="settings/assist/test"><input type="hidden" name="csrf" value="\(csrfToken)">\
            <button type="submit" class="button">Test connection</button></form>
            </section>
            """
    }

    private func select(_ key: SettingKey, label: String, value: String, choices: [(String, String)]) -> HTMLText {
        var options = HTMLText()
        for (choice, text) in choices {
            options += "<option value=\"\(choice)\"\(html: choice == value ? " selected" : "")>\(text)</option>"
        }
        return
            "<p><label for=\"setting-\(key.rawValue)\">\(label)</label> <select id=\"setting-\(key.rawValue)\" name=\"\(key.rawValue)\">\(html: options)</select></p>"
    }
}
