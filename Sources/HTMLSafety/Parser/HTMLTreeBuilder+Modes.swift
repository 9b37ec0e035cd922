// The insertion modes of section 13.2.6.4, one method each, in the standard's order.

extension HTMLTag {
    var nameString: String { String(decoding: name, as: UTF8.self) }
}

extension TreeBuilder {
    mutating func process(_ token: HTMLToken, in mode: InsertionMode) {
        switch mode {
        case .initial: initial(token)
        case .beforeHTML: beforeHTML(token)
        case .beforeHead: beforeHead(token)
        case .inHead: inHead(token)
        case .inHeadNoscript: inHeadNoscript(token)
        case .afterHead: afterHead(token)
        case .inBody: inBody(token)
        case .text: text(token)
        case .inTable: inTable(token)
        case .inTableText: inTableText(token)
        case .inCaption: inCaption(token)
        case .inColumnGroup: inColumnGroup(token)
        case .inTableBody: inTableBody(token)
        case .inRow: inRow(token)
        case .inCell: inCell(token)
        case .inSelect: inSelect(token)
        case .inSelectInTable: inSelectInTable(token)
        case .inTemplate: inTemplate(token)
        case .afterBody: afterBody(token)
        case .inFrameset: inFrameset(token)
        case .afterFrameset: afterFrameset(token)
        case .afterAfterBody: afterAfterBody(token)
        case .afterAfterFrameset: afterAfterFrameset(token)
        }
    }

    /// Characters in modes that treat whitespace apart: whitespace pieces go to `whitespace`,
    /// the rest (from the first other character on) to `other`.
    mutating func splitWhitespace(
        _ bytes: [UInt8], whitespace: (inout Self, ArraySlice<UInt8>) -> Void,
        other: (inout Self, [UInt8]) -> Void
    ) {
        var index = 0
        while index < bytes.count, [9, 10, 12, 13, 32].contains(bytes[index]) { index += 1 }
        if index > 0 { whitespace(&self, bytes[0..<index]) }
        if index < bytes.count { other(&self, Array(bytes[index...])) }
    }

    // MARK: initial

