/// Reads `Authentication-Results` fields (RFC 8601 section 2.2) for the sender check of issue 32.
/// The field is outside input (a sender can write any number of them, in any shape), so the parser
/// never fails: it returns what it could read, and a `resinfo` it cannot read is skipped to the
/// next `;`. Keywords, methods, results and the authserv-id are lowercased (RFC 8601 section 2.2:
/// case-insensitive); property values are kept as written.
public enum AuthenticationResultsParser {
    /// Results kept per field, and properties per result: Gmail writes four or five results with
    /// three properties; the rest of a longer field is noise or an attack on the store.
    public static let maxResults = 32
    public static let maxProperties = 16
    /// Longer values are cut: a domain name is at most 253 characters (RFC 1035).
    public static let maxValueLength = 256

    /// The fields of a message worth keeping with it: the first `limit`, in field order. The
    /// provider's own field is prepended at delivery, so it is among the first whatever the
    /// sender added below it.
    public static func parse(fields: [HeaderField], limit: Int = 5) -> [AuthenticationResultsField] {
        fields.filter { $0.key == "authentication-results" }.prefix(limit).map { parse($0.rawValue) }
    }

    /// ```
    /// authres-payload = [CFWS] authserv-id
    ///                   [ CFWS authres-version ]
    ///                   ( no-result / 1*resinfo ) [CFWS] CRLF
    /// authserv-id = value
    /// authres-version = 1*DIGIT [CFWS]
    /// no-result = [CFWS] ";" [CFWS] "none"
    /// ```
    public static func parse(_ value: some Collection<UInt8>) -> AuthenticationResultsField {
        var scanner = ParameterScanner(bytes: ArraySlice(value))
        var header = AuthenticationResultsField(authservId: "", results: [])
        scanner.skipCFWS()
        let start = scanner.index
        let authservId = scanner.peek == ASCII.quote ? scanner.readPropertyValue() : scanner.readWord()
        scanner.skipCFWS()
        if scanner.peek == ASCII.equals {
            // No authserv-id: Microsoft's servers begin with `spf=pass …`. Read it as a resinfo.
            scanner.index = start
        } else {
            header.authservId = authservId.lowercasedASCII
            // authres-version, or garbage before the first `;`: nothing to keep either way; but a
            // `method=` after a missing `;` is read as a result.
            let version = scanner.index
            _ = scanner.readWord()
            scanner.skipCFWS()
            if scanner.peek == ASCII.equals { scanner.index = version }
        }
        while header.results.count < maxResults {
            scanner.skipCFWS()
            guard let byte = scanner.peek else { break }
            if byte == ASCII.semicolon {
                scanner.index += 1
                continue
            }
            if let result = readResult(&scanner) { header.results.append(result) }
            scanner.skipToSemicolon()
        }
        return header
    }

    /// ```
    /// resinfo = [CFWS] ";" methodspec [ CFWS reasonspec ] [ CFWS 1*propspec ]
    /// methodspec = [CFWS] method [CFWS] "=" [CFWS] result
    /// method = Keyword [ [CFWS] "/" [CFWS] method-version ]
    /// reasonspec = "reason" [CFWS] "=" [CFWS] value
    /// propspec = ptype [CFWS] "." [CFWS] property [CFWS] "=" pvalue
    /// pvalue = [CFWS] ( value / [ [ local-part ] "@" ] domain-name ) [CFWS]
    /// ```
    /// Nil for `none` (no-result) and for what is not a methodspec; the scanner stops before the
    /// next `;` or at the first thing it cannot read.
    static func readResult(_ scanner: inout ParameterScanner) -> AuthenticationResultsField.MethodResult? {
        var method = scanner.readWord().lowercasedASCII
        scanner.skipCFWS()
        if scanner.peek == ASCII.slash {
            // `dkim/1`: the version says nothing the verdict needs.
            scanner.index += 1
            scanner.skipCFWS()
            _ = scanner.readWord()
            scanner.skipCFWS()
        }
        if let slash = method.firstIndex(of: "/") { method = String(method[..<slash]) }
        guard !method.isEmpty, scanner.peek == ASCII.equals else { return nil }
        scanner.index += 1
        scanner.skipCFWS()
        let result = scanner.readWord().lowercasedASCII
        guard !result.isEmpty else { return nil }
        var methodResult = AuthenticationResultsField.MethodResult(method: method, result: result)
        while methodResult.properties.count < maxProperties {
            scanner.skipCFWS()
            guard let byte = scanner.peek, byte != ASCII.semicolon else { break }
            let key = scanner.readWord().lowercasedASCII
            scanner.skipCFWS()
            guard !key.isEmpty, scanner.peek == ASCII.equals else { break }
            scanner.index += 1
            scanner.skipCFWS()
            let value = String(scanner.readPropertyValue().prefix(maxValueLength))
            // reasonspec is kept out: the verdict reads only `ptype.property`s.
            if key != "reason", key.contains("."), methodResult.properties[key] == nil {
                methodResult.properties[key] = value
            }
        }
        return methodResult
    }
}

