import Foundation
import Hummingbird
import TernCore
import TernRuntime

/// Settings → Identities and signatures (issue 35): each account's identities with forms to add,
/// change and remove them. Each change is a form with the CSRF token (checked by the session
/// middleware, as for every POST); a refusal draws Settings again with the reason.
struct IdentityRoutes: Sendable {
    let services: TernServices
    let state: WebState
    let page: PageSecrets

    func register(on router: Router<BasicRequestContext>) {
        router.post("settings/identities/add") { request, _ in
            try await change(request) { form in
                _ = try await services.identities.add(
                    account: AccountName(form["account"] ?? ""), emailAddress: form["email"] ?? "", displayName: form["name"],
                    signature: form["signature"])
            }
        }
        router.post("settings/identities/edit") { request, _ in
            try await change(request) { form in
                _ = try await services.identities.edit(
                    account: AccountName(form["account"] ?? ""), emailAddress: form["email"] ?? "",
                    IdentityEdit(displayName: form["name"] ?? "", signature: form["signature"] ?? ""))
            }
        }
        router.post("settings/identities/remove") { request, _ in
            try await change(request) { form in
                try await services.identities.remove(account: AccountName(form["account"] ?? ""), emailAddress: form["email"] ?? "")
            }
        }
    }

    func change(_ request: Request, _ apply: (FormFields) async throws -> Void) async throws -> Response {
        var request = request
        let form = FormFields(String(buffer: try await request.collectBody(upTo: SessionMiddleware<BasicRequestContext>.formFieldLimit)))
        do {
            try await apply(form)
        } catch let error as TernError {
            let settings = SettingsRoutes(services: services, state: state, page: page)
            return WebResponse.html(try await settings.page(notice: WebErrorText.describe(error)), status: .badRequest)
        }
        return WebResponse.redirect(to: "/settings?saved=1#identities-title")
    }
}

/// The Settings section: per account, its identities (the default marked, which has no Remove),
/// each with its name and signature in a labelled form, and a form to add one.
struct IdentitiesSection: Sendable {
    var accounts: [AccountIdentities]
    var csrfToken: String

    func render() -> HTMLText {
        var groups = HTMLText()
        var number = 0
        for entry in accounts {
            let account = entry.account
            var items = HTMLText()
            for identity in entry.identities {
                number += 1
                let id = "identity-\(number)"
                let remove: HTMLText =
                    identity.isDefault
                    ? "<span class=\"hint\">The account's own address: it cannot be removed.</span>"
                    : """
                    <form method="post" action="settings/identities/remove" class="inline-form">\(html: hidden(account, identity))\
                    <button type="submit" class="button" aria-label="Remove \(identity.emailAddress)">Remove</button></form>
                    """
                items += """
                    <li class="identity"><h4 id="\(id)-title">\(identity.emailAddress)\(html: identity.isDefault ? " (default)" : "")</h4>
                    <form method="post" action="settings/identities/edit" class="settings-form" aria-labelledby="\(id)-title">\(html: hidden(account, identity))
                    <p><label for="\(id)-name">Display name<span class="visually-hidden"> for \(identity.emailAddress)</span></label> \
                    <input id="\(id)-name" name="name" type="text" value="\(identity.displayName ?? "")" autocomplete="off"></p>
                    <p class="identity-signature"><label for="\(id)-signature">Signature<span class="visually-hidden"> for \(identity.emailAddress)</span></label> \
                    <textarea id="\(id)-signature" name="signature" rows="3">\(identity.signature ?? "")</textarea></p>
                    <button type="submit" class="button">Save<span class="visually-hidden"> \(identity.emailAddress)</span></button></form>
                    \(html: remove)</li>
                    """
            }
            number += 1
            let add = "identity-add-\(number)"
            groups += """
                <h3 id="\(add)-account">\(account.name) <span class="hint">\(account.emailAddress)</span></h3>
                <ul class="plain-list identity-list" aria-labelledby="\(add)-account">\(html: items)</ul>
                <form method="post" action="settings/identities/add" class="settings-form" aria-labelledby="\(add)-title">\
                <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="account" value="\(account.name)">
                <h4 id="\(add)-title">Add an address to \(account.name)</h4>
                <p><label for="\(add)-email">Address<span class="visually-hidden"> to add to \(account.name)</span></label> \
                <input id="\(add)-email" name="email" type="email" required autocomplete="off"></p>
                <p><label for="\(add)-name">Display name<span class="visually-hidden"> of the new address of \(account.name)</span></label> \
                <input id="\(add)-name" name="name" type="text" autocomplete="off"></p>
                <p class="identity-signature"><label for="\(add)-signature">Signature<span class="visually-hidden"> of the new address of \(account.name)</span></label> \
                <textarea id="\(add)-signature" name="signature" rows="3"></textarea></p>
                <button type="submit" class="button">Add address<span class="visually-hidden"> to \(account.name)</span></button></form>
                """
        }
        return """
            <section aria-labelledby="identities-title"><h2 id="identities-title">Identities and signatures</h2>\
            <p>The addresses you send from. A reply goes out from the address the message was sent to; \
            a signature goes below your text, above the quote.</p>
            \(html: accounts.isEmpty ? "<p>No accounts.</p>" : groups)
            </section>
            """
    }

    private func hidden(_ account: Account, _ identity: Identity) -> HTMLText {
        """
        <input type="hidden" name="csrf" value="\(csrfToken)"><input type="hidden" name="account" value="\(account.name)">\
        <input type="hidden" name="email" value="\(identity.emailAddress)">
        """
    }
}
