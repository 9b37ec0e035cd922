/// Issue 39: a message body's frame is as tall as its content, so inside it the viewport's height
/// is the content's own: a length in `vh` (or `svh`, `lvh`, `dvh`, `vb`, `vmin`, `vmax`) grows with
/// the frame it sizes, and a `height: 100vh` block deep in a newsletter was cut, or stretched the
/// frame without end. Such lengths are written as pixels of a nominal viewport, the size a mail
/// client's reading pane has on a laptop: what the sender designed for, fixed whatever the frame.
/// Widths (`vw`, `vi`) follow the frame's width, which the layout sets, and stay.
enum ViewportLengths {
    /// The nominal viewport's height (and, for `vmin` and `vmax`, its other side), in CSS pixels.
    static let nominalHeight = 800.0
    static let heightUnits: Set<String> = [
        "vh", "svh", "lvh", "dvh", "vb", "svb", "lvb", "dvb", "vmin", "vmax", "svmin", "svmax", "lvmin", "lvmax", "dvmin", "dvmax"
    ]

    /// `50vh` → `400px`; nil for any other dimension, or a number too large to mean anything.
    static func pixels<Bytes: RandomAccessCollection<UInt8>>(forDimension token: Bytes) -> [UInt8]? where Bytes.Index == Int {
        // Most dimensions are `px`, `em`, `%`: none has a `v`.
        guard token.contains(where: { $0 | 0x20 == UInt8(ascii: "v") }) else { return nil }
        var unitStart = token.startIndex
        while unitStart < token.endIndex, Self.isNumberByte(token[unitStart], first: unitStart == token.startIndex) {
            unitStart += 1
        }
        guard unitStart > token.startIndex, unitStart < token.endIndex else { return nil }
        let unit = String(decoding: token[unitStart...], as: UTF8.self).lowercased()
        guard heightUnits.contains(unit),
            let number = Double(String(decoding: token[..<unitStart], as: UTF8.self)), number.isFinite, abs(number) <= 1_000_000
        else { return nil }
        let pixels = (number * nominalHeight / 100 * 100).rounded() / 100
        var text = pixels == pixels.rounded() ? String(Int64(pixels)) : String(pixels)
        text += "px"
        return Array(text.utf8)
    }

    /// A number's bytes: digits, `.`, and a sign first. A number with an exponent (`1e2vh`) is
    /// left as it is: its unit does not read as a viewport's.
    static func isNumberByte(_ byte: UInt8, first: Bool) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."): true
        case UInt8(ascii: "+"), UInt8(ascii: "-"): first
        default: false
        }
    }
}
