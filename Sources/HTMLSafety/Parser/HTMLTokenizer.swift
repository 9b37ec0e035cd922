#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The HTML tokenizer of the WHATWG standard (section 13.2.5), state by state, on UTF-8 bytes.
///
/// Pull-based: `next()` runs the state machine until a token is ready, so the tree builder can
/// switch the tokenizer's state (RCDATA after `<title>`, RAWTEXT after `<style>`…) before the next
/// token is read, as the standard requires. Parse errors are counted, not reported one by one: the
/// sanitizer's job is to read what a browser reads, not to lint.
public struct HTMLTokenizer {
    public enum State: Sendable, Hashable {
        case data, rcdata, rawtext, scriptData, plaintext
        case tagOpen, endTagOpen, tagName
        case rcdataLessThanSign, rcdataEndTagOpen, rcdataEndTagName
        case rawtextLessThanSign, rawtextEndTagOpen, rawtextEndTagName
        case scriptDataLessThanSign, scriptDataEndTagOpen, scriptDataEndTagName
        case scriptDataEscapeStart, scriptDataEscapeStartDash, scriptDataEscaped, scriptDataEscapedDash, scriptDataEscapedDashDash
        case scriptDataEscapedLessThanSign, scriptDataEscapedEndTagOpen, scriptDataEscapedEndTagName
        case scriptDataDoubleEscapeStart, scriptDataDoubleEscaped, scriptDataDoubleEscapedDash, scriptDataDoubleEscapedDashDash
        case scriptDataDoubleEscapedLessThanSign, scriptDataDoubleEscapeEnd
        case beforeAttributeName, attributeName, afterAttributeName, beforeAttributeValue
        case attributeValueDoubleQuoted, attributeValueSingleQuoted, attributeValueUnquoted, afterAttributeValueQuoted
        case selfClosingStartTag, bogusComment, markupDeclarationOpen
        case commentStart, commentStartDash, comment, commentLessThanSign, commentLessThanSignBang
        case commentLessThanSignBangDash, commentLessThanSignBangDashDash, commentEndDash, commentEnd, commentEndBang
        case doctype, beforeDoctypeName, doctypeName, afterDoctypeName
        case afterDoctypePublicKeyword, beforeDoctypePublicIdentifier, doctypePublicIdentifierDoubleQuoted
        case doctypePublicIdentifierSingleQuoted, afterDoctypePublicIdentifier, betweenDoctypePublicAndSystemIdentifiers
        case afterDoctypeSystemKeyword, beforeDoctypeSystemIdentifier, doctypeSystemIdentifierDoubleQuoted
        case doctypeSystemIdentifierSingleQuoted, afterDoctypeSystemIdentifier, bogusDoctype
        case cdataSection, cdataSectionBracket, cdataSectionEnd
        case characterReference, namedCharacterReference, ambiguousAmpersand, numericCharacterReference
        case hexadecimalCharacterReferenceStart, decimalCharacterReferenceStart, hexadecimalCharacterReference
        case decimalCharacterReference, numericCharacterReferenceEnd
    }

    let input: [UInt8]
    var position = 0
    public var state: State = .data
    var returnState: State = .data
    /// Set by the tree builder: CDATA sections are recognised only in foreign content.
    public var allowsCDATA = false
    public private(set) var parseErrors = 0

    /// Tokens ready, `queueStart..<queueEnd`. Emptied by resetting both ends, not by removing the
    /// (moved-out) entries: `removeAll(keepingCapacity:)` for every token was a few percent of parsing.
    private var queue: [HTMLToken] = []
    private var queueStart = 0
    private var queueEnd = 0
    /// The text of the next character token, kept as a run of the input while it is one (`InputRun`).
    private var pendingText = InputRun()
    /// The text of the next character token, for the states that append to it.
    private var text: [UInt8] {
        get { pendingText.whole(in: input) }
        _modify {
            pendingText.moveRunToBuffer(from: input)
            yield &pendingText.buffer
        }
    }
    private var tag = HTMLTag(name: [])
    /// The tag's name as it is read, kept as a run of the input while it is one lowercase run (`InputRun`): a
    /// known name is then looked up in place and never copied (the token gets the shared one).
    private var pendingTagName = InputRun()
    /// The tag's name, for the states that append to it.
    private var tagName: [UInt8] {
        get { pendingTagName.whole(in: input) }
        _modify {
            pendingTagName.moveRunToBuffer(from: input)
            yield &pendingTagName.buffer
        }
    }
    private var tagIsEnd = false
    /// The attribute's name, kept as a run of the input while it is one lowercase run (`InputRun`): a common name is
    /// then looked up in place and never copied, and no buffer is cleared for it.
    private var pendingAttributeName = InputRun()
    /// The attribute's name, for the states that append to it.
    private var attributeName: [UInt8] {
        get { pendingAttributeName.whole(in: input) }
        _modify {
            pendingAttributeName.moveRunToBuffer(from: input)
            yield &pendingAttributeName.buffer
        }
    }
    private var attributeValue: [UInt8] = []
    private var hasAttribute = false
    /// The names of the tag's attributes, kept once it has `attributeSetThreshold` of them.
    private var attributeNames: Set<AttributeName> = []
    /// The last start tag's name: a known one as its position in `elementNames` plus one (a number,
    /// where keeping the name retained and released a buffer for every start tag), another in
    /// `lastStartTagName` (with `lastStartTagIndex` 0).
    private var lastStartTagIndex: UInt8 = 0
    private var lastStartTagName: [UInt8] = []
    private var temporaryBuffer: [UInt8] = []
    private var commentData: [UInt8] = []
    private var doctype = HTMLDoctype()
    private var characterReferenceCode: UInt32 = 0
    private var emittedEOF = false
    /// The name tables asked for every tag and attribute, held by the tokenizer: a `static let` is
    /// reached through a one-time-initialisation check on every read.
    private let elementNames = KnownElementName.keywords
    private let attributeNameTable = Self.commonAttributeNames

    /// `bytes` are UTF-8 (invalid sequences become U+FFFD); CR LF and lone CR become LF, as the
    /// standard's input stream preprocessing says.
    public init(_ bytes: [UInt8]) {
        input = Self.preprocess(bytes)
    }

    /// For tests and fragments: start in another state, as if `lastStartTag` had been seen.
    public init(_ bytes: [UInt8], state: State, lastStartTag: String? = nil) {
        self.init(bytes)
        self.state = state
        if let lastStartTag { lastStartTagName = Array(lastStartTag.utf8) }
    }

