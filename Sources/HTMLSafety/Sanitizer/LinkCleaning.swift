import Foundation

/// Issue 37, "links without click tracking": what is known about tracking in links, read from
/// `Resources/link-tracking.txt` (its header says where the data comes from and its licence).
/// Tracking parameters are taken out of every http(s) link; redirectors whose real destination is
/// in the link are unwrapped; links through an opaque click tracker of a mailer are marked. Nothing
/// is ever fetched: what the link holds is all there is to read.
public final class LinkTrackingRules: Sendable {
    /// How a redirector holds its destination.
    enum Form: Sendable {
        /// A query parameter, percent-encoded (Outlook Safe Links, Google, Facebook…).
        case query
        /// Proofpoint URL Defense v2: `u=` with `-XX` for `%XX` and `_` for `/`.
        case proofpointV2
        /// Proofpoint URL Defense v3: `/v3/__URL__;BYTES!…`, each `*` in URL one of BYTES.
        case proofpointV3
        /// The path segment after the redirector's path, percent-encoded (Amazon SES).
        case path
    }

    /// A host, or with `subdomains` the domain and every host under it.
    struct HostPattern: Sendable, Hashable {
        let name: [UInt8]
        let subdomains: Bool

        func matches(_ host: UnsafeBufferPointer<UInt8>) -> Bool {
            guard host.count >= name.count, host.suffix(name.count).elementsEqual(name) else { return false }
            return host.count == name.count || subdomains && host[host.count - name.count - 1] == 46
        }
    }

    struct Redirector: Sendable {
        let host: HostPattern
        let path: [UInt8]
        let parameters: [[UInt8]]
        let form: Form
    }

    struct Tracker: Sendable {
        let host: HostPattern
        let path: [UInt8]
    }

    /// Names taken out exactly (lowercase) and by prefix (`utm_*`).
    let parameters: ASCIIKeywordSet
    let parameterPrefixes: [[UInt8]]
    let redirectors: [Redirector]
    let trackers: [Tracker]
    /// The parameters a tracker's link may carry its destination in.
    let destinationParameters: [[UInt8]]
    /// Redirectors and trackers by the last two labels of their host (`outlook.com`), so that a
    /// link's host costs one lookup in the common case of no match (the sanitizer asks for every link).
    private let hostKeys: ASCIIKeywordSet
    private let redirectorsByKey: [[Int]]
    private let trackersByKey: [[Int]]
    /// Lines of the file that were not understood (the tests hold the shipped file to none).
    public let problems: [String]

