import Foundation

/// The html5lib-tests suites (MIT, see html5lib-tests/LICENSE), copied into the repository so CI
/// needs nothing outside the clone.
enum Html5libData {
    static let directory: URL = {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("html5lib-tests")
    }()

    static func files(_ subdirectory: String, suffix: String) -> [URL] {
        let folder = directory.appendingPathComponent(subdirectory)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter { $0.hasSuffix(suffix) }.sorted().map { folder.appendingPathComponent($0) }
    }

    /// `\uXXXX` escapes of "doubleEscaped" tests; nil when the text holds a lone surrogate, which
    /// UTF-8 bytes (what Tern's tokenizer reads) cannot carry.
    static func unescape(_ text: String) -> String? {
        var scalars: [UInt32] = []
        var units = Array(text.unicodeScalars)
        var index = 0
        while index < units.count {
            if units[index] == "\\", index + 5 < units.count + 0, units[index + 1] == "u",
                let value = UInt32(String(String.UnicodeScalarView(units[(index + 2)..<(index + 6)])), radix: 16)
            {
                scalars.append(value)
                index += 6
            } else {
                scalars.append(units[index].value)
                index += 1
            }
        }
        units = []
        var result = ""
        var position = 0
        while position < scalars.count {
            let value = scalars[position]
            if value >= 0xD800, value <= 0xDBFF, position + 1 < scalars.count, scalars[position + 1] >= 0xDC00, scalars[position + 1] <= 0xDFFF {
                let combined = 0x10000 + ((value - 0xD800) << 10) + (scalars[position + 1] - 0xDC00)
                result.unicodeScalars.append(Unicode.Scalar(combined)!)
                position += 2
                continue
            }
            guard let scalar = Unicode.Scalar(value) else { return nil }
            result.unicodeScalars.append(scalar)
            position += 1
        }
        return result
    }
}