extension ParameterScanner {
    var peek: UInt8? { index < bytes.endIndex ? bytes[index] : nil }

    /// CFWS (RFC 5322 section 3.2.2): white space and comments, nested, with quoted pairs.
    mutating func skipCFWS() {
        skipWhitespaceAndComments()
        index = min(index, bytes.endIndex)
    }

    /// A Keyword, a method or a ptype.property: up to white space, a comment, a quote or one of
    /// `;`, `=` and `/`.
    mutating func readWord() -> String {
        let start = index
        while let byte = peek, !ASCII.isWhitespace(byte), byte != ASCII.semicolon, byte != ASCII.equals, byte != ASCII.slash,
            byte != ASCII.openParen, byte != ASCII.quote
        {
            index += 1
        }
        return String(headerBytes: bytes[start..<index])
    }

    /// A `value` (token or quoted-string, RFC 2045) or a `pvalue`'s domain or address: a quoted
    /// string without its quotes, else everything up to white space, a comment or `;` (a DKIM
    /// `header.b` may end in `=` padding).
    mutating func readPropertyValue() -> String {
        guard peek == ASCII.quote else {
            let start = index
            while let byte = peek, !ASCII.isWhitespace(byte), byte != ASCII.semicolon, byte != ASCII.openParen { index += 1 }
            return String(headerBytes: bytes[start..<index])
        }
        index += 1
        var value: [UInt8] = []
        while let byte = peek {
            index += 1
            if byte == ASCII.quote { break }
            if byte == ASCII.backslash, let next = peek {
                value.append(next)
                index += 1
            } else {
                value.append(byte)
            }
        }
        return String(headerBytes: value)
    }

    /// Past what is left of a resinfo that could not be read, to its `;` (outside comments and quotes).
    mutating func skipToSemicolon() {
        while let byte = peek, byte != ASCII.semicolon {
            if byte == ASCII.openParen {
                skipCFWS()
            } else if byte == ASCII.quote {
                _ = readPropertyValue()
            } else {
                index += 1
            }
        }
    }
}

/// One `Authentication-Results` field as read (RFC 8601 section 2.2): the authserv-id and each
/// `resinfo`. The application makes its own record of it (Sync; issue 33: MIME knows no domain types).
public struct AuthenticationResultsField: Sendable, Hashable {
    /// Lowercased; empty when the field had none (Microsoft's servers write the results straight after the colon).
    public var authservId: String
    /// In field order; empty for `none`.
    public var results: [MethodResult]

    public init(authservId: String, results: [MethodResult]) {
        self.authservId = authservId
        self.results = results
    }

    /// One `methodspec` with its properties: `dkim=pass header.d=example.com header.i=@example.com`.
    public struct MethodResult: Sendable, Hashable {
        /// Lowercased, without a method version (`dkim/1` is `dkim`).
        public var method: String
        /// Lowercased: `pass`, `fail`, `none`, `neutral`, `temperror`, …
        public var result: String
        /// `ptype.property` (lowercased) → value as written, quotes removed.
        public var properties: [String: String]

        public init(method: String, result: String, properties: [String: String] = [:]) {
            self.method = method
            self.result = result
            self.properties = properties
        }
    }
}