    static func preprocess(_ bytes: [UInt8]) -> [UInt8] {
        var valid = bytes
        if !UTF8Validation.isValid(bytes) {
            valid = Array(String(decoding: bytes, as: UTF8.self).utf8)
        }
        guard valid.withUnsafeBufferPointer({ $0.baseAddress.map { memchr($0, 13, valid.count) != nil } ?? false }) else { return valid }
        var output: [UInt8] = []
        output.reserveCapacity(valid.count)
        var index = 0
        while index < valid.count {
            let byte = valid[index]
            if byte == 13 {
                output.append(10)
                if index + 1 < valid.count, valid[index + 1] == 10 { index += 1 }
            } else {
                output.append(byte)
            }
            index += 1
        }
        return output
    }

    // MARK: - Pulling tokens

    /// The next token; `.endOfFile` once the input is used up (and again after).
    public mutating func next() -> HTMLToken {
        while queueStart >= queueEnd {
            queueStart = 0
            queueEnd = 0
            if emittedEOF { return .endOfFile }
            step()
        }
        // Moved out, not copied: the queue keeps no reference to release later.
        var token = HTMLToken.endOfFile
        swap(&token, &queue[queueStart])
        queueStart += 1
        return token
    }

    private mutating func flushText() {
        if pendingText.isRun {
            let run = input.withUnsafeBufferPointer { Array(UnsafeBufferPointer(rebasing: $0[pendingText.range])) }
            pendingText.forgetRun()
            enqueue(.characters(run))
            return
        }
        guard !pendingText.buffer.isEmpty else { return }
        // An exact-sized copy for the token (and the text node it becomes); the buffer, still
        // only ours, is kept for the next run.
        enqueue(.characters(pendingText.buffer.withUnsafeBufferPointer { Array($0) }))
        pendingText.buffer.removeAll(keepingCapacity: true)
    }

    /// Appends `input[start..<end]` to the next character token's text: as the run itself when
    /// the text is that run so far (or nothing yet).
    @inline(__always) private mutating func appendInputRun(_ start: Int, _ end: Int) {
        if !pendingText.extendRun(start, end) { text.appendBytes(of: input[start..<end]) }
    }

    /// Tokens are consumed, not copied, on their way into the queue (a retain and a release fewer
    /// for each array a token holds).
    private mutating func enqueue(_ token: consuming HTMLToken) {
        if queueEnd < queue.count {
            queue[queueEnd] = token
        } else {
            queue.append(token)
        }
        queueEnd += 1
    }

    private mutating func emit(_ token: consuming HTMLToken) {
        flushText()
        enqueue(token)
    }

    private mutating func emitEOF() {
        flushText()
        enqueue(.endOfFile)
        emittedEOF = true
    }

    private mutating func error() { parseErrors += 1 }

    // MARK: - Input

    private var atEnd: Bool { position >= input.count }

    /// The next byte, consumed; nil at the end of input.
    private mutating func consume() -> UInt8? {
        guard position < input.count else {
            position += 1 // so that "reconsume" after EOF stays at EOF
            return nil
        }
        let byte = input.withUnsafeBufferPointer { $0[position] }
        position += 1
        return byte
    }

    private mutating func reconsume(in newState: State) {
        position -= 1
        state = newState
    }

