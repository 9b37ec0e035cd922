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
    /// Entry positions by exact host and by domain, so a lookup costs one probe per label of
    /// the host instead of a walk over the list (the sanitizer asks for every image).
    private let byHost: [String: [Int]]
    private let byDomain: [String: [Int]]
    /// `byDomain`'s keys, for the byte-wise walk of `hasDomainEntry`.
    private let domainKeys: ASCIIKeywordSet

    public init(entries: [Entry]) {
        self.entries = entries
        var byHost: [String: [Int]] = [:]
        var byDomain: [String: [Int]] = [:]
        for (position, entry) in entries.enumerated() {
            if let host = entry.host {
                byHost[host.lowercased(), default: []].append(position)
            } else if let domain = entry.domain {
                byDomain[domain.lowercased(), default: []].append(position)
            }
        }
        self.byHost = byHost
        self.byDomain = byDomain
        domainKeys = ASCIIKeywordSet(Array(byDomain.keys))
    }

    /// The list shipped in the package (`Resources/tracker-domains.json`); never updated remotely.
    public static let bundled: TrackerBlocklist = {
        struct File: Decodable { var entries: [Entry] }
        guard let url = Bundle.module.url(forResource: "tracker-domains", withExtension: "json"),
              let data = try? Data(contentsOf: url), let file = try? JSONDecoder().decode(File.self, from: data) else {
            return TrackerBlocklist(entries: [])
        }
        return TrackerBlocklist(entries: file.entries)
    }()

    /// The entry a URL matches, if any: the first in file order.
    public func match(host: String, path: String) -> Entry? {
        let host = host.lowercased()
        var candidates = byHost[host] ?? []
        // The host and every parent domain: "a.b.example" → "a.b.example", "b.example", "example".
        var suffix = Substring(host)
        while true {
            candidates += byDomain[String(suffix)] ?? []
            guard let dot = suffix.firstIndex(of: ".") else { break }
            suffix = suffix[suffix.index(after: dot)...]
        }
        guard !candidates.isEmpty else { return nil }
        let lowerPath = path.lowercased()
        return candidates.sorted().lazy.map { entries[$0] }.first { entry in
            entry.pathPrefix.map { lowerPath.hasPrefix($0) } ?? true
        }
    }

    public func matches(url: String) -> Bool { matches(url: Array(url.utf8)) }

    func matches(url: [UInt8]) -> Bool {
        guard case .remote(let host) = URLPolicy.classify(bytes: url) else { return false }
        return matches(url: url, lowercasedHost: host)
    }

    /// For a remote URL already classified (`host` as `URLPolicy` gives it, lowercased): the path
    /// is read only when an entry names the host or one of its domains, which is rare.
    func matches(url: [UInt8], lowercasedHost host: String) -> Bool {
        guard byHost[host] != nil || hasDomainEntry(for: host) else { return false }
        return match(host: host, path: Self.path(of: url)) != nil
    }

    /// The host and each parent domain looked up on bytes, without a string per label.
    private func hasDomainEntry(for host: String) -> Bool {
        guard !byDomain.isEmpty else { return false }
        var host = host
        return host.withUTF8 { bytes in
            var start = 0
            while true {
                if domainKeys.index(of: bytes[start...]) != nil { return true }
                guard let dot = bytes[start...].firstIndex(of: 46) else { return false }
                start = dot + 1
            }
        }
    }

    static func path(of url: [UInt8]) -> String {
        let normalized = URLPolicy.normalize(bytes: url)
        var index = 0
        while index + 1 < normalized.count, !(normalized[index] == 47 && normalized[index + 1] == 47) { index += 1 }
        guard index + 1 < normalized.count else { return "/" }
        let afterHost = normalized[(index + 2)...]
        guard let slash = afterHost.firstIndex(of: 47) else { return "/" }
        return String(decoding: afterHost[slash...], as: UTF8.self)
    }
}

