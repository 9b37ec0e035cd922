/// Left-aligned columns for terminal output. Cells are one line each (`TerminalText.line`): a
/// subject with a newline or an escape sequence in it cannot start a row of its own.
struct TextTable {
    var header: [String]
    var rows: [[String]]

    var rendered: String {
        let all = ([header] + rows).map { $0.map(TerminalText.line) }
        let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
        return all.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }
}