    mutating func initial(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { _, _ in },
                other: { builder, rest in
                    builder.quirks = .quirks
                    builder.mode = .beforeHTML
                    builder.dispatch(.characters(rest))
                })
        case .comment(let data): insertComment(data, into: document)
        case .doctype(let doctype):
            let name = doctype.name.map { String(decoding: $0, as: UTF8.self) } ?? ""
            let publicId = doctype.publicIdentifier.map { String(decoding: $0, as: UTF8.self) }
            let systemId = doctype.systemIdentifier.map { String(decoding: $0, as: UTF8.self) }
            let node = tree.makeDoctype(HTMLNode.Doctype(name: name, publicIdentifier: publicId ?? "", systemIdentifier: systemId ?? ""))
            tree.append(node, to: document)
            quirks = Self.quirksMode(forceQuirks: doctype.forceQuirks, name: name, publicId: publicId, systemId: systemId)
            mode = .beforeHTML
        default:
            quirks = .quirks
            mode = .beforeHTML
            dispatch(token)
        }
    }

    static func quirksMode(forceQuirks: Bool, name: String, publicId: String?, systemId: String?) -> HTMLParser.QuirksMode {
        let publicLower = publicId?.lowercased() ?? ""
        let systemLower = systemId?.lowercased()
        if forceQuirks || name != "html" { return .quirks }
        let exact = ["-//w3o//dtd w3 html strict 3.0//en//", "-/w3c/dtd html 4.0 transitional/en", "html"]
        if exact.contains(publicLower) || systemLower == "http://www.ibm.com/data/dtd/v11/ibmxhtml1-transitional.dtd" { return .quirks }
        let prefixes = [
            "+//silmaril//dtd html pro v0r11 19970101//", "-//as//dtd html 3.0 aswedit + extensions//",
            "-//advasoft ltd//dtd html 3.0 aswedit + extensions//", "-//ietf//dtd html 2.0 level 1//", "-//ietf//dtd html 2.0 level 2//",
            "-//ietf//dtd html 2.0 strict level 1//", "-//ietf//dtd html 2.0 strict level 2//", "-//ietf//dtd html 2.0 strict//",
            "-//ietf//dtd html 2.0//", "-//ietf//dtd html 2.1e//", "-//ietf//dtd html 3.0//", "-//ietf//dtd html 3.2 final//",
            "-//ietf//dtd html 3.2//", "-//ietf//dtd html 3//", "-//ietf//dtd html level 0//", "-//ietf//dtd html level 1//",
            "-//ietf//dtd html level 2//", "-//ietf//dtd html level 3//", "-//ietf//dtd html strict level 0//",
            "-//ietf//dtd html strict level 1//", "-//ietf//dtd html strict level 2//", "-//ietf//dtd html strict level 3//",
            "-//ietf//dtd html strict//", "-//ietf//dtd html//", "-//metrius//dtd metrius presentational//",
            "-//microsoft//dtd internet explorer 2.0 html strict//", "-//microsoft//dtd internet explorer 2.0 html//",
            "-//microsoft//dtd internet explorer 2.0 tables//", "-//microsoft//dtd internet explorer 3.0 html strict//",
            "-//microsoft//dtd internet explorer 3.0 html//", "-//microsoft//dtd internet explorer 3.0 tables//",
            "-//netscape comm. corp.//dtd html//", "-//netscape comm. corp.//dtd strict html//", "-//o'reilly and associates//dtd html 2.0//",
            "-//o'reilly and associates//dtd html extended 1.0//", "-//o'reilly and associates//dtd html extended relaxed 1.0//",
            "-//sq//dtd html 2.0 hotmetal + extensions//", "-//softquad software//dtd hotmetal pro 6.0::19990601::extensions to html 4.0//",
            "-//softquad//dtd hotmetal pro 4.0::19971010::extensions to html 4.0//", "-//spyglass//dtd html 2.0 extended//",
            "-//sun microsystems corp.//dtd hotjava html//", "-//sun microsystems corp.//dtd hotjava strict html//",
            "-//w3c//dtd html 3 1995-03-24//", "-//w3c//dtd html 3.2 draft//", "-//w3c//dtd html 3.2 final//", "-//w3c//dtd html 3.2//",
            "-//w3c//dtd html 3.2s draft//", "-//w3c//dtd html 4.0 frameset//", "-//w3c//dtd html 4.0 transitional//",
            "-//w3c//dtd html experimental 19960712//", "-//w3c//dtd html experimental 970421//", "-//w3c//dtd w3 html//",
            "-//w3o//dtd w3 html 3.0//", "-//webtechs//dtd mozilla html 2.0//", "-//webtechs//dtd mozilla html//"
        ]
        if prefixes.contains(where: { publicLower.hasPrefix($0) }) { return .quirks }
        if systemLower == nil,
            publicLower.hasPrefix("-//w3c//dtd html 4.01 frameset//") || publicLower.hasPrefix("-//w3c//dtd html 4.01 transitional//")
        {
            return .quirks
        }
        if publicLower.hasPrefix("-//w3c//dtd xhtml 1.0 frameset//") || publicLower.hasPrefix("-//w3c//dtd xhtml 1.0 transitional//") {
            return .limitedQuirks
        }
        if systemLower != nil,
            publicLower.hasPrefix("-//w3c//dtd html 4.01 frameset//") || publicLower.hasPrefix("-//w3c//dtd html 4.01 transitional//")
        {
            return .limitedQuirks
        }
        return .noQuirks
    }

    // MARK: before html

    mutating func beforeHTML(_ token: HTMLToken) {
        switch token {
        case .doctype: break
        case .comment(let data): insertComment(data, into: document)
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { _, _ in },
                other: { builder, rest in
                    builder.beforeHTMLAnythingElse()
                    builder.dispatch(.characters(rest))
                })
        case .startTag(let tag) where tag.tagName == .html:
            let node = createElement(tag, namespace: .html)
            tree.append(node.id, to: document)
            openElements.append(node)
            mode = .beforeHead
        case .endTag(let tag) where ![.head, .body, .html, .br].contains(tag.tagName):
            break
        default:
            beforeHTMLAnythingElse()
            dispatch(token)
        }
    }

    mutating func beforeHTMLAnythingElse() {
        let id = tree.makeElement("html")
        let node = tree.element(id)
        tree.append(node.id, to: document)
        openElements.append(node)
        mode = .beforeHead
    }

    // MARK: before head

    mutating func beforeHead(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { _, _ in },
                other: { builder, rest in
                    builder.headElement = builder.insertHTMLElement(named: "head")
                    builder.mode = .inHead
                    builder.dispatch(.characters(rest))
                })
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .startTag(let tag) where tag.tagName == .head:
            headElement = insertHTMLElement(tag)
            mode = .inHead
        case .endTag(let tag) where ![.head, .body, .html, .br].contains(tag.tagName):
            break
        default:
            headElement = insertHTMLElement(named: "head")
            mode = .inHead
            dispatch(token)
        }
    }

    // MARK: in head

    mutating func inHead(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.insertCharacters(ws) },
                other: { builder, rest in
                    builder.inHeadAnythingElse()
                    builder.dispatch(.characters(rest))
                })
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag):
            switch tag.tagName {
            case .html: inBody(token)
            case .base, .basefont, .bgsound, .link, .meta:
                insertHTMLElement(tag)
                openElements.removeLast()
            case .title: genericRCDATA(tag)
            case .noframes, .style: genericRawText(tag)
            case .noscript:
                insertHTMLElement(tag)
                mode = .inHeadNoscript
            case .script:
                makeRoomOnStack()
                let place = insertionPlace()
                let node = createElement(tag, namespace: .html)
                insert(node.id, at: place)
                openElements.append(node)
                tokenizer.state = .scriptData
                originalMode = mode
                mode = .text
            case .template:
                insertHTMLElement(tag)
                appendFormattingMarker()
                framesetOK = false
                mode = .inTemplate
                templateModes.append(.inTemplate)
            case .head: break
            default:
                inHeadAnythingElse()
                dispatch(token)
            }
        case .endTag(let tag):
            switch tag.tagName {
            case .head:
                openElements.removeLast()
                mode = .afterHead
            case .body, .html, .br:
                inHeadAnythingElse()
                dispatch(token)
            case .template:
                guard openElements.contains(.template) else { return }
                generateAllImpliedEndTagsThoroughly()
                popUntil(.template)
                clearFormattingToLastMarker()
                templateModes.removeLast()
                resetInsertionMode()
            default: break
            }
        case .endOfFile:
            inHeadAnythingElse()
            dispatch(token)
        }
    }

    mutating func inHeadAnythingElse() {
        openElements.removeLast()
        mode = .afterHead
    }

    mutating func genericRCDATA(_ tag: HTMLTag) {
        insertHTMLElement(tag)
        tokenizer.state = .rcdata
        originalMode = mode
        mode = .text
    }

    mutating func genericRawText(_ tag: HTMLTag) {
        insertHTMLElement(tag)
        tokenizer.state = .rawtext
        originalMode = mode
        mode = .text
    }

    // MARK: in head noscript

    mutating func inHeadNoscript(_ token: HTMLToken) {
        switch token {
        case .doctype: break
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .endTag(let tag) where tag.tagName == .noscript:
            openElements.removeLast()
            mode = .inHead
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.inHead(.characters(Array(ws))) },
                other: { builder, rest in
                    builder.openElements.removeLast()
                    builder.mode = .inHead
                    builder.dispatch(.characters(rest))
                })
        case .comment: inHead(token)
        case .startTag(let tag) where [.basefont, .bgsound, .link, .meta, .noframes, .style].contains(tag.tagName): inHead(token)
        case .startTag(let tag) where [.head, .noscript].contains(tag.tagName): break
        case .endTag(let tag) where tag.tagName != .br: break
        default:
            openElements.removeLast()
            mode = .inHead
            dispatch(token)
        }
    }

    // MARK: after head

    mutating func afterHead(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.insertCharacters(ws) },
                other: { builder, rest in
                    builder.afterHeadAnythingElse()
                    builder.dispatch(.characters(rest))
                })
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag):
            switch tag.tagName {
            case .html: inBody(token)
            case .body:
                insertHTMLElement(tag)
                framesetOK = false
                mode = .inBody
            case .frameset:
                insertHTMLElement(tag)
                mode = .inFrameset
            case .base, .basefont, .bgsound, .link, .meta, .noframes, .script, .style, .template, .title:
                if let head = headElement { openElements.append(head) }
                inHead(token)
                if let head = headElement { remove(fromStack: head) }
            case .head: break
            default:
                afterHeadAnythingElse()
                dispatch(token)
            }
        case .endTag(let tag):
            switch tag.tagName {
            case .template: inHead(token)
            case .body, .html, .br:
                afterHeadAnythingElse()
                dispatch(token)
            default: break
            }
        case .endOfFile:
            afterHeadAnythingElse()
            dispatch(token)
        }
    }

    mutating func afterHeadAnythingElse() {
        insertHTMLElement(named: "body")
        mode = .inBody
    }

    // MARK: text

    mutating func text(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes): insertCharacters(bytes[...])
        case .endOfFile:
            openElements.removeLast()
            mode = originalMode
            dispatch(token)
        case .endTag:
            openElements.removeLast()
            mode = originalMode
        default: break
        }
    }

    // MARK: in table

    mutating func inTable(_ token: HTMLToken) {
        switch token {
        case .characters where currentNode?.isHTML(Self.tableTextTargets) == true:
            pendingTableText = []
            pendingTableTextIsWhitespace = true
            originalMode = mode
            mode = .inTableText
            dispatch(token)
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag):
            switch tag.tagName {
            case .caption:
                clearStackBack(to: Self.tableContext)
                appendFormattingMarker()
                insertHTMLElement(tag)
                mode = .inCaption
            case .colgroup:
                clearStackBack(to: Self.tableContext)
                insertHTMLElement(tag)
                mode = .inColumnGroup
            case .col:
                clearStackBack(to: Self.tableContext)
                insertHTMLElement(named: "colgroup")
                mode = .inColumnGroup
                dispatch(token)
            case .tbody, .tfoot, .thead:
                clearStackBack(to: Self.tableContext)
                insertHTMLElement(tag)
                mode = .inTableBody
            case .td, .th, .tr:
                clearStackBack(to: Self.tableContext)
                insertHTMLElement(named: "tbody")
                mode = .inTableBody
                dispatch(token)
            case .table:
                guard inScope(.table, .table) else { return }
                popUntil(.table)
                resetInsertionMode()
                dispatch(token)
            case .style, .script, .template: inHead(token)
            case .input:
                if let type = tag.attribute("type"), String(decoding: type, as: UTF8.self).lowercased() == "hidden" {
                    insertHTMLElement(tag)
                    openElements.removeLast()
                } else {
                    inTableAnythingElse(token)
                }
            case .form:
                guard formElement == nil, !openElements.contains(.template) else { return }
                formElement = insertHTMLElement(tag)
                openElements.removeLast()
            default: inTableAnythingElse(token)
            }
        case .endTag(let tag):
            switch tag.tagName {
            case .table:
                guard inScope(.table, .table) else { return }
                popUntil(.table)
                resetInsertionMode()
            case .body, .caption, .col, .colgroup, .html, .tbody, .td, .tfoot, .th, .thead, .tr: break
            case .template: inHead(token)
            default: inTableAnythingElse(token)
            }
        case .endOfFile: inBody(token)
        case .characters: inTableAnythingElse(token)
        }
    }

    mutating func inTableAnythingElse(_ token: HTMLToken) {
        fosterParenting = true
        inBody(token)
        fosterParenting = false
    }

    // MARK: in table text

    mutating func inTableText(_ token: HTMLToken) {
        if case .characters(let bytes) = token {
            if bytes.contains(0) {
                pendingTableText.append(contentsOf: bytes.lazy.filter { $0 != 0 })
            } else {
                pendingTableText.append(contentsOf: bytes)
            }
            if pendingTableTextIsWhitespace, bytes.contains(where: { !($0 == 0 || $0 == 9 || $0 == 10 || $0 == 12 || $0 == 13 || $0 == 32) }) {
                pendingTableTextIsWhitespace = false
            }
            return
        }
        var pending: [UInt8] = []
        swap(&pending, &pendingTableText)
        // The pending tokens are reprocessed one by one in the standard; as one run they make the
        // same tree: the first reconstructs the active formatting elements, the others find them
        // open, and every one goes to the same place.
        if !pending.isEmpty {
            if pendingTableTextIsWhitespace {
                insertCharacters(pending)
            } else {
                inTableAnythingElse(.characters(pending))
            }
        }
        mode = originalMode
        dispatch(token)
    }

    // MARK: in caption

    mutating func inCaption(_ token: HTMLToken) {
        switch token {
        case .endTag(let tag) where tag.tagName == .caption:
            _ = closeCaption()
        case .startTag(let tag) where [.caption, .col, .colgroup, .tbody, .td, .tfoot, .th, .thead, .tr].contains(tag.tagName):
            if closeCaption() { dispatch(token) }
        case .endTag(let tag) where tag.tagName == .table:
            if closeCaption() { dispatch(token) }
        case .endTag(let tag) where [.body, .col, .colgroup, .html, .tbody, .td, .tfoot, .th, .thead, .tr].contains(tag.tagName):
            break
        default: inBody(token)
        }
    }

    mutating func closeCaption() -> Bool {
        guard inScope(.caption, .table) else { return false }
        generateImpliedEndTags()
        popUntil(.caption)
        clearFormattingToLastMarker()
        mode = .inTable
        return true
    }

    // MARK: in column group

    mutating func inColumnGroup(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.insertCharacters(ws) },
                other: { builder, rest in
                    builder.columnGroupAnythingElse(.characters(rest))
                })
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .startTag(let tag) where tag.tagName == .col:
            insertHTMLElement(tag)
            openElements.removeLast()
        case .startTag(let tag) where tag.tagName == .template: inHead(token)
        case .endTag(let tag) where tag.tagName == .colgroup:
            guard currentNode?.isHTML(.colgroup) == true else { return }
            openElements.removeLast()
            mode = .inTable
        case .endTag(let tag) where tag.tagName == .col: break
        case .endTag(let tag) where tag.tagName == .template: inHead(token)
        case .endOfFile: inBody(token)
        default: columnGroupAnythingElse(token)
        }
    }

    mutating func columnGroupAnythingElse(_ token: HTMLToken) {
        guard currentNode?.isHTML(.colgroup) == true else { return }
        openElements.removeLast()
        mode = .inTable
        dispatch(token)
    }

    // MARK: in table body

    mutating func inTableBody(_ token: HTMLToken) {
        switch token {
        case .startTag(let tag) where tag.tagName == .tr:
            clearStackBack(to: Self.tableBodyContext)
            insertHTMLElement(tag)
            mode = .inRow
        case .startTag(let tag) where [.th, .td].contains(tag.tagName):
            clearStackBack(to: Self.tableBodyContext)
            insertHTMLElement(named: "tr")
            mode = .inRow
            dispatch(token)
        case .endTag(let tag) where [.tbody, .tfoot, .thead].contains(tag.tagName):
            guard inScope(tag.tagName, .table) else { return }
            clearStackBack(to: Self.tableBodyContext)
            openElements.removeLast()
            mode = .inTable
        case .startTag(let tag) where [.caption, .col, .colgroup, .tbody, .tfoot, .thead].contains(tag.tagName):
            leaveTableBody(token)
        case .endTag(let tag) where tag.tagName == .table:
            leaveTableBody(token)
        case .endTag(let tag) where [.body, .caption, .col, .colgroup, .html, .td, .th, .tr].contains(tag.tagName): break
        default: inTable(token)
        }
    }

    mutating func leaveTableBody(_ token: HTMLToken) {
        guard inScope(Self.tableSections, .table) else { return }
        clearStackBack(to: Self.tableBodyContext)
        openElements.removeLast()
        mode = .inTable
        dispatch(token)
    }

    // MARK: in row

    mutating func inRow(_ token: HTMLToken) {
        switch token {
        case .startTag(let tag) where [.th, .td].contains(tag.tagName):
            clearStackBack(to: Self.tableRowContext)
            insertHTMLElement(tag)
            mode = .inCell
            appendFormattingMarker()
        case .endTag(let tag) where tag.tagName == .tr:
            _ = closeRow()
        case .startTag(let tag) where [.caption, .col, .colgroup, .tbody, .tfoot, .thead, .tr].contains(tag.tagName):
            if closeRow() { dispatch(token) }
        case .endTag(let tag) where tag.tagName == .table:
            if closeRow() { dispatch(token) }
        case .endTag(let tag) where [.tbody, .tfoot, .thead].contains(tag.tagName):
            guard inScope(tag.tagName, .table) else { return }
            if closeRow() { dispatch(token) }
        case .endTag(let tag) where [.body, .caption, .col, .colgroup, .html, .td, .th].contains(tag.tagName): break
        default: inTable(token)
        }
    }

    mutating func closeRow() -> Bool {
        guard inScope(.tr, .table) else { return false }
        clearStackBack(to: Self.tableRowContext)
        openElements.removeLast()
        mode = .inTableBody
        return true
    }

    // MARK: in cell

    // The "clear the stack back to a … context" sets and the cell names, built once.
    static let tableContext: HTMLTagSet = ["table", "template", "html"]
    static let tableBodyContext: HTMLTagSet = ["tbody", "tfoot", "thead", "template", "html"]
    static let tableRowContext: HTMLTagSet = ["tr", "template", "html"]
    static let tableSections: HTMLTagSet = ["tbody", "thead", "tfoot"]
    static let tableCells: HTMLTagSet = ["td", "th"]

    mutating func inCell(_ token: HTMLToken) {
        switch token {
        case .endTag(let tag) where [.td, .th].contains(tag.tagName):
            guard inScope(tag.tagName, .table) else { return }
            generateImpliedEndTags()
            popUntil(tag.tagName)
            clearFormattingToLastMarker()
            mode = .inRow
        case .startTag(let tag) where [.caption, .col, .colgroup, .tbody, .td, .tfoot, .th, .thead, .tr].contains(tag.tagName):
            guard inScope(Self.tableCells, .table) else { return }
            closeCell()
            dispatch(token)
        case .endTag(let tag) where [.body, .caption, .col, .colgroup, .html].contains(tag.tagName): break
        case .endTag(let tag) where [.table, .tbody, .tfoot, .thead, .tr].contains(tag.tagName):
            guard inScope(tag.tagName, .table) else { return }
            closeCell()
            dispatch(token)
        default: inBody(token)
        }
    }

    mutating func closeCell() {
        generateImpliedEndTags()
        popUntil(Self.tableCells)
        clearFormattingToLastMarker()
        mode = .inRow
    }

    // MARK: in select

    mutating func inSelect(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            for piece in Self.pieces(bytes) where piece.kind != .null { insertCharacters(piece.bytes) }
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag):
            switch tag.tagName {
            case .html: inBody(token)
            case .option:
                if currentNode?.isHTML(.option) == true { openElements.removeLast() }
                insertHTMLElement(tag)
            case .optgroup:
                if currentNode?.isHTML(.option) == true { openElements.removeLast() }
                if currentNode?.isHTML(.optgroup) == true { openElements.removeLast() }
                insertHTMLElement(tag)
            case .hr:
                if currentNode?.isHTML(.option) == true { openElements.removeLast() }
                if currentNode?.isHTML(.optgroup) == true { openElements.removeLast() }
                insertHTMLElement(tag)
                openElements.removeLast()
            case .select:
                guard inScope(.select, .select) else { return }
                popUntil(.select)
                resetInsertionMode()
            case .input, .keygen, .textarea:
                guard inScope(.select, .select) else { return }
                popUntil(.select)
                resetInsertionMode()
                dispatch(token)
            case .script, .template: inHead(token)
            default: break
            }
        case .endTag(let tag):
            switch tag.tagName {
            case .optgroup:
                if currentNode?.isHTML(.option) == true, openElements.count >= 2, openElements[openElements.count - 2].isHTML(.optgroup) {
                    openElements.removeLast()
                }
                if currentNode?.isHTML(.optgroup) == true { openElements.removeLast() }
            case .option:
                if currentNode?.isHTML(.option) == true { openElements.removeLast() }
            case .select:
                guard inScope(.select, .select) else { return }
                popUntil(.select)
                resetInsertionMode()
            case .template: inHead(token)
            default: break
            }
        case .endOfFile: inBody(token)
        }
    }

    mutating func inSelectInTable(_ token: HTMLToken) {
        let tableNames: [HTMLTagName] = [.caption, .table, .tbody, .tfoot, .thead, .tr, .td, .th]
        switch token {
        case .startTag(let tag) where tableNames.contains(tag.tagName):
            popUntil(.select)
            resetInsertionMode()
            dispatch(token)
        case .endTag(let tag) where tableNames.contains(tag.tagName):
            guard inScope(tag.tagName, .table) else { return }
            popUntil(.select)
            resetInsertionMode()
            dispatch(token)
        default: inSelect(token)
        }
    }

    // MARK: in template

    mutating func inTemplate(_ token: HTMLToken) {
        switch token {
        case .characters, .comment, .doctype: inBody(token)
        case .startTag(let tag):
            let newMode: InsertionMode
            switch tag.tagName {
            case .base, .basefont, .bgsound, .link, .meta, .noframes, .script, .style, .template, .title:
                inHead(token)
                return
            case .caption, .colgroup, .tbody, .tfoot, .thead: newMode = .inTable
            case .col: newMode = .inColumnGroup
            case .tr: newMode = .inTableBody
            case .td, .th: newMode = .inRow
            default: newMode = .inBody
            }
            templateModes.removeLast()
            templateModes.append(newMode)
            mode = newMode
            dispatch(token)
        case .endTag(let tag):
            if tag.tagName == .template { inHead(token) }
        case .endOfFile:
            guard openElements.contains(.template) else {
                stopped = true
                return
            }
            popUntil(.template)
            clearFormattingToLastMarker()
            templateModes.removeLast()
            resetInsertionMode()
            dispatch(token)
        }
    }

    // MARK: after body and framesets

    mutating func afterBody(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.inBody(.characters(Array(ws))) },
                other: { builder, rest in
                    builder.mode = .inBody
                    builder.dispatch(.characters(rest))
                })
        case .comment(let data): insertComment(data, into: openElements.first?.id)
        case .doctype: break
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .endTag(let tag) where tag.tagName == .html:
            if contextElement == nil { mode = .afterAfterBody }
        case .endOfFile: stopped = true
        default:
            mode = .inBody
            dispatch(token)
        }
    }

    mutating func inFrameset(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            for piece in Self.pieces(bytes) where piece.kind == .whitespace { insertCharacters(piece.bytes) }
        case .comment(let data): insertComment(data)
        case .startTag(let tag):
            switch tag.tagName {
            case .html: inBody(token)
            case .frameset: insertHTMLElement(tag)
            case .frame:
                insertHTMLElement(tag)
                openElements.removeLast()
            case .noframes: inHead(token)
            default: break
            }
        case .endTag(let tag) where tag.tagName == .frameset:
            guard openElements.count > 1 else { return }
            openElements.removeLast()
            if contextElement == nil, currentNode?.isHTML(.frameset) == false { mode = .afterFrameset }
        case .endOfFile: stopped = true
        default: break
        }
    }

    mutating func afterFrameset(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            for piece in Self.pieces(bytes) where piece.kind == .whitespace { insertCharacters(piece.bytes) }
        case .comment(let data): insertComment(data)
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .endTag(let tag) where tag.tagName == .html: mode = .afterAfterFrameset
        case .startTag(let tag) where tag.tagName == .noframes: inHead(token)
        case .endOfFile: stopped = true
        default: break
        }
    }

    mutating func afterAfterBody(_ token: HTMLToken) {
        switch token {
        case .comment(let data): insertComment(data, into: document)
        case .doctype: inBody(token)
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .characters(let bytes):
            splitWhitespace(
                bytes, whitespace: { builder, ws in builder.inBody(.characters(Array(ws))) },
                other: { builder, rest in
                    builder.mode = .inBody
                    builder.dispatch(.characters(rest))
                })
        case .endOfFile: stopped = true
        default:
            mode = .inBody
            dispatch(token)
        }
    }

    mutating func afterAfterFrameset(_ token: HTMLToken) {
        switch token {
        case .comment(let data): insertComment(data, into: document)
        case .doctype: inBody(token)
        case .startTag(let tag) where tag.tagName == .html: inBody(token)
        case .characters(let bytes):
            for piece in Self.pieces(bytes) where piece.kind == .whitespace { inBody(.characters(Array(piece.bytes))) }
        case .startTag(let tag) where tag.tagName == .noframes: inHead(token)
        case .endOfFile: stopped = true
        default: break
        }
    }
}