enum TrackerDetector {
    /// 1×1 or 0×0 (or either side 0 or 1) in `width`/`height` attributes, inline CSS or the
    /// document's style rules (`HidingStyleRules`), in any unit.
    static func isPixelSized(_ image: HTMLNode, ruleWidth: Double? = nil, ruleHeight: Double? = nil) -> Bool {
        var width = image.attributeBytes("width").flatMap { dimension($0[...]) }
        var height = image.attributeBytes("height").flatMap { dimension($0[...]) }
        if let style = image.attributeBytes("style") {
            ASCIIBytes.forEachDeclaration(in: style[...]) { property, value in
                if ASCIIBytes.equals(property, "width") || ASCIIBytes.equals(property, "max-width"), let size = dimension(value) {
                    width = min(width ?? size, size)
                }
                if ASCIIBytes.equals(property, "height") || ASCIIBytes.equals(property, "max-height"), let size = dimension(value) {
                    height = min(height ?? size, size)
                }
            }
        }
        if let ruleWidth { width = min(width ?? ruleWidth, ruleWidth) }
        if let ruleHeight { height = min(height ?? ruleHeight, ruleHeight) }
        guard let width, let height else { return false }
        return width <= 1 && height <= 1
    }

    static func dimension(_ text: String) -> Double? { dimension(Array(text.utf8)[...]) }

    /// A length in CSS pixels-ish: `1`, `1px`, `0.5pt`, `0em`, `0%`. Values that are not numbers are nil.
    static func dimension(_ text: ArraySlice<UInt8>) -> Double? {
        let trimmed = ASCIIBytes.withoutImportant(ASCIIBytes.trimmed(text))
        let number = trimmed.prefix { ($0 >= 48 && $0 <= 57) || $0 == 46 }
        guard !number.isEmpty, let value = Double(String(decoding: number, as: UTF8.self)) else { return nil }
        let unit = ASCIIBytes.trimmed(trimmed[number.endIndex...])
        switch true {
        case unit.isEmpty, ASCIIBytes.equals(unit, "px"): return value
        case ASCIIBytes.equals(unit, "pt"): return value * 4 / 3
        case ASCIIBytes.equals(unit, "em"), ASCIIBytes.equals(unit, "rem"): return value * 16
        case ASCIIBytes.equals(unit, "%"), ASCIIBytes.equals(unit, "vw"), ASCIIBytes.equals(unit, "vh"): return value == 0 ? 0 : 100
        case ASCIIBytes.equals(unit, "cm"): return value * 37.8
        case ASCIIBytes.equals(unit, "mm"): return value * 3.78
        case ASCIIBytes.equals(unit, "in"): return value * 96
        default: return nil
        }
    }

    /// `display:none`, `visibility:hidden`, `opacity:0`, or the `hidden` attribute.
    static func hides(_ element: HTMLNode) -> Bool {
        guard !element.attributes.isEmpty else { return false }
        if element.attributeBytes("hidden") != nil { return true }
        guard let style = element.attributeBytes("style") else { return false }
        return hides(style: style)
    }

    /// Whether a style attribute's declarations hide its element.
    static func hides(style: [UInt8]) -> Bool {
        var hidden = false
        ASCIIBytes.forEachDeclaration(in: style[...]) { property, rawValue in
            guard !hidden else { return }
            let value = ASCIIBytes.withoutImportant(rawValue)
            if ASCIIBytes.equals(property, "display") {
                hidden = ASCIIBytes.equals(value, "none")
            } else if ASCIIBytes.equals(property, "visibility") {
                hidden = ASCIIBytes.equals(value, "hidden") || ASCIIBytes.equals(value, "collapse")
            } else if ASCIIBytes.equals(property, "opacity") {
                if let number = Double(String(decoding: value, as: UTF8.self)), number <= 0.01 { hidden = true }
            } else if ASCIIBytes.equals(property, "max-height") || ASCIIBytes.equals(property, "max-width") {
                hidden = dimension(value) == 0
            }
        }
        return hidden
    }
}
