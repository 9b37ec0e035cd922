/// Left-aligned columns for terminal output. Cells are one line each (`TerminalText.line`): a
/// subject with a newline or an escape sequence in it cannot start a row of its own.
struct TextTable {
    var header: [String]
    var rows: [[String]]

    var rendered: String {
        let all = ([header] + rows).map { $0.map(TerminalText.line) }
        let widths = header.indices.map { column in all.map { DisplayWidth.columns(of: $0[column]) }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[index] - DisplayWidth.columns(of: cell))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}

/// How many terminal columns a text takes (issue 22: a table of Japanese or Chinese subjects was
/// misaligned): East Asian Wide and Fullwidth characters and emoji shown as emoji take two, as
/// terminals draw them (Unicode UAX #11); a grapheme's combining marks take none.
enum DisplayWidth {
    static func columns(of text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .control: return 0
        default: break
        }
        if first.properties.isEmojiPresentation || scalars.contains(where: { $0.value == 0xFE0F }) && first.properties.isEmoji { return 2 }
        return isWide(first.value) ? 2 : 1
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks of EastAsianWidth.txt, emoji aside.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
            0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4,
            0x17000...0x18AFF, 0x1B000...0x1B2FF, 0x1F200...0x1F2FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            true
        default:
            false
        }
    }
}
