import Foundation

/// The generated part of the tracker blocklist (`Resources/tracker-hosts.txt`, written by
/// `scripts/gen_tracker_list.py` from the permissively licensed lists in `ThirdParty/`): lines of
/// `host`, `host/path-prefix` or `@host` (an exception), sorted by the host's bytes read from the end.
///
/// Kept as the file's own bytes with one small record per line and searched by bisection on the
/// host read backwards, so that loading costs a scan of the file (no string, dictionary or
/// decoder per entry: the list is read at the first sanitize of every `tern` process) and a lookup
/// costs one bisection per label of the host (`a.b.example` → `a.b.example`, `b.example`, …),
/// a few short comparisons each (docs/decisions.md, "The bundled tracker list").
struct TrackerHostList: Sendable {
    private struct Line: Sendable {
        /// Where the host starts in `text` (after `@`), its length, and the path prefix's length
        /// right after it (0 when the line has none).
        var hostStart: UInt32
        var hostLength: UInt16
        var pathLength: UInt16
        var isException: Bool
    }

    private let text: [UInt8]
    private let lines: [Line]

    var count: Int { lines.count }

    /// `text` is the file's content: lines starting with `#` and empty lines are skipped, and
    /// lines out of order are sorted (the generator writes them in order, so this is a check).
    init(text: [UInt8]) {
        self.text = text
        var lines: [Line] = []
        lines.reserveCapacity(text.count / 20)
        text.withUnsafeBufferPointer { bytes in
            guard let base = bytes.baseAddress else { return }
            var start = 0
            while start < bytes.count {
                let end =
                    memchr(base + start, 10, bytes.count - start).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) - base }
                    ?? bytes.count
                if end > start, bytes[start] != 35 {
                    let isException = bytes[start] == 64
                    let hostStart = isException ? start + 1 : start
                    var hostEnd = hostStart
                    while hostEnd < end, bytes[hostEnd] != 47 { hostEnd += 1 }
                    var lineEnd = end
                    while lineEnd > hostEnd, ASCIIBytes.isSpace(bytes[lineEnd - 1]) { lineEnd -= 1 }
                    let hostLength = hostEnd - hostStart
                    let pathLength = lineEnd - hostEnd
                    if hostLength > 0, hostLength <= Int(UInt16.max), pathLength <= Int(UInt16.max), hostStart <= Int(UInt32.max) {
                        lines.append(
                            Line(
                                hostStart: UInt32(hostStart), hostLength: UInt16(hostLength),
                                pathLength: UInt16(pathLength), isException: isException))
                    }
                }
                start = end + 1
            }
        }
        let isSorted = text.withUnsafeBufferPointer { bytes in
            zip(lines, lines.dropFirst()).allSatisfy { Self.compare(bytes, $0, bytes, $1) <= 0 }
        }
        if !isSorted {
            text.withUnsafeBufferPointer { bytes in lines.sort { Self.compare(bytes, $0, bytes, $1) < 0 } }
        }
        self.lines = lines
    }

    /// What the list says about a host (lowercase ASCII, as `URLPolicy` gives it): the most
    /// specific listed name wins, so an exception for `img.example.com` lets it through even
    /// where `example.com` is listed. `path` is asked for only when a path entry needs it.
    func match(host: UnsafeBufferPointer<UInt8>, path: () -> [UInt8]) -> (host: String, pathPrefix: String?)? {
        var suffixStart = 0
        var lowercasedPath: [UInt8]?
        return text.withUnsafeBufferPointer { text in
            while suffixStart < host.count {
                let suffix = UnsafeBufferPointer(rebasing: host[suffixStart...])
                var index = firstIndex(notBelow: suffix, in: text)
                while index < lines.count, Self.compare(suffix, text, lines[index]) == 0 {
                    let line = lines[index]
                    if line.isException { return nil }
                    let pathStart = Int(line.hostStart) + Int(line.hostLength)
                    let prefix = text[pathStart..<(pathStart + Int(line.pathLength))]
                    if prefix.isEmpty { return (String(decoding: suffix, as: UTF8.self), nil) }
                    if lowercasedPath == nil { lowercasedPath = path().map(URLPolicy.lowercased) }
                    if lowercasedPath!.starts(with: prefix) {
                        return (String(decoding: suffix, as: UTF8.self), String(decoding: prefix, as: UTF8.self))
                    }
                    index += 1
                }
                guard let dot = suffix.firstIndex(of: 46) else { break }
                suffixStart += dot + 1
            }
            return nil
        }
    }

    /// The first line whose host is not below `key` in the list's order.
    private func firstIndex(notBelow key: UnsafeBufferPointer<UInt8>, in text: UnsafeBufferPointer<UInt8>) -> Int {
        var low = 0
        var high = lines.count
        while low < high {
            let middle = (low + high) / 2
            if Self.compare(key, text, lines[middle]) > 0 { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// `key` against a line's host, both read from the last byte to the first.
    private static func compare(_ key: UnsafeBufferPointer<UInt8>, _ text: UnsafeBufferPointer<UInt8>, _ line: Line) -> Int {
        let hostEnd = Int(line.hostStart) + Int(line.hostLength)
        return compareBackwards(key, key.count, text, hostEnd, Int(line.hostLength))
    }

    /// Two lines in the list's order: host read backwards, then path, then the exception first.
    private static func compare(_ a: UnsafeBufferPointer<UInt8>, _ left: Line, _ b: UnsafeBufferPointer<UInt8>, _ right: Line) -> Int {
        let leftEnd = Int(left.hostStart) + Int(left.hostLength)
        let rightEnd = Int(right.hostStart) + Int(right.hostLength)
        let byHost = compareBackwards(
            UnsafeBufferPointer(rebasing: a[Int(left.hostStart)..<leftEnd]), Int(left.hostLength),
            b, rightEnd, Int(right.hostLength))
        if byHost != 0 { return byHost }
        let leftPath = a[leftEnd..<(leftEnd + Int(left.pathLength))]
        let rightPath = b[rightEnd..<(rightEnd + Int(right.pathLength))]
        if leftPath.elementsEqual(rightPath) { return left.isException == right.isException ? 0 : left.isException ? -1 : 1 }
        return leftPath.lexicographicallyPrecedes(rightPath) ? -1 : 1
    }

    private static func compareBackwards(
        _ key: UnsafeBufferPointer<UInt8>, _ keyLength: Int,
        _ text: UnsafeBufferPointer<UInt8>, _ hostEnd: Int, _ hostLength: Int
    ) -> Int {
        let shared = min(keyLength, hostLength)
        var offset = 1
        while offset <= shared {
            let left = key[keyLength - offset]
            let right = text[hostEnd - offset]
            if left != right { return left < right ? -1 : 1 }
            offset += 1
        }
        return keyLength == hostLength ? 0 : keyLength < hostLength ? -1 : 1
    }
}
