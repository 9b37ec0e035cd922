extension Unicode.Scalar {
    /// The bidirectional controls of UAX #9 section 2: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI,
    /// RLI, FSI, PDI. With them `invoice<U+202E>fdp.exe` shows as `invoiceexe.pdf` (issue 21), so
    /// file names drop them and the terminal escapes them.
    public var isBidiControl: Bool {
        switch value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