    /// The position of the first byte from the current one that `stop` accepts, or the end: the
    /// fast paths over text and attribute values, on the buffer without bounds-checked indexing.
    /// `firstStop` for the three bytes that end a run of text or of a quoted attribute value,
    /// eight bytes at a time (SWAR: a lane of `word ^ target` is zero where the byte is the
    /// target); the scalar loop finishes the run.
    @inline(__always) private func firstOf(_ a: UInt8, _ b: UInt8, _ c: UInt8) -> Int {
        input.withUnsafeBufferPointer { buffer in
            var index = position
            if let base = buffer.baseAddress {
                let lanes: UInt64 = 0x0101_0101_0101_0101
                let (wa, wb, wc) = (UInt64(a) &* lanes, UInt64(b) &* lanes, UInt64(c) &* lanes)
                @inline(__always) func hasZeroLane(_ word: UInt64) -> Bool { (word &- lanes) & ~word & 0x8080_8080_8080_8080 != 0 }
                while index + 8 <= buffer.count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    if hasZeroLane(word ^ wa) || hasZeroLane(word ^ wb) || hasZeroLane(word ^ wc) { break }
                    index += 8
                }
            }
            while index < buffer.count {
                let byte = buffer[index]
                if byte == a || byte == b || byte == c { break }
                index += 1
            }
            return index
        }
    }

    @inline(__always) private func firstStop(_ stop: (UInt8) -> Bool) -> Int {
        input.withUnsafeBufferPointer { buffer in
            var index = position
            while index < buffer.count, !stop(buffer[index]) { index += 1 }
            return index
        }
    }

    /// `input[range]`, ASCII-lowercased, appended to `output` (tag and attribute names).
    @inline(__always) private static func appendLowered(_ input: [UInt8], _ range: Range<Int>, to output: inout [UInt8]) {
        input.withUnsafeBufferPointer { buffer in
            let bytes = UnsafeBufferPointer(rebasing: buffer[range])
            // Mail writes its names in lowercase: then the run is copied whole.
            if bytes.contains(where: { $0 >= 65 && $0 <= 90 }) {
                output.append(contentsOf: bytes.lazy.map(lower))
            } else {
                output.append(contentsOf: bytes)
            }
        }
    }

    /// Case-insensitive match of ASCII `word` at the current position (not consumed).
    private func lookahead(_ word: String, caseInsensitive: Bool) -> Bool {
        let bytes = Array(word.utf8)
        guard position + bytes.count <= input.count else { return false }
        for (offset, byte) in bytes.enumerated() {
            let actual = input[position + offset]
            if caseInsensitive ? Self.lower(actual) != byte : actual != byte { return false }
        }
        return true
    }

    @inline(__always) static func isASCIIAlpha(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) }
    @inline(__always) static func isASCIIDigit(_ b: UInt8) -> Bool { b >= 48 && b <= 57 }
    @inline(__always) static func isASCIIAlphanumeric(_ b: UInt8) -> Bool { isASCIIAlpha(b) || isASCIIDigit(b) }
    @inline(__always) static func isHexDigit(_ b: UInt8) -> Bool { isASCIIDigit(b) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102) }
    @inline(__always) static func isWhitespace(_ b: UInt8) -> Bool { b == 9 || b == 10 || b == 12 || b == 32 }
    @inline(__always) static func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }

    static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    static func appendScalar(_ value: UInt32, to output: inout [UInt8]) {
        guard let scalar = Unicode.Scalar(value) else {
            output += replacement
            return
        }
        output += Array(String(Character(scalar)).utf8)
    }

    // MARK: - Tags and attributes

    private mutating func startTag(end: Bool) {
        tag = HTMLTag(name: [])
        pendingTagName.forgetRun()
        if !pendingTagName.buffer.isEmpty { pendingTagName.buffer.removeAll(keepingCapacity: true) }
        tagIsEnd = end
        hasAttribute = false
        if !attributeNames.isEmpty { attributeNames.removeAll() }
    }

    private mutating func startAttribute() {
        finishAttribute()
        hasAttribute = true
        pendingAttributeName.forgetRun()
        if !pendingAttributeName.buffer.isEmpty { pendingAttributeName.buffer.removeAll(keepingCapacity: true) }
        // Usually empty already: its last bytes went to the attribute they were read for.
        if !attributeValue.isEmpty { attributeValue.removeAll(keepingCapacity: true) }
    }

    /// Past this many attributes a tag's names are looked up in a set: a search of the list for
    /// each new name made a tag with 10,000 attributes take 4.8 s (issue 21).
    static let attributeSetThreshold = 16

    /// A repeated name is a parse error and the later attribute is dropped.
    private mutating func finishAttribute() {
        guard hasAttribute else { return }
        hasAttribute = false
        let isRun = pendingAttributeName.isRun
        let name = isRun ? input[pendingAttributeName.range] : pendingAttributeName.buffer[...]
        pendingAttributeName.forgetRun()
        let repeated: Bool
        if tag.attributes.count < Self.attributeSetThreshold {
            repeated = tag.attributes.contains(where: { Self.equalBytes($0.name, name) })
        } else {
            if attributeNames.isEmpty {
                attributeNames.reserveCapacity(4 * Self.attributeSetThreshold)
                for attribute in tag.attributes { attributeNames.insert(AttributeName(bytes: attribute.name)) }
            }
            repeated = !attributeNames.insert(AttributeName(bytes: Array(name))).inserted
        }
        if repeated {
            error()
        } else {
            // Mail's tags that have attributes mostly have a few: one allocation instead of growing.
            if tag.attributes.isEmpty { tag.attributes.reserveCapacity(4) }
            if let common = attributeNameTable.index(of: name) {
                tag.attributes.append(HTMLAttribute(name: attributeNameTable.word(at: common), value: attributeValue))
            } else if isRun {
                tag.attributes.append(HTMLAttribute(name: Array(name), value: attributeValue))
            } else {
                tag.attributes.append(HTMLAttribute(name: pendingAttributeName.buffer, value: attributeValue))
                pendingAttributeName.buffer = []
            }
            attributeValue = [] // handed over, not copied (see `flushText`)
        }
    }

    @inline(__always) private static func equalBytes(_ bytes: [UInt8], _ other: ArraySlice<UInt8>) -> Bool {
        guard bytes.count == other.count else { return false }
        return bytes.withUnsafeBufferPointer { left in
            other.withUnsafeBufferPointer { right in left.count == 0 || memcmp(left.baseAddress!, right.baseAddress!, left.count) == 0 }
        }
    }

    /// Appends `input[start..<end]` to the tag's name: as the run itself when the name is that
    /// run so far and the bytes need no lowercasing.
    @inline(__always) private mutating func appendTagName(_ start: Int, _ end: Int) {
        guard start < end else { return }
        let lowercase = input.withUnsafeBufferPointer { buffer in
            !UnsafeBufferPointer(rebasing: buffer[start..<end]).contains(where: { $0 >= 65 && $0 <= 90 })
        }
        if !(lowercase && pendingTagName.extendRun(start, end)) { Self.appendLowered(input, start..<end, to: &tagName) }
    }

    /// Appends `input[start..<end]` to the attribute's name: as the run itself when the name is
    /// that run so far and the bytes need no lowercasing.
    @inline(__always) private mutating func appendAttributeName(_ start: Int, _ end: Int) {
        guard start < end else { return }
        let lowercase = input.withUnsafeBufferPointer { buffer in
            !UnsafeBufferPointer(rebasing: buffer[start..<end]).contains(where: { $0 >= 65 && $0 <= 90 })
        }
        if !(lowercase && pendingAttributeName.extendRun(start, end)) { Self.appendLowered(input, start..<end, to: &attributeName) }
    }

    /// Names most mail uses, handed out as shared buffers instead of a copy per attribute.
    static let commonAttributeNames = ASCIIKeywordSet([
        "style", "class", "href", "src", "width", "height", "align", "valign", "border", "alt", "title", "target", "rel",
        "id", "name", "bgcolor", "color", "cellpadding", "cellspacing", "face", "size", "lang", "dir", "role", "type",
        "content", "http-equiv", "charset", "colspan", "rowspan", "srcset", "background", "xmlns", "data-id", "aria-label",
        "aria-hidden", "nowrap", "span", "hspace", "vspace", "summary", "media", "value", "start"
    ])

    private mutating func emitTag() {
        finishAttribute()
        let isRun = pendingTagName.isRun
        // `KnownElementName.index(ofBytes:)`: the position in `keywords`, plus one.
        let position = isRun ? elementNames.index(of: input[pendingTagName.range]) : elementNames.index(of: pendingTagName.buffer)
        let index = position.map { UInt8($0 + 1) } ?? 0
        let name: [UInt8]
        if let position {
            name = elementNames.word(at: position)
        } else if isRun {
            name = Array(input[pendingTagName.range])
        } else {
            name = pendingTagName.buffer
            pendingTagName.buffer = [] // handed over
        }
        let known = HTMLTagName(rawValue: index) ?? .unknown
        if tagIsEnd {
            if !tag.attributes.isEmpty || tag.selfClosing { error() }
            emit(.endTag(HTMLTag(name: name, knownName: known)))
        } else {
            if index != 0 {
                lastStartTagIndex = index
                if !lastStartTagName.isEmpty { lastStartTagName = [] }
            } else {
                lastStartTagIndex = 0
                lastStartTagName = name
            }
            tag.name = name
            tag.knownName = known
            // Handed over: the next `startTag` starts a new one anyway.
            var finished = HTMLTag(name: [])
            swap(&finished, &tag)
            emit(.startTag(finished))
        }
    }

    private var isAppropriateEndTag: Bool {
        guard tagIsEnd, lastStartTagIndex != 0 || !lastStartTagName.isEmpty else { return false }
        let last = lastStartTagIndex != 0 ? elementNames.word(at: Int(lastStartTagIndex) - 1) : lastStartTagName
        return pendingTagName.isRun ? input[pendingTagName.range].elementsEqual(last) : pendingTagName.buffer == last
    }

    private var consumedAsPartOfAttribute: Bool {
        returnState == .attributeValueDoubleQuoted || returnState == .attributeValueSingleQuoted || returnState == .attributeValueUnquoted
    }

    /// Character-reference output goes to the attribute value or to the text, by return state.
    private mutating func flushCodePoints(_ bytes: [UInt8]) {
        if consumedAsPartOfAttribute { attributeValue += bytes } else { text += bytes }
    }

    // MARK: - The state machine

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private mutating func step() {
        // One call runs the states until a token is ready, rather than one call per state.
        repeat {
            switch state {
            case .data:
                // Fast path: plain text up to the next '<', '&' or NUL.
                let start = position
                position = firstOf(60, 38, 0)
                if position > start { appendInputRun(start, position) }
                switch consume() {
                case 38?:
                    returnState = .data
                    state = .characterReference
                case 60?: state = .tagOpen
                case 0?:
                    error()
                    text.append(0)
                case nil: emitEOF()
                default: break
                }
            case .rcdata:
                let start = position
                position = firstOf(60, 38, 0)
                if position > start { appendInputRun(start, position) }
                switch consume() {
                case 38?:
                    returnState = .rcdata
                    state = .characterReference
                case 60?: state = .rcdataLessThanSign
                case 0?:
                    error()
                    text += Self.replacement
                case nil: emitEOF()
                default: break
                }
            case .rawtext, .scriptData:
                let start = position
                position = firstOf(60, 0, 0)
                if position > start { appendInputRun(start, position) }
                switch consume() {
                case 60?: state = state == .rawtext ? .rawtextLessThanSign : .scriptDataLessThanSign
                case 0?:
                    error()
                    text += Self.replacement
                case nil: emitEOF()
                default: break
                }
            case .plaintext:
                switch consume() {
                case 0?:
                    error()
                    text += Self.replacement
                case nil: emitEOF()
                case let b?: text.append(b)
                }
            case .tagOpen:
                switch consume() {
                case 33?: state = .markupDeclarationOpen
                case 47?: state = .endTagOpen
                case let b? where Self.isASCIIAlpha(b):
                    startTag(end: false)
                    reconsume(in: .tagName)
                case 63?:
                    error()
                    commentData = []
                    reconsume(in: .bogusComment)
                case nil:
                    error()
                    text.append(60)
                    emitEOF()
                default:
                    error()
                    text.append(60)
                    reconsume(in: .data)
                }
            case .endTagOpen:
                switch consume() {
                case let b? where Self.isASCIIAlpha(b):
                    startTag(end: true)
                    reconsume(in: .tagName)
                case 62?:
                    error()
                    state = .data
                case nil:
                    error()
                    text += [60, 47]
                    emitEOF()
                default:
                    error()
                    commentData = []
                    reconsume(in: .bogusComment)
                }
            case .tagName:
                // Fast path: the name's bytes up to whatever ends or interrupts it.
                let nameEnd = firstStop { b in b == 9 || b == 10 || b == 12 || b == 32 || b == 47 || b == 62 || b == 0 }
                appendTagName(position, nameEnd)
                position = nameEnd
                switch consume() {
                case let b? where Self.isWhitespace(b): state = .beforeAttributeName
                case 47?: state = .selfClosingStartTag
                case 62?:
                    state = .data
                    emitTag()
                case 0?:
                    error()
                    tagName += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?: tagName.append(Self.lower(b))
                }
            case .rcdataLessThanSign, .rawtextLessThanSign:
                let endOpen: State = state == .rcdataLessThanSign ? .rcdataEndTagOpen : .rawtextEndTagOpen
                let home: State = state == .rcdataLessThanSign ? .rcdata : .rawtext
                if consume() == 47 {
                    temporaryBuffer = []
                    state = endOpen
                } else {
                    text.append(60)
                    reconsume(in: home)
                }
            case .rcdataEndTagOpen, .rawtextEndTagOpen, .scriptDataEndTagOpen, .scriptDataEscapedEndTagOpen:
                let (nameState, home): (State, State) =
                    switch state {
                    case .rcdataEndTagOpen: (.rcdataEndTagName, .rcdata)
                    case .rawtextEndTagOpen: (.rawtextEndTagName, .rawtext)
                    case .scriptDataEndTagOpen: (.scriptDataEndTagName, .scriptData)
                    default: (.scriptDataEscapedEndTagName, .scriptDataEscaped)
                    }
                if let b = consume(), Self.isASCIIAlpha(b) {
                    startTag(end: true)
                    reconsume(in: nameState)
                } else {
                    text += [60, 47]
                    reconsume(in: home)
                }
            case .rcdataEndTagName, .rawtextEndTagName, .scriptDataEndTagName, .scriptDataEscapedEndTagName:
                let home: State =
                    switch state {
                    case .rcdataEndTagName: .rcdata
                    case .rawtextEndTagName: .rawtext
                    case .scriptDataEndTagName: .scriptData
                    default: .scriptDataEscaped
                    }
                let b = consume()
                if let b, Self.isWhitespace(b), isAppropriateEndTag {
                    state = .beforeAttributeName
                } else if b == 47, isAppropriateEndTag {
                    state = .selfClosingStartTag
                } else if b == 62, isAppropriateEndTag {
                    state = .data
                    emitTag()
                } else if let b, Self.isASCIIAlpha(b) {
                    tagName.append(Self.lower(b))
                    temporaryBuffer.append(b)
                } else {
                    text += [60, 47] + temporaryBuffer
                    reconsume(in: home)
                }
            case .scriptDataLessThanSign:
                switch consume() {
                case 47?:
                    temporaryBuffer = []
                    state = .scriptDataEndTagOpen
                case 33?:
                    state = .scriptDataEscapeStart
                    text += [60, 33]
                default:
                    text.append(60)
                    reconsume(in: .scriptData)
                }
            case .scriptDataEscapeStart:
                if consume() == 45 {
                    state = .scriptDataEscapeStartDash
                    text.append(45)
                } else {
                    reconsume(in: .scriptData)
                }
            case .scriptDataEscapeStartDash:
                if consume() == 45 {
                    state = .scriptDataEscapedDashDash
                    text.append(45)
                } else {
                    reconsume(in: .scriptData)
                }
            case .scriptDataEscaped:
                switch consume() {
                case 45?:
                    state = .scriptDataEscapedDash
                    text.append(45)
                case 60?: state = .scriptDataEscapedLessThanSign
                case 0?:
                    error()
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?: text.append(b)
                }
            case .scriptDataEscapedDash:
                switch consume() {
                case 45?:
                    state = .scriptDataEscapedDashDash
                    text.append(45)
                case 60?: state = .scriptDataEscapedLessThanSign
                case 0?:
                    error()
                    state = .scriptDataEscaped
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?:
                    state = .scriptDataEscaped
                    text.append(b)
                }
            case .scriptDataEscapedDashDash:
                switch consume() {
                case 45?: text.append(45)
                case 60?: state = .scriptDataEscapedLessThanSign
                case 62?:
                    state = .scriptData
                    text.append(62)
                case 0?:
                    error()
                    state = .scriptDataEscaped
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?:
                    state = .scriptDataEscaped
                    text.append(b)
                }
            case .scriptDataEscapedLessThanSign:
                switch consume() {
                case 47?:
                    temporaryBuffer = []
                    state = .scriptDataEscapedEndTagOpen
                case let b? where Self.isASCIIAlpha(b):
                    temporaryBuffer = []
                    text.append(60)
                    reconsume(in: .scriptDataDoubleEscapeStart)
                default:
                    text.append(60)
                    reconsume(in: .scriptDataEscaped)
                }
            case .scriptDataDoubleEscapeStart, .scriptDataDoubleEscapeEnd:
                let starting = state == .scriptDataDoubleEscapeStart
                let b = consume()
                if let b, Self.isWhitespace(b) || b == 47 || b == 62 {
                    let isScript = temporaryBuffer == Array("script".utf8)
                    state =
                        starting
                        ? (isScript ? .scriptDataDoubleEscaped : .scriptDataEscaped) : (isScript ? .scriptDataEscaped : .scriptDataDoubleEscaped)
                    text.append(b)
                } else if let b, Self.isASCIIAlpha(b) {
                    temporaryBuffer.append(Self.lower(b))
                    text.append(b)
                } else {
                    reconsume(in: starting ? .scriptDataEscaped : .scriptDataDoubleEscaped)
                }
            case .scriptDataDoubleEscaped:
                switch consume() {
                case 45?:
                    state = .scriptDataDoubleEscapedDash
                    text.append(45)
                case 60?:
                    state = .scriptDataDoubleEscapedLessThanSign
                    text.append(60)
                case 0?:
                    error()
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?: text.append(b)
                }
            case .scriptDataDoubleEscapedDash:
                switch consume() {
                case 45?:
                    state = .scriptDataDoubleEscapedDashDash
                    text.append(45)
                case 60?:
                    state = .scriptDataDoubleEscapedLessThanSign
                    text.append(60)
                case 0?:
                    error()
                    state = .scriptDataDoubleEscaped
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?:
                    state = .scriptDataDoubleEscaped
                    text.append(b)
                }
            case .scriptDataDoubleEscapedDashDash:
                switch consume() {
                case 45?: text.append(45)
                case 60?:
                    state = .scriptDataDoubleEscapedLessThanSign
                    text.append(60)
                case 62?:
                    state = .scriptData
                    text.append(62)
                case 0?:
                    error()
                    state = .scriptDataDoubleEscaped
                    text += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?:
                    state = .scriptDataDoubleEscaped
                    text.append(b)
                }
            case .scriptDataDoubleEscapedLessThanSign:
                if consume() == 47 {
                    temporaryBuffer = []
                    state = .scriptDataDoubleEscapeEnd
                    text.append(47)
                } else {
                    reconsume(in: .scriptDataDoubleEscaped)
                }
            case .beforeAttributeName:
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 47?, 62?, nil: reconsume(in: .afterAttributeName)
                case 61?:
                    error()
                    startAttribute()
                    attributeName = [61]
                    state = .attributeName
                default:
                    startAttribute()
                    reconsume(in: .attributeName)
                }
            case .attributeName:
                let nameEnd = firstStop { b in
                    b == 9 || b == 10 || b == 12 || b == 32 || b == 47 || b == 62 || b == 61 || b == 0 || b == 34 || b == 39 || b == 60
                }
                appendAttributeName(position, nameEnd)
                position = nameEnd
                switch consume() {
                case let b? where Self.isWhitespace(b) || b == 47 || b == 62: reconsume(in: .afterAttributeName)
                case nil: reconsume(in: .afterAttributeName)
                case 61?: state = .beforeAttributeValue
                case 0?:
                    error()
                    attributeName += Self.replacement
                case let b?:
                    if b == 34 || b == 39 || b == 60 { error() }
                    attributeName.append(Self.lower(b))
                }
            case .afterAttributeName:
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 47?: state = .selfClosingStartTag
                case 61?: state = .beforeAttributeValue
                case 62?:
                    state = .data
                    emitTag()
                case nil:
                    error()
                    emitEOF()
                default:
                    startAttribute()
                    reconsume(in: .attributeName)
                }
            case .beforeAttributeValue:
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 34?: state = .attributeValueDoubleQuoted
                case 39?: state = .attributeValueSingleQuoted
                case 62?:
                    error()
                    state = .data
                    emitTag()
                default: reconsume(in: .attributeValueUnquoted)
                }
            case .attributeValueDoubleQuoted, .attributeValueSingleQuoted:
                let quote: UInt8 = state == .attributeValueDoubleQuoted ? 34 : 39
                let start = position
                position = firstOf(quote, 38, 0)
                if position > start { attributeValue.appendBytes(of: input[start..<position]) }
                switch consume() {
                case quote?: state = .afterAttributeValueQuoted
                case 38?:
                    returnState = state
                    state = .characterReference
                case 0?:
                    error()
                    attributeValue += Self.replacement
                case nil:
                    error()
                    emitEOF()
                default: break
                }
            case .attributeValueUnquoted:
                let start = position
                position = firstStop { b in
                    b == 9 || b == 10 || b == 12 || b == 32 || b == 38 || b == 62 || b == 0 || b == 34 || b == 39 || b == 60 || b == 61 || b == 96
                }
                if position > start { attributeValue.appendBytes(of: input[start..<position]) }
                switch consume() {
                case let b? where Self.isWhitespace(b): state = .beforeAttributeName
                case 38?:
                    returnState = .attributeValueUnquoted
                    state = .characterReference
                case 62?:
                    state = .data
                    emitTag()
                case 0?:
                    error()
                    attributeValue += Self.replacement
                case nil:
                    error()
                    emitEOF()
                case let b?:
                    if b == 34 || b == 39 || b == 60 || b == 61 || b == 96 { error() }
                    attributeValue.append(b)
                }
            case .afterAttributeValueQuoted:
                switch consume() {
                case let b? where Self.isWhitespace(b): state = .beforeAttributeName
                case 47?: state = .selfClosingStartTag
                case 62?:
                    state = .data
                    emitTag()
                case nil:
                    error()
                    emitEOF()
                default:
                    error()
                    reconsume(in: .beforeAttributeName)
                }
            case .selfClosingStartTag:
                switch consume() {
                case 62?:
                    tag.selfClosing = true
                    state = .data
                    emitTag()
                case nil:
                    error()
                    emitEOF()
                default:
                    error()
                    reconsume(in: .beforeAttributeName)
                }
            case .bogusComment:
                switch consume() {
                case 62?:
                    state = .data
                    emit(.comment(commentData))
                case nil:
                    emit(.comment(commentData))
                    emitEOF()
                case 0?:
                    error()
                    commentData += Self.replacement
                case let b?: commentData.append(b)
                }
            case .markupDeclarationOpen:
                if lookahead("--", caseInsensitive: false) {
                    position += 2
                    commentData = []
                    state = .commentStart
                } else if lookahead("doctype", caseInsensitive: true) {
                    position += 7
                    state = .doctype
                } else if lookahead("[CDATA[", caseInsensitive: false) {
                    position += 7
                    if allowsCDATA {
                        state = .cdataSection
                    } else {
                        error()
                        commentData = Array("[CDATA[".utf8)
                        state = .bogusComment
                    }
                } else {
                    error()
                    commentData = []
                    state = .bogusComment
                }
            case .commentStart:
                switch consume() {
                case 45?: state = .commentStartDash
                case 62?:
                    error()
                    state = .data
                    emit(.comment(commentData))
                default: reconsume(in: .comment)
                }
            case .commentStartDash:
                switch consume() {
                case 45?: state = .commentEnd
                case 62?:
                    error()
                    state = .data
                    emit(.comment(commentData))
                case nil:
                    error()
                    emit(.comment(commentData))
                    emitEOF()
                default:
                    commentData.append(45)
                    reconsume(in: .comment)
                }
            case .comment:
                switch consume() {
                case 60?:
                    commentData.append(60)
                    state = .commentLessThanSign
                case 45?: state = .commentEndDash
                case 0?:
                    error()
                    commentData += Self.replacement
                case nil:
                    error()
                    emit(.comment(commentData))
                    emitEOF()
                case let b?: commentData.append(b)
                }
            case .commentLessThanSign:
                switch consume() {
                case 33?:
                    commentData.append(33)
                    state = .commentLessThanSignBang
                case 60?: commentData.append(60)
                default: reconsume(in: .comment)
                }
            case .commentLessThanSignBang:
                if consume() == 45 { state = .commentLessThanSignBangDash } else { reconsume(in: .comment) }
            case .commentLessThanSignBangDash:
                if consume() == 45 { state = .commentLessThanSignBangDashDash } else { reconsume(in: .commentEndDash) }
            case .commentLessThanSignBangDashDash:
                let b = consume()
                if b != 62, b != nil { error() }
                reconsume(in: .commentEnd)
            case .commentEndDash:
                switch consume() {
                case 45?: state = .commentEnd
                case nil:
                    error()
                    emit(.comment(commentData))
                    emitEOF()
                default:
                    commentData.append(45)
                    reconsume(in: .comment)
                }
            case .commentEnd:
                switch consume() {
                case 62?:
                    state = .data
                    emit(.comment(commentData))
                case 33?: state = .commentEndBang
                case 45?: commentData.append(45)
                case nil:
                    error()
                    emit(.comment(commentData))
                    emitEOF()
                default:
                    commentData += [45, 45]
                    reconsume(in: .comment)
                }
            case .commentEndBang:
                switch consume() {
                case 45?:
                    commentData += [45, 45, 33]
                    state = .commentEndDash
                case 62?:
                    error()
                    state = .data
                    emit(.comment(commentData))
                case nil:
                    error()
                    emit(.comment(commentData))
                    emitEOF()
                default:
                    commentData += [45, 45, 33]
                    reconsume(in: .comment)
                }
            case .doctype:
                switch consume() {
                case let b? where Self.isWhitespace(b): state = .beforeDoctypeName
                case 62?: reconsume(in: .beforeDoctypeName)
                case nil:
                    error()
                    emit(.doctype(HTMLDoctype(forceQuirks: true)))
                    emitEOF()
                default:
                    error()
                    reconsume(in: .beforeDoctypeName)
                }
            case .beforeDoctypeName:
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 0?:
                    error()
                    doctype = HTMLDoctype(name: Self.replacement)
                    state = .doctypeName
                case 62?:
                    error()
                    state = .data
                    emit(.doctype(HTMLDoctype(forceQuirks: true)))
                case nil:
                    error()
                    emit(.doctype(HTMLDoctype(forceQuirks: true)))
                    emitEOF()
                case let b?:
                    doctype = HTMLDoctype(name: [Self.lower(b)])
                    state = .doctypeName
                }
            case .doctypeName:
                switch consume() {
                case let b? where Self.isWhitespace(b): state = .afterDoctypeName
                case 62?:
                    state = .data
                    emit(.doctype(doctype))
                case 0?:
                    error()
                    doctype.name! += Self.replacement
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                case let b?: doctype.name!.append(Self.lower(b))
                }
            case .afterDoctypeName:
                if let b = input.indices.contains(position) ? input[position] : nil, Self.isWhitespace(b) {
                    position += 1
                } else if atEnd {
                    position += 1
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                } else if input[position] == 62 {
                    position += 1
                    state = .data
                    emit(.doctype(doctype))
                } else if lookahead("public", caseInsensitive: true) {
                    position += 6
                    state = .afterDoctypePublicKeyword
                } else if lookahead("system", caseInsensitive: true) {
                    position += 6
                    state = .afterDoctypeSystemKeyword
                } else {
                    error()
                    doctype.forceQuirks = true
                    state = .bogusDoctype
                }
            case .afterDoctypePublicKeyword, .afterDoctypeSystemKeyword:
                let isPublic = state == .afterDoctypePublicKeyword
                switch consume() {
                case let b? where Self.isWhitespace(b): state = isPublic ? .beforeDoctypePublicIdentifier : .beforeDoctypeSystemIdentifier
                case 34?:
                    error()
                    if isPublic { doctype.publicIdentifier = [] } else { doctype.systemIdentifier = [] }
                    state = isPublic ? .doctypePublicIdentifierDoubleQuoted : .doctypeSystemIdentifierDoubleQuoted
                case 39?:
                    error()
                    if isPublic { doctype.publicIdentifier = [] } else { doctype.systemIdentifier = [] }
                    state = isPublic ? .doctypePublicIdentifierSingleQuoted : .doctypeSystemIdentifierSingleQuoted
                case 62?:
                    error()
                    doctype.forceQuirks = true
                    state = .data
                    emit(.doctype(doctype))
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                default:
                    error()
                    doctype.forceQuirks = true
                    reconsume(in: .bogusDoctype)
                }
            case .beforeDoctypePublicIdentifier, .beforeDoctypeSystemIdentifier:
                let isPublic = state == .beforeDoctypePublicIdentifier
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 34?:
                    if isPublic { doctype.publicIdentifier = [] } else { doctype.systemIdentifier = [] }
                    state = isPublic ? .doctypePublicIdentifierDoubleQuoted : .doctypeSystemIdentifierDoubleQuoted
                case 39?:
                    if isPublic { doctype.publicIdentifier = [] } else { doctype.systemIdentifier = [] }
                    state = isPublic ? .doctypePublicIdentifierSingleQuoted : .doctypeSystemIdentifierSingleQuoted
                case 62?:
                    error()
                    doctype.forceQuirks = true
                    state = .data
                    emit(.doctype(doctype))
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                default:
                    error()
                    doctype.forceQuirks = true
                    reconsume(in: .bogusDoctype)
                }
            case .doctypePublicIdentifierDoubleQuoted, .doctypePublicIdentifierSingleQuoted,
                .doctypeSystemIdentifierDoubleQuoted, .doctypeSystemIdentifierSingleQuoted:
                let isPublic = state == .doctypePublicIdentifierDoubleQuoted || state == .doctypePublicIdentifierSingleQuoted
                let quote: UInt8 = (state == .doctypePublicIdentifierDoubleQuoted || state == .doctypeSystemIdentifierDoubleQuoted) ? 34 : 39
                switch consume() {
                case quote?: state = isPublic ? .afterDoctypePublicIdentifier : .afterDoctypeSystemIdentifier
                case 0?:
                    error()
                    if isPublic { doctype.publicIdentifier! += Self.replacement } else { doctype.systemIdentifier! += Self.replacement }
                case 62?:
                    error()
                    doctype.forceQuirks = true
                    state = .data
                    emit(.doctype(doctype))
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                case let b?:
                    if isPublic { doctype.publicIdentifier!.append(b) } else { doctype.systemIdentifier!.append(b) }
                }
            case .afterDoctypePublicIdentifier, .betweenDoctypePublicAndSystemIdentifiers:
                let after = state == .afterDoctypePublicIdentifier
                switch consume() {
                case let b? where Self.isWhitespace(b): if after { state = .betweenDoctypePublicAndSystemIdentifiers }
                case 62?:
                    state = .data
                    emit(.doctype(doctype))
                case 34?:
                    if after { error() }
                    doctype.systemIdentifier = []
                    state = .doctypeSystemIdentifierDoubleQuoted
                case 39?:
                    if after { error() }
                    doctype.systemIdentifier = []
                    state = .doctypeSystemIdentifierSingleQuoted
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                default:
                    error()
                    doctype.forceQuirks = true
                    reconsume(in: .bogusDoctype)
                }
            case .afterDoctypeSystemIdentifier:
                switch consume() {
                case let b? where Self.isWhitespace(b): break
                case 62?:
                    state = .data
                    emit(.doctype(doctype))
                case nil:
                    error()
                    doctype.forceQuirks = true
                    emit(.doctype(doctype))
                    emitEOF()
                default:
                    error()
                    reconsume(in: .bogusDoctype)
                }
            case .bogusDoctype:
                switch consume() {
                case 62?:
                    state = .data
                    emit(.doctype(doctype))
                case 0?: error()
                case nil:
                    emit(.doctype(doctype))
                    emitEOF()
                default: break
                }
            case .cdataSection:
                switch consume() {
                case 93?: state = .cdataSectionBracket
                case nil:
                    error()
                    emitEOF()
                case let b?: text.append(b)
                }
            case .cdataSectionBracket:
                if consume() == 93 {
                    state = .cdataSectionEnd
                } else {
                    text.append(93)
                    reconsume(in: .cdataSection)
                }
            case .cdataSectionEnd:
                switch consume() {
                case 93?: text.append(93)
                case 62?: state = .data
                default:
                    text += [93, 93]
                    reconsume(in: .cdataSection)
                }
            case .characterReference:
                temporaryBuffer = [38]
                switch consume() {
                case let b? where Self.isASCIIAlphanumeric(b): reconsume(in: .namedCharacterReference)
                case 35?:
                    temporaryBuffer.append(35)
                    state = .numericCharacterReference
                default:
                    flushCodePoints(temporaryBuffer)
                    reconsume(in: returnState)
                }
            case .namedCharacterReference:
                namedCharacterReference()
            case .ambiguousAmpersand:
                switch consume() {
                case let b? where Self.isASCIIAlphanumeric(b): flushCodePoints([b])
                case 59?:
                    error()
                    reconsume(in: returnState)
                default: reconsume(in: returnState)
                }
            case .numericCharacterReference:
                characterReferenceCode = 0
                switch consume() {
                case 120?, 88?:
                    temporaryBuffer.append(input[position - 1])
                    state = .hexadecimalCharacterReferenceStart
                default: reconsume(in: .decimalCharacterReferenceStart)
                }
            case .hexadecimalCharacterReferenceStart, .decimalCharacterReferenceStart:
                let hex = state == .hexadecimalCharacterReferenceStart
                if let b = consume(), hex ? Self.isHexDigit(b) : Self.isASCIIDigit(b) {
                    reconsume(in: hex ? .hexadecimalCharacterReference : .decimalCharacterReference)
                } else {
                    error()
                    flushCodePoints(temporaryBuffer)
                    reconsume(in: returnState)
                }
            case .hexadecimalCharacterReference, .decimalCharacterReference:
                let hex = state == .hexadecimalCharacterReference
                let b = consume()
                if let b, hex ? Self.isHexDigit(b) : Self.isASCIIDigit(b) {
                    let digit: UInt32 = Self.isASCIIDigit(b) ? UInt32(b - 48) : UInt32(Self.lower(b) - 87)
                    characterReferenceCode = min(characterReferenceCode &* (hex ? 16 : 10) &+ digit, 0x110000)
                } else if b == 59 {
                    state = .numericCharacterReferenceEnd
                } else {
                    error()
                    reconsume(in: .numericCharacterReferenceEnd)
                }
            case .numericCharacterReferenceEnd:
                var code = characterReferenceCode
                if code == 0 || code > 0x10FFFF || (code >= 0xD800 && code <= 0xDFFF) {
                    error()
                    code = 0xFFFD
                } else if code >= 0x80, code <= 0x9F, let mapped = Self.windows1252[code] {
                    error()
                    code = mapped
                }
                var bytes: [UInt8] = []
                Self.appendScalar(code, to: &bytes)
                flushCodePoints(bytes)
                state = returnState
            }
        } while queueStart >= queueEnd && !emittedEOF
    }

    /// The longest name of the table matching here (section 13.2.5.73).
    private mutating func namedCharacterReference() {
        let maximum = min(HTMLEntities.longestName, input.count - position)
        var matched: (length: Int, value: [UInt8])?
        if maximum > 0 {
            var length = maximum
            // Only names of letters and digits, possibly ending in ';'.
            var scan = 0
            while scan < maximum, Self.isASCIIAlphanumeric(input[position + scan]) { scan += 1 }
            if scan < maximum, input[position + scan] == 59 { scan += 1 }
            length = scan
            while length > 0 {
                if let value = HTMLEntities.lookup(input[position..<(position + length)]) {
                    matched = (length, value)
                    break
                }
                length -= 1
            }
        }
        guard let matched else {
            flushCodePoints(temporaryBuffer)
            state = .ambiguousAmpersand
            return
        }
        let name = input[position..<(position + matched.length)]
        position += matched.length
        let endsWithSemicolon = name.last == 59
        if consumedAsPartOfAttribute, !endsWithSemicolon, let next = input.indices.contains(position) ? input[position] : nil,
            next == 61 || Self.isASCIIAlphanumeric(next)
        {
            // Historical: `&amp=` / `&copyx` in an attribute stays as written.
            flushCodePoints(temporaryBuffer + name)
            state = returnState
            return
        }
        if !endsWithSemicolon { error() }
        flushCodePoints(matched.value)
        state = returnState
    }

    /// Section 13.2.5.80: numeric references to C1 controls mean Windows-1252 characters.
    static let windows1252: [UInt32: UInt32] = [
        0x80: 0x20AC, 0x82: 0x201A, 0x83: 0x0192, 0x84: 0x201E, 0x85: 0x2026, 0x86: 0x2020, 0x87: 0x2021, 0x88: 0x02C6,
        0x89: 0x2030, 0x8A: 0x0160, 0x8B: 0x2039, 0x8C: 0x0152, 0x8E: 0x017D, 0x91: 0x2018, 0x92: 0x2019, 0x93: 0x201C,
        0x94: 0x201D, 0x95: 0x2022, 0x96: 0x2013, 0x97: 0x2014, 0x98: 0x02DC, 0x99: 0x2122, 0x9A: 0x0161, 0x9B: 0x203A,
        0x9C: 0x0153, 0x9E: 0x017E, 0x9F: 0x0178
    ]
}

