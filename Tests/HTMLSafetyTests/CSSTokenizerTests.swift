import Testing

@testable import HTMLSafety

/// `CSSTokenizer` against CSS Syntax Level 3's tokenization (section 4) on the inputs where a
/// tokenizer that splits on bytes goes wrong: where strings, URLs, comments and escapes end.
struct CSSTokenizerTests {
    /// The tokens of `css` as `kind:text`, whitespace as `ws`.
    static func tokens(_ css: String) -> [String] {
        let bytes = Array(css.utf8)[...]
        return CSSTokenizer.tokenize(bytes).map { token in
            token.kind == .whitespace ? "ws" : "\(token.kind):" + String(decoding: bytes[token.start..<token.end], as: UTF8.self)
        }
    }

    @Test(arguments: [
        ("a{b:c}", ["ident:a", "openCurly:{", "ident:b", "colon::", "ident:c", "closeCurly:}"]),
        ("rgb( } )", ["function:rgb(", "ws", "closeCurly:}", "ws", "closeParen:)"]),
        ("'a\nb'", ["badString:'a", "ws", "ident:b", "string:'"]),
        ("\"a\\\nb\" x", ["string:\"a\\\nb\"", "ws", "ident:x"]),
        ("'unterminated", ["string:'unterminated"]),
        ("url(x y) z", ["badURL:url(x y)", "ws", "ident:z"]),
        ("url( a.png )b", ["url:url( a.png )", "ident:b"]),
        ("url(a\\)b)c", ["url:url(a\\)b)", "ident:c"]),
        ("url(\"a\")", ["function:url(", "string:\"a\"", "closeParen:)"]),
        ("u\\72l(a b; } c) d", ["badURL:u\\72l(a b; } c)", "ws", "ident:d"]),
        ("ur/**/l(x)", ["ident:ur", "function:l(", "ident:x", "closeParen:)"]),
        ("1px/**/solid", ["dimension:1px", "ident:solid"]),
        ("/* open", []),
        ("-->x<!--", ["cdc:-->", "ident:x", "cdo:<!--"]),
        ("#a1 #1 # x", ["hash:#a1", "ws", "hash:#1", "ws", "delim:#", "ws", "ident:x"]),
        ("+.5e3% -x --y -", ["percentage:+.5e3%", "ws", "ident:-x", "ws", "ident:--y", "ws", "delim:-"]),
        ("@media\\{ @", ["atKeyword:@media\\{", "ws", "delim:@"]),
        ("wid\\74h: 1px", ["ident:wid\\74h", "colon::", "ws", "dimension:1px"]),
        ("\\\n", ["delim:\\", "ws"]),
        ("é{", ["ident:é", "openCurly:{"])
    ])
    func tokenizesAsCSSSyntax3(_ input: (String, [String])) {
        #expect(Self.tokens(input.0) == input.1, "\(input.0.debugDescription)")
    }

    @Test func blocksAreMatchedByTheirOwnClosers() {
        let tokens = CSSTokenizer.tokenize(Array("a{b(}])}{[}".utf8)[...])
        // The `{` at 1 closes at the `}` after the function; the function's `}` and `]` are its content.
        #expect(tokens[1].partner == 6)
        #expect(tokens[2].partner == 5)
        #expect(tokens[3].partner == -1 && tokens[4].partner == -1)
        // Openers the end of the input closes point past the last token; the last `}` closes nothing.
        #expect(tokens[7].partner == tokens.count && tokens[8].partner == tokens.count)
        #expect(tokens[9].partner == -1)
    }
}
