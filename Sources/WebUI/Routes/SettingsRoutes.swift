import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// Settings (issue 17): trusted senders (list, remove, clear all), the metered override, accounts
/// with their sync state, and the undo delays. Each change is a form with the CSRF token.
struct SettingsRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let csrfToken: String

    func register(on router: Router<BasicRequestContext>) {
        router.get("settings") { request, _ in
            WebResponse.html(try await page(notice: FormFields(request.uri.query ?? "")["saved"] == "1" ? "Settings saved." : nil))
        }
        router.post("settings") { request, _ in
            var request = request
            let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
            do {
                for key in [SettingKey.undoSendDelay, .undoActionWindow, .meteredConnection] {
                    if let value = form[key.rawValue] { try await services.settings.set(key, to: value) }
                }
            } catch {
                return WebResponse.html(try await page(notice: WebErrorText.describe(error)), status: .badRequest)
            }
            return WebResponse.redirect(to: "/settings?saved=1")
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

    func page(notice: String?) async throws -> HTMLText {
        let settings = try await services.settings.current()
        let trusted = try await services.trustedSenders.list()
        let accounts = try await services.listAccounts()
        let folders = try await services.mailQueries.folders(account: nil)
        let statuses = state.syncStatuses
        var senders = HTMLText()
        for sender in trusted {
            senders += """
            <li>\(sender.senderEmail) <form method="post" action="/trusted-senders/remove" class="inline-form">\
            <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="address" value="\(sender.senderEmail)">\
            <button type="submit" class="button" aria-label="Remove \(sender.senderEmail)">Remove</button></form></li>
            """
        }
        var accountRows = HTMLText()
        for account in accounts {
            let lastSync = folders.filter { $0.account == account.name }.compactMap(\.lastSyncDate).max()
            let status = SyncStatusView(account: account, status: statuses[account.name], lastSync: lastSync).render()
            let row: HTMLText = "<li><strong>\(account.name)</strong> \(account.emailAddress) \(html: status)</li>"
            accountRows += row
        }
        let trustedList: HTMLText = trusted.isEmpty ? "<p>No trusted senders.</p>" : """
            <ul class="plain-list">\(html: senders)</ul><form method="post" action="/trusted-senders/clear">\
            <input type="hidden" name="csrf" value="\(csrfToken)"><button type="submit" class="button">Clear all trusted senders</button></form>
            """
        let noticeMarkup: HTMLText = notice.map { "<p class=\"banner\" role=\"status\">\($0)</p>" } ?? ""
        return """
        <!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">\
        <meta name="csrf-token" content="\(csrfToken)"><title>Settings — Tern</title><link rel="stylesheet" href="/assets/app.css">\
        <link rel="icon" href="/assets/icon.svg" type="image/svg+xml"></head>
        <body class="plain-page"><header class="app-header"><a class="brand" href="/mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a>\
        <nav class="app-links" aria-label="App"><a href="/mail">Back to mail</a></nav></header>
        <main class="settings"><h1>Settings</h1>\(html: noticeMarkup)
        <form method="post" action="/settings" class="settings-form"><input type="hidden" name="csrf" value="\(csrfToken)">
        \(html: select(.undoSendDelay, label: "Undo send delay", value: String(settings.undoSendDelay),
                       choices: TernSettings.undoSendDelayChoices.map { (String($0), $0 == 0 ? "Off" : "\($0) seconds") }))
        \(html: select(.undoActionWindow, label: "Undo archive and delete for", value: String(settings.undoActionWindow),
                       choices: [5, 10, 20, 30].map { (String($0), "\($0) seconds") }))
        \(html: select(.meteredConnection, label: "Metered connection", value: settings.meteredConnection.rawValue,
                       choices: [("auto", "Ask the system"), ("yes", "Always metered"), ("no", "Never metered")]))
        <button type="submit" class="button">Save settings</button></form>
        <section aria-labelledby="trusted-senders"><h2 id="trusted-senders">Trusted senders</h2>\
        <p>Remote images always load for these senders. Trackers are still blocked.</p>
        \(html: trustedList)
        </section>
        <section aria-labelledby="accounts-title"><h2 id="accounts-title">Accounts</h2><ul class="plain-list">\(html: accountRows)</ul></section>
        </main></body></html>
        """
    }

    private func select(_ key: SettingKey, label: String, value: String, choices: [(String, String)]) -> HTMLText {
        var options = HTMLText()
        for (choice, text) in choices {
            options += "<option value=\"\(choice)\"\(html: choice == value ? " selected" : "")>\(text)</option>"
        }
        return "<p><label for=\"setting-\(key.rawValue)\">\(label)</label> <select id=\"setting-\(key.rawValue)\" name=\"\(key.rawValue)\">\(html: options)</select></p>"
    }
}