/// The named character references, looked up by the bytes of a name (with its ';' when it has one).
enum HTMLEntities {
    static let table: [[UInt8]: [UInt8]] = {
        var table: [[UInt8]: [UInt8]] = [:]
        table.reserveCapacity(HTMLEntityTable.entries.count)
        for (name, scalars) in HTMLEntityTable.entries {
            var value: [UInt8] = []
            for scalar in scalars { HTMLTokenizer.appendScalar(scalar, to: &value) }
            table[Array(name.utf8)] = value
        }
        return table
    }()

    static let longestName = HTMLEntityTable.entries.map(\.0.utf8.count).max() ?? 0

    static func lookup(_ name: ArraySlice<UInt8>) -> [UInt8]? {
        table[Array(name)]
    }
}

/// An attribute name as a set member: hashed once, as one run of bytes (`[UInt8]` feeds the
/// hasher a byte at a time), and the hash kept, so that growing the set and comparing with
/// another name do not read the bytes again (each name is its own allocation: a cache miss).
struct AttributeName: Hashable {
    let bytes: [UInt8]
    private let hash: Int

    init(bytes: [UInt8]) {
        self.bytes = bytes
        var hasher = Hasher()
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        hash = hasher.finalize()
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }

    static func == (lhs: AttributeName, rhs: AttributeName) -> Bool {
        lhs.hash == rhs.hash && lhs.bytes == rhs.bytes
    }
}