    public init(text: String) {
        var exact: [String] = []
        var prefixes: [[UInt8]] = []
        var redirectors: [Redirector] = []
        var trackers: [Tracker] = []
        var destinations: [[UInt8]] = []
        var problems: [String] = []
        func pattern(_ word: Substring) -> HostPattern {
            let lower = word.lowercased()
            return lower.hasPrefix("*.")
                ? HostPattern(name: Array(lower.utf8.dropFirst(2)), subdomains: true) : HostPattern(name: Array(lower.utf8), subdomains: false)
        }
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.prefix { $0 != "#" }
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard let kind = words.first else { continue }
            switch (kind, words.count) {
            case ("param", 2):
                let name = words[1].lowercased()
                if name.hasSuffix("*") { prefixes.append(Array(name.dropLast().utf8)) } else { exact.append(name) }
            case ("redirect", 5):
                let form: Form? =
                    switch words[4] {
                    case "query": .query
                    case "proofpoint-v2": .proofpointV2
                    case "proofpoint-v3": .proofpointV3
                    case "path": .path
                    default: nil
                    }
                guard let form else {
                    problems.append(String(rawLine))
                    continue
                }
                let parameters = words[3] == "-" ? [] : words[3].split(separator: ",").map { Array($0.lowercased().utf8) }
                redirectors.append(Redirector(host: pattern(words[1]), path: Array(words[2].utf8), parameters: parameters, form: form))
            case ("tracker", 2), ("tracker", 3):
                trackers.append(Tracker(host: pattern(words[1]), path: words.count == 3 ? Array(words[2].utf8) : []))
            case ("destination", _) where words.count > 1:
                destinations += words.dropFirst().map { Array($0.lowercased().utf8) }
            default:
                problems.append(String(rawLine))
            }
        }
        parameters = ASCIIKeywordSet(exact)
        parameterPrefixes = prefixes
        self.redirectors = redirectors
        self.trackers = trackers
        destinationParameters = destinations
        self.problems = problems
        var keys: [[UInt8]] = []
        var redirectorsByKey: [[Int]] = []
        var trackersByKey: [[Int]] = []
        func slot(_ host: HostPattern) -> Int {
            let key = Array(Self.lastTwoLabels(host.name[...]))
            if let known = keys.firstIndex(of: key) { return known }
            keys.append(key)
            redirectorsByKey.append([])
            trackersByKey.append([])
            return keys.count - 1
        }
        for (position, redirector) in redirectors.enumerated() { redirectorsByKey[slot(redirector.host)].append(position) }
        for (position, tracker) in trackers.enumerated() { trackersByKey[slot(tracker.host)].append(position) }
        hostKeys = ASCIIKeywordSet(keys.map { String(decoding: $0, as: UTF8.self) })
        self.redirectorsByKey = redirectorsByKey
        self.trackersByKey = trackersByKey
    }

    /// The rules shipped in the binary (embedded at build time); never updated remotely.
    public static let bundled = LinkTrackingRules(text: String(decoding: text, as: UTF8.self))

    /// `Resources/link-tracking.txt`.
    static var text: [UInt8] { PackageResources.link_tracking_txt }

    static func lastTwoLabels<Bytes: BidirectionalCollection<UInt8>>(_ host: Bytes) -> Bytes.SubSequence {
        var dots = 0
        var index = host.endIndex
        while index > host.startIndex {
            let before = host.index(before: index)
            if host[before] == 46 {
                dots += 1
                if dots == 2 { return host[index...] }
            }
            index = before
        }
        return host[...]
    }

    /// The redirectors and trackers that may apply to `host` (lowercase), by its last two labels.
    func candidates(for host: UnsafeBufferPointer<UInt8>) -> (redirectors: [Int], trackers: [Int])? {
        guard let key = hostKeys.index(of: Self.lastTwoLabels(host)) else { return nil }
        return (redirectorsByKey[key], trackersByKey[key])
    }

    func isTrackingParameter(_ name: ArraySlice<UInt8>) -> Bool {
        if parameters.contains(name) { return true }
        for prefix in parameterPrefixes where name.count > prefix.count {
            if zip(name, prefix).allSatisfy({ URLPolicy.lowercased($0) == $1 }) { return true }
        }
        return false
    }
}

/// One link's destination after cleaning (issue 37).
public struct CleanedLink: Sendable, Hashable {
    /// The URL to link to; nil when the link is refused: a wrapper whose destination has a scheme
    /// no link may have (`javascript:`), or wrappers nested past `LinkCleaner.maximumUnwraps`.
    public var url: String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
    var bytes: [UInt8]?
    /// Its host, when it is an http(s) link.
    public var host: String?
    public var parametersRemoved = 0
    public var unwraps = 0
    /// The click tracker the link goes through first, when its destination cannot be known.
    public var trackedHost: String?
}

/// Issue 37: a link's destination without its tracking. Redirectors are unwrapped first (nested
/// ones each in turn, a destination encoded twice decoded twice), then tracking parameters are
/// taken out of the destination, and an opaque click tracker is named. The result cleaned again is
/// itself, which keeps the sanitizer's output its own fixed point.
public enum LinkCleaner {
    /// Wrappers inside wrappers beyond this are hostile: the link is refused.
    static let maximumUnwraps = 8
    /// Decodings of a destination that still reads as an encoded URL (`https%3A%2F%2F…`).
    static let maximumDecodings = 3

