import Foundation

/// FR-ED-04 tracking pixels: 1×1 / 0×0 images (attributes or inline CSS, any unit), images from the
/// bundled blocklist of email-tracking hosts, images inside hidden elements. Removed even when
/// remote images are allowed (E-06, E-12); `cid:` images are never trackers (E-07).
public struct TrackerBlocklist: Sendable {
    public struct Entry: Sendable, Hashable, Decodable {
        public var domain: String?
        public var host: String?
        public var pathPrefix: String?
        public var service: String?
    }

    public let entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// The list shipped in the package (`Resources/tracker-domains.json`); never updated remotely.
    public static let bundled: TrackerBlocklist = {
        struct File: Decodable { var entries: [Entry] }
        guard let url = Bundle.module.url(forResource: "tracker-domains", withExtension: "json"),
              let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            return TrackerBlocklist(entries: [])
        }
        return TrackerBlocklist(entries: file.entries)
    }()

    /// The entry a URL matches, if any.
    public func match(host: String, path: String) -> Entry? {
        let host = host.lowercased()
        return entries.first { entry in
            let hostMatches: Bool
            if let exact = entry.host {
                hostMatches = host == exact
            } else if let domain = entry.domain {
                hostMatches = host == domain || host.hasSuffix("." + domain)
            } else {
                hostMatches = false
            }
            guard hostMatches else { return false }
            if let prefix = entry.pathPrefix { return path.lowercased().hasPrefix(prefix) }
            return true
        }
    }

    public func matches(url: String) -> Bool {
        guard case .remote(let host) = URLPolicy.classify(url) else { return false }
        return match(host: host, path: Self.path(of: url)) != nil
    }

    static func path(of url: String) -> String {
        let normalized = URLPolicy.normalize(url)
        guard let schemeEnd = normalized.range(of: "//") else { return "/" }
        let afterHost = normalized[schemeEnd.upperBound...]
        guard let slash = afterHost.firstIndex(of: "/") else { return "/" }
        return String(afterHost[slash...])
    }
}

enum TrackerDetector {
    /// 1×1 or 0×0 (or either side 0 or 1) in `width`/`height` attributes or inline CSS, in any unit.
    static func isPixelSized(_ image: HTMLNode) -> Bool {
        var width = image.attribute("width").flatMap(dimension)
        var height = image.attribute("height").flatMap(dimension)
        if let style = image.attribute("style") {
            for declaration in CSSSanitizer.split(style, separator: ";") {
                guard let colon = declaration.firstIndex(of: ":") else { continue }
                let property = declaration[..<colon].trimmingASCIIWhitespace.lowercased()
                let value = String(declaration[declaration.index(after: colon)...])
                if property == "width" || property == "max-width", let size = dimension(value) { width = min(width ?? size, size) }
                if property == "height" || property == "max-height", let size = dimension(value) { height = min(height ?? size, size) }
            }
        }
        guard let width, let height else { return false }
        return width <= 1 && height <= 1
    }

    /// A length in CSS pixels-ish: `1`, `1px`, `0.5pt`, `0em`, `0%`. Values that are not numbers are nil.
    static func dimension(_ text: String) -> Double? {
        let trimmed = text.trimmingASCIIWhitespace.lowercased().replacingImportant
        let number = trimmed.prefix { $0.isNumber || $0 == "." }
        guard !number.isEmpty, let value = Double(number) else { return nil }
        let unit = trimmed.dropFirst(number.count).trimmingASCIIWhitespace
        switch unit {
        case "", "px": return value
        case "pt": return value * 4 / 3
        case "em", "rem": return value * 16
        case "%", "vw", "vh": return value == 0 ? 0 : 100
        case "cm": return value * 37.8
        case "mm": return value * 3.78
        case "in": return value * 96
        default: return nil
        }
    }

    /// `display:none`, `visibility:hidden`, `opacity:0`, or the `hidden` attribute.
    static func hides(_ element: HTMLNode) -> Bool {
        guard !element.attributes.isEmpty else { return false }
        if element.attribute("hidden") != nil { return true }
        guard let style = element.attribute("style")?.lowercased() else { return false }
        for declaration in CSSSanitizer.split(style, separator: ";") {
            guard let colon = declaration.firstIndex(of: ":") else { continue }
            let property = declaration[..<colon].trimmingASCIIWhitespace
            let value = String(declaration[declaration.index(after: colon)...]).trimmingASCIIWhitespace.replacingImportant
            switch property {
            case "display" where value == "none": return true
            case "visibility" where value == "hidden" || value == "collapse": return true
            case "opacity": if let number = Double(value), number <= 0.01 { return true }
            case "max-height" where dimension(value) == 0, "max-width" where dimension(value) == 0: return true
            default: break
            }
        }
        return false
    }
}
