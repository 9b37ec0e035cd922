import Foundation
import TernCore

/// The app's one page: a banner with search, then three panes (folders, thread list, thread) on
/// wide screens and one at a time at 430 px or less (PLATFORM.md). Written whole on the server, so
/// it reads without script; `app.js` then keeps it live (server-sent events), adds the keyboard
/// shortcuts and swaps fragments instead of reloading.
struct PageLayout: Sendable {
    var title: String
    var page: PageSecrets
    var location: MailLocation
    var folders: HTMLText
    var list: HTMLText
    var thread: HTMLText?
    var appearance = Appearance()

    func render() -> HTMLText {
        let searchValue: String = if case .search(let text) = location.source { text } else { "" }
        let paneState = thread == nil ? "list" : "thread"
        var composeLocation = location.listOnly
        composeLocation.compose = ComposeTarget(mode: .new, messageId: nil)
        let composeURL = composeLocation.url
        return """
            <!doctype html>
            <html lang="en"\(html: appearance.rootAttributes)>
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            \(html: page.head)
            <title>\(title) — Tern</title>
            <link rel="stylesheet" href="/assets/app.css">
            <link rel="icon" href="/assets/icon.svg" type="image/svg+xml">
            <script type="module" src="/assets/app.js"></script>
            </head>
            <body data-pane="\(paneState)">
            <a class="skip-link" href="#thread-list">Skip to the conversation list</a>
            <header class="app-header">
            <h1 class="brand-heading"><a class="brand" href="mail"><img src="/assets/icon.svg" alt="" width="24" height="24"> Tern</a></h1>
            <form class="search" role="search" action="mail" method="get">
            <label for="search-input" class="visually-hidden">Search mail</label>
            <input id="search-input" type="search" name="q" value="\(searchValue)" placeholder="Search mail" autocomplete="off" spellcheck="false" list="search-operators">
            \(html: SearchViews.operatorList)
            <button type="submit" class="search-submit">Search</button>
            </form>
            <nav class="app-links" aria-label="App">
            <a class="button primary compose-link" href="\(composeURL)" data-compose="new" aria-keyshortcuts="c">Compose</a>
            <a href="settings">Settings</a>
            <button type="button" class="link-button" id="shortcuts-open" aria-haspopup="dialog" aria-keyshortcuts="?">Keyboard shortcuts</button>
            </nav>
            </header>
            <p id="offline-banner" class="banner" role="status" hidden>You're offline. Showing mail stored on this computer.</p>
            <main class="panes">
            \(html: folders)
            <section class="list-pane" id="list-pane" aria-labelledby="list-title">
            \(html: list)
            </section>
            <section class="thread-pane" id="thread-pane" tabindex="-1" aria-label="Conversation">
            \(html: thread ?? ConversationView.nothingSelected)
            </section>
            </main>
            <div id="toasts" class="toasts" role="status" aria-live="polite" aria-atomic="false"></div>
            \(html: ShortcutHelp.dialog)
            </body>
            </html>
            """
    }
}

/// `?`: the shortcuts of PLATFORM.md (Gmail's), in a dialog.
enum ShortcutHelp {
    static let shortcuts: [(keys: String, action: String)] = [
        ("c", "Compose"), ("r", "Reply"), ("a", "Reply all"), ("f", "Forward"), ("Ctrl+Enter", "Send"),
        ("j / k", "Next / previous conversation"), ("Enter or o", "Open conversation or expand message"), ("u", "Back to the list"),
        ("e", "Archive"), ("#", "Delete"), ("v", "Move to…"), ("l", "Label as…"), ("b", "Snooze"), ("s", "Star or unstar"),
        ("Shift+u", "Mark unread"), ("/", "Search"),
        ("?", "Show these shortcuts"), ("Escape", "Close a dialog")
    ]

    static var dialog: HTMLText {
        var rows = HTMLText()
        for shortcut in shortcuts { rows += "<tr><th scope=\"row\"><kbd>\(shortcut.keys)</kbd></th><td>\(shortcut.action)</td></tr>" }
        return """
            <dialog id="shortcuts-dialog" aria-labelledby="shortcuts-title">
            <h2 id="shortcuts-title">Keyboard shortcuts</h2>
            <table><thead><tr><th scope="col">Keys</th><th scope="col">Action</th></tr></thead><tbody>\(html: rows)</tbody></table>
            <form method="dialog"><button type="submit">Close</button></form>
            </dialog>
            """
    }
}

/// What every page of the app writes into its head (issue 32): the `<base>` that makes its relative
/// links resolve under the app's secret path, and the CSRF token its script sends back.
struct PageSecrets: Sendable {
    var csrfToken: String
    var basePath: String

    var head: HTMLText { "<base href=\"\(basePath)\"><meta name=\"csrf-token\" content=\"\(csrfToken)\">" }
}

/// A small page for refusals and errors, with no script and no asset beyond the app's style.
enum WebErrorPage {
    static func document(title: String, message: String) -> HTMLText {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(title) — Tern</title><link rel="stylesheet" href="/assets/app.css"></head>
        <body class="plain-page"><main><h1>\(title)</h1><p>\(message)</p></main></body></html>
        """
    }
}