    public static func clean(_ url: String, rules: LinkTrackingRules = .bundled) -> CleanedLink {
        guard case .remote(let host) = URLPolicy.classify(url) else { return CleanedLink(bytes: Array(url.utf8)) }
        return clean(bytes: Array(url.utf8), host: host, rules: rules)
    }

    /// `host`: the link's host as `URLPolicy.classify` read it.
    static func clean(bytes raw: [UInt8], host initialHost: String, rules: LinkTrackingRules) -> CleanedLink {
        var url = URLPolicy.normalize(bytes: raw)
        var host = initialHost
        var result = CleanedLink()
        // Most links' hosts are no redirector's and no tracker's: one lookup says so (`candidates`).
        var tracked = false
        while true {
            var hostBytes = host
            let unwrapped: Unwrapped? = hostBytes.withUTF8 { hostBytes in
                guard let candidates = rules.candidates(for: hostBytes) else { return nil }
                let unwrapped = unwrap(url, host: hostBytes, candidates: candidates, rules: rules)
                if unwrapped == nil { tracked = isTracked(url, host: hostBytes, candidates: candidates.trackers, rules: rules) }
                return unwrapped
            }
            guard let unwrapped else { break }
            guard case .destination(let inner) = unwrapped, result.unwraps < maximumUnwraps else { return CleanedLink() }
            result.unwraps += 1
            switch URLPolicy.classify(bytes: inner) {
            case .remote(let innerHost):
                url = inner
                host = innerHost
            case .mailto:
                result.bytes = inner
                return result
            default:
                return CleanedLink()
            }
        }
        let (cleaned, removed) = removingTrackingParameters(from: url, rules: rules)
        result.bytes = cleaned
        result.parametersRemoved = removed
        result.host = host
        if tracked { result.trackedHost = host }
        return result
    }

    enum Unwrapped {
        case destination([UInt8])
        /// A destination with a scheme no link may have.
        case refused
    }

    /// The destination a redirector holds, nil when the link is no redirector (or a tracker's
    /// link that names no destination). A tracker's destination parameter is believed only when
    /// it holds an http(s) or mailto URL: it is a guess, and a guess never refuses a link.
    static func unwrap(
        _ url: [UInt8], host: UnsafeBufferPointer<UInt8>, candidates: (redirectors: [Int], trackers: [Int]), rules: LinkTrackingRules
    ) -> Unwrapped? {
        let parts = URLParts(url)
        for position in candidates.redirectors {
            let redirector = rules.redirectors[position]
            guard redirector.host.matches(host), parts.pathStarts(with: redirector.path) else { continue }
            var encoded: [UInt8]?
            switch redirector.form {
            case .query, .proofpointV2:
                guard let value = parts.firstValue(of: redirector.parameters) else { continue }
                encoded = redirector.form == .query ? Array(value) : value.map { $0 == 45 ? 37 : $0 == 95 ? 47 : $0 }
            case .path:
                let rest = parts.path.dropFirst(redirector.path.count)
                encoded = Array(rest.prefix { $0 != 47 })
            case .proofpointV3:
                guard let decoded = proofpointV3(url[(parts.path.startIndex + redirector.path.count)...]) else { continue }
                return verdict(on: finished(decoded))
            }
            guard let encoded, !encoded.isEmpty else { continue }
            return verdict(on: decoded(encoded))
        }
        for position in candidates.trackers where rules.trackers[position].host.matches(host) {
            guard parts.pathStarts(with: rules.trackers[position].path), let value = parts.firstValue(of: rules.destinationParameters)
            else { continue }
            let destination = decoded(Array(value))
            switch URLPolicy.classify(bytes: destination) {
            case .remote, .mailto: return .destination(destination)
            default: continue
            }
        }
        return nil
    }

