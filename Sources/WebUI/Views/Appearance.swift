import TernCore

/// Issue 39: how the person asked the app to look: colour scheme, density and text size. Written on
/// the root element of every page and of every message body as data attributes, which `app.css` and
/// `body.css` read: the app's policy refuses inline styles, so a setting is never written as CSS.
struct Appearance: Sendable, Hashable {
    var theme = ThemeSetting.system
    var density = DensitySetting.comfortable
    var textSize = 100

    init() {}

    init(_ settings: TernSettings) {
        theme = settings.theme
        density = settings.density
        textSize = settings.textSize
    }

    /// The attributes of `<html>`: `data-theme` only when the person chose one (otherwise the style
    /// sheets follow `prefers-color-scheme`).
    var rootAttributes: HTMLText {
        let theme: HTMLText = self.theme == .system ? "" : " data-theme=\"\(self.theme.rawValue)\""
        return "\(html: theme) data-density=\"\(density.rawValue)\" data-text-size=\"\(String(textSize))\""
    }
}

/// Whether a sanitized body paints with colours of its own (issue 39, decisions.md "Dark mode and
/// message bodies"): such a body keeps the light surface its sender drew it for, in either theme;
/// one that sets none takes the theme's colours. Only markup is searched (tags, and the style
/// sheets the sanitizer kept), never the text, which the sanitizer escapes (`<` starts a tag and
/// nothing else). A false positive (a colour on a border only) costs no more than the light surface.
enum BodyColours {
    static func setOwn(_ html: String) -> Bool {
        let markup = html.utf8
        var index = markup.startIndex
        while let open = markup[index...].firstIndex(of: UInt8(ascii: "<")) {
            guard let close = markup[open...].firstIndex(of: UInt8(ascii: ">")) else { return false }
            let tag = String(decoding: markup[open...close], as: UTF8.self).lowercased()
            if paints(tag) { return true }
            index = markup.index(after: close)
            if tag.hasPrefix("<style") {
                let sheetEnd = html[index...].range(of: "</style", options: .caseInsensitive)?.lowerBound ?? html.endIndex
                if paints(html[index..<sheetEnd].lowercased()) { return true }
                index = sheetEnd
            }
        }
        return false
    }

    private static func paints(_ markup: String) -> Bool {
        ["color:", "background", " bgcolor=", " color="].contains { markup.contains($0) }
    }
}
