import Foundation
import TernCore

/// Issue 36: the search box's operators. The box offers them as suggestions (a native `<datalist>`,
/// which `search.js` keeps matched to the word being typed), and the list of a search shows each
/// operator it read as a chip that removes it, or says in a live region which part it could not read.
enum SearchViews {
    /// An operator as the suggestions offer it, with what it does.
    static let suggestions: [(text: String, help: String)] = [
        ("from:", "Sender"), ("to:", "Recipient (To or Cc)"), ("cc:", "Cc recipient"), ("subject:", "Words of the subject"),
        ("has:attachment", "With an attachment"), ("filename:", "Attachment file name"), ("is:unread", "Unread"),
        ("is:read", "Read"), ("is:starred", "Starred"), ("in:inbox", "In the Inbox"), ("in:sent", "Sent"),
        ("in:archive", "Archived"), ("in:trash", "In the Trash"), ("in:", "In a folder"), ("before:", "Received before YYYY-MM-DD"),
        ("after:", "Received on or after YYYY-MM-DD"), ("older_than:", "Older than 7d, 2m, 1y"), ("newer_than:", "Newer than 7d, 2m, 1y"),
        ("larger:", "Larger than 5M, 200K"), ("smaller:", "Smaller than 5M, 200K")
    ]

    /// The `<datalist>` the search input names with `list`.
    static let operatorList: HTMLText = {
        var options = HTMLText()
        for suggestion in suggestions {
            options += "<option value=\"\(suggestion.text)\" label=\"\(suggestion.help)\"></option>"
        }
        return "<datalist id=\"search-operators\">\(html: options)</datalist>"
    }()

    /// The chips of `text`'s operators, or its error; nothing for a search of words alone.
    static func filters(for text: String, location: MailLocation) -> HTMLText {
        let parsed: ParsedSearch
        do {
            parsed = try SearchQueryParser().parse(text)
        } catch {
            return """
                <p class="search-error" id="search-error" role="status">Couldn't read this search: \(error.message).</p>
                """
        }
        guard !parsed.operators.isEmpty else { return "<p class=\"search-error\" id=\"search-error\" role=\"status\"></p>" }
        var chips = HTMLText()
        for mention in parsed.operators {
            let rest = parsed.removing(mention)
            var target = location.listOnly
            target.source = rest.isEmpty ? .unifiedInbox : .search(rest)
            chips += """
                <li class="search-chip"><span class="search-chip-text">\(mention.text)</span>\
                <a class="search-chip-remove" href="\(target.url)" aria-label="Remove filter \(mention.text)"><span aria-hidden="true">×</span></a></li>
                """
        }
        return """
            <ul class="search-chips" aria-label="Search filters">\(html: chips)</ul>
            <p class="search-error" id="search-error" role="status"></p>
            """
    }
}