    /// A redirector's destination: an http(s) or mailto URL is followed, another scheme refused,
    /// and anything without a scheme is no destination Tern can name (the wrapper stays).
    static func verdict(on destination: [UInt8]) -> Unwrapped? {
        switch URLPolicy.classify(bytes: destination) {
        case .remote, .mailto: .destination(destination)
        case .relative, .fragment: nil
        case .unsafe, .dataImage, .cid: .refused
        }
    }

    /// Percent-decoded, and again while it still reads as an encoded URL (a wrapper around a
    /// wrapper encodes twice).
    static func decoded(_ encoded: [UInt8]) -> [UInt8] {
        var url = URLHost.percentDecoded(encoded[...])
        var rounds = 1
        while rounds < maximumDecodings, readsAsEncodedURL(url) {
            url = URLHost.percentDecoded(url[...])
            rounds += 1
        }
        return finished(url)
    }

    /// Trimmed as a browser trims a URL, controls and spaces inside encoded back: the URL written
    /// reads back as the same bytes.
    static func finished(_ decoded: [UInt8]) -> [UInt8] {
        let url = URLPolicy.normalize(bytes: decoded)
        guard url.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return url }
        var escaped: [UInt8] = []
        for byte in url {
            if byte <= 0x20 || byte == 0x7F {
                escaped += [37, hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 15)]]
            } else {
                escaped.append(byte)
            }
        }
        return escaped
    }

    static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// A scheme followed by `%3A` (`https%3A%2F%2F…`).
    static func readsAsEncodedURL(_ url: [UInt8]) -> Bool {
        guard let first = url.first, URLPolicy.isAlpha(first) else { return false }
        var index = 1
        while index < url.count,
            URLPolicy.isAlpha(url[index]) || (url[index] >= 48 && url[index] <= 57) || url[index] == 43 || url[index] == 45 || url[index] == 46
        {
            index += 1
        }
        return index + 2 < url.count && url[index] == 37 && url[index + 1] == 51 && url[index + 2] | 0x20 == 97
    }

    /// Proofpoint URL Defense v3: `__URL__;BYTES!…` after `/v3/`, where URL is percent-encoded and
    /// each `*` in it stands for the next character of BYTES (base64url, UTF-8), and `**` then a
    /// letter of `A-Za-z0-9-_` for a run of 2, 3, … of them.
    static func proofpointV3(_ rest: ArraySlice<UInt8>) -> [UInt8]? {
        guard let end = ASCIIBytes.firstRange(of: "__;", in: rest) else { return nil }
        let encodedURL = rest[..<end.lowerBound]
        let tail = rest[end.upperBound...]
        let base64 = tail.prefix { $0 != 33 }
        var text = String(decoding: base64, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let replacementData = base64.isEmpty ? Data() : Data(base64Encoded: text) else { return nil }
        let replacements = Array(String(decoding: replacementData, as: UTF8.self).unicodeScalars)
        let scalars = Array(String(decoding: URLHost.percentDecoded(encodedURL), as: UTF8.self).unicodeScalars)
        var next = 0
        var output = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "*" else {
                output.append(scalars[index])
                index += 1
                continue
            }
            var count = 1
            if index + 2 < scalars.count, scalars[index + 1] == "*", let run = runLengths.firstIndex(of: scalars[index + 2]) {
                count = run + 2
                index += 3
            } else {
                index += 1
            }
            guard next + count <= replacements.count else { return nil }
            output.append(contentsOf: replacements[next..<(next + count)])
            next += count
        }
        return Array(String(output).utf8)
    }

    static let runLengths = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".unicodeScalars)

    /// Whether the link goes through an opaque click tracker (`candidates`: those of its host's
    /// domain). Its path is the same before and after its parameters go.
    static func isTracked(_ url: [UInt8], host: UnsafeBufferPointer<UInt8>, candidates: [Int], rules: LinkTrackingRules) -> Bool {
        guard !candidates.isEmpty else { return false }
        let parts = URLParts(url)
        return candidates.contains { position in
            let tracker = rules.trackers[position]
            return tracker.host.matches(host) && parts.pathStarts(with: tracker.path)
        }
    }

    /// The URL without its tracking parameters, and how many went; every other byte is kept as it was.
    static func removingTrackingParameters(from url: [UInt8], rules: LinkTrackingRules) -> ([UInt8], Int) {
        guard url.contains(63) else { return (url, 0) }
        let parts = URLParts(url)
        guard let query = parts.query, !query.isEmpty else { return (url, 0) }
        func isTracking(_ pair: ArraySlice<UInt8>) -> Bool {
            let name = pair.prefix { $0 != 61 }
            guard !name.isEmpty else { return false }
            guard name.contains(37) else { return rules.isTrackingParameter(name) }
            return rules.isTrackingParameter(URLPolicy.decodingUnreserved(Array(name))[...])
        }
        // Read without building anything first: most links keep every parameter.
        var removed = 0
        var start = query.startIndex
        while start <= query.endIndex {
            let end = query[start...].firstIndex(of: 38) ?? query.endIndex
            if isTracking(query[start..<end]) { removed += 1 }
            start = end + 1
        }
        guard removed > 0 else { return (url, 0) }
        var kept: [ArraySlice<UInt8>] = []
        for pair in query.split(separator: 38, omittingEmptySubsequences: false) where !isTracking(pair) { kept.append(pair) }
        var cleaned = Array(url[..<(query.startIndex - 1)])
        if !kept.isEmpty {
            cleaned.append(63)
            for (position, pair) in kept.enumerated() {
                if position > 0 { cleaned.append(38) }
                cleaned += pair
            }
        }
        cleaned += url[query.endIndex...]
        return (cleaned, removed)
    }
}