/// Bytes read for one field of the next token (a character token's text, an attribute's name). While they are one
/// unbroken run of the input they are kept as its range and copied once, when the token takes them, instead of into
/// a buffer and out again for every run of mail's text (issue 38). Whatever else is appended (a character
/// reference, a `<` that opened no tag, a run that does not follow on) moves the run into `buffer` first.
struct InputRun {
    var start = 0
    var end = 0
    var buffer: [UInt8] = []

    var isRun: Bool { end > start }
    var range: Range<Int> { start..<end }

    /// Takes `runStart..<runEnd` as the run, or its continuation, when the field is that run so far (or nothing
    /// yet); false when the bytes must be appended to `buffer` instead.
    @inline(__always) mutating func extendRun(_ runStart: Int, _ runEnd: Int) -> Bool {
        guard buffer.isEmpty, start == end || end == runStart else { return false }
        if start == end { start = runStart }
        end = runEnd
        return true
    }

    mutating func moveRunToBuffer(from input: [UInt8]) {
        guard isRun else { return }
        buffer.appendBytes(of: input[range])
        forgetRun()
    }

    func whole(in input: [UInt8]) -> [UInt8] {
        var whole = buffer
        whole.appendBytes(of: input[range])
        return whole
    }

    mutating func forgetRun() {
        start = 0
        end = 0
    }
}
