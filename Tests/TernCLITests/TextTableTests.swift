import Testing

@testable import TernCLI

/// Issue 22: columns line up whatever script the cells are in, counted in terminal columns.
@Suite struct TextTableTests {
    @Test(arguments: [
        ("abc", 3), ("会議の議事録", 12), ("회의", 4), ("ＡＢ", 4), ("e\u{301}te\u{301}", 3), ("🎉 ok", 5), ("❤️", 2),
        ("a\u{200B}b", 2), ("Größe", 5)
    ])
    func displayWidthCountsColumns(text: String, columns: Int) {
        #expect(DisplayWidth.columns(of: text) == columns)
    }

    @Test func wideCellsKeepTheNextColumnAligned() {
        let table = TextTable(header: ["SUBJECT", "FROM"], rows: [["会議の議事録", "Ken"], ["Plan", "Ana"], ["🎉 launch", "Bo"]])
        let starts = table.rendered.split(separator: "\n").map { line in
            let column = line.split(separator: " ", omittingEmptySubsequences: false)
            return DisplayWidth.columns(of: String(line)) - DisplayWidth.columns(of: String(column.last ?? ""))
        }
        #expect(Set(starts).count == 1, "every row's last column starts at the same terminal column: \(starts)")
    }
}