/// An http(s) URL's path and query, found as `URLPolicy` finds its authority.
struct URLParts {
    /// From the first `/` after the authority (backslashes as written) to the query or fragment.
    let path: ArraySlice<UInt8>
    /// After `?`, to the fragment.
    let query: ArraySlice<UInt8>?

    init(_ url: [UInt8]) {
        guard let colon = url.firstIndex(of: 58) else {
            path = []
            query = nil
            return
        }
        let authority = URLPolicy.authority(of: url[(colon + 1)...])
        let rest = url[authority.endIndex...]
        let pathEnd = rest.firstIndex { $0 == 63 || $0 == 35 } ?? rest.endIndex
        path = rest[..<pathEnd]
        if pathEnd < rest.endIndex, rest[pathEnd] == 63 {
            let queryStart = pathEnd + 1
            query = url[queryStart..<(url[queryStart...].firstIndex(of: 35) ?? url.endIndex)]
        } else {
            query = nil
        }
    }

    /// An empty path is `/`, as the browser requests it.
    func pathStarts(with prefix: [UInt8]) -> Bool {
        path.isEmpty ? prefix.isEmpty || prefix == [47] : path.starts(with: prefix)
    }

    /// The value of the first of `names` (lowercase) the query holds, in the order of `names`.
    func firstValue(of names: [[UInt8]]) -> ArraySlice<UInt8>? {
        guard let query, !names.isEmpty else { return nil }
        var found: (rank: Int, value: ArraySlice<UInt8>)?
        for pair in query.split(separator: 38) {
            let name = pair.prefix { $0 != 61 }
            guard name.count < pair.count,
                let rank = names.firstIndex(where: { wanted in
                    wanted.count == name.count && zip(name, wanted).allSatisfy { URLPolicy.lowercased($0) == $1 }
                })
            else { continue }
            if found.map({ rank < $0.rank }) ?? true { found = (rank, pair[(name.endIndex + 1)...]) }
        }
        return found?.value
    }
}
