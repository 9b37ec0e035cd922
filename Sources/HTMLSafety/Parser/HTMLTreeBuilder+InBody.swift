#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// "in body" (section 13.2.6.4.7) and "in foreign content" (section 13.2.6.5).

extension TreeBuilder {
    static let closesParagraph: HTMLTagSet = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset", "figcaption",
        "figure", "footer", "header", "hgroup", "main", "menu", "nav", "ol", "p", "search", "section", "summary", "ul"
    ]
    static let listItemClosingExceptions: HTMLTagSet = ["address", "div", "p"]
    static let tableTextTargets: HTMLTagSet = ["table", "tbody", "template", "tfoot", "thead", "tr"]
    static let headings: HTMLTagSet = ["h1", "h2", "h3", "h4", "h5", "h6"]

    mutating func inBody(_ token: HTMLToken) {
        switch token {
        case .characters(var bytes):
            // Null characters are dropped; whitespace and other text are inserted alike (after
            // reconstructing the active formatting elements once: later pieces find them open),
            // and any non-whitespace turns `frameset-ok` off.
            if bytes.withUnsafeBufferPointer({ $0.baseAddress.map { memchr($0, 0, bytes.count) != nil } ?? false }) {
                bytes.removeAll { $0 == 0 }
                if bytes.isEmpty { return }
            }
            reconstructActiveFormatting()
            if framesetOK, bytes.contains(where: { !($0 == 9 || $0 == 10 || $0 == 12 || $0 == 13 || $0 == 32) }) { framesetOK = false }
            insertCharacters(bytes)
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag): inBodyStartTag(tag, token: token)
        case .endTag(let tag): inBodyEndTag(tag, token: token)
        case .endOfFile:
            if !templateModes.isEmpty {
                inTemplate(token)
            } else {
                stopped = true
            }
        }
    }

    static let listItemNames: HTMLTagSet = ["li"]
    static let definitionNames: HTMLTagSet = ["dd", "dt"]

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func inBodyStartTag(_ tag: HTMLTag, token: HTMLToken) {
        switch tag.tagName {
        case .html:
            guard !openElements.contains(.template), let root = openElements.first else { return }
            addMissingAttributes(of: tag, to: root.id)
        case .base, .basefont, .bgsound, .link, .meta, .noframes, .script, .style, .template, .title:
            inHead(token)
        case .body:
            guard openElements.count >= 2, openElements[1].isHTML(.body), !openElements.contains(.template) else { return }
            framesetOK = false
            addMissingAttributes(of: tag, to: openElements[1].id)
        case .frameset:
            guard openElements.count >= 2, openElements[1].isHTML(.body), framesetOK else { return }
            tree.detach(openElements[1].id)
            openElements.removeAll(from: 1)
            insertHTMLElement(tag)
            mode = .inFrameset
        case _ where Self.closesParagraph.contains(index: tag.tagName.rawValue):
            if inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
        case _ where Self.headings.contains(index: tag.tagName.rawValue):
            if inScope(.p, .button) { closePElement() }
            if currentNode?.isHTML(Self.headings) == true { openElements.removeLast() }
            insertHTMLElement(tag)
        case .pre, .listing:
            if inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
            skipNextNewline = true
            framesetOK = false
        case .form:
            let hasTemplate = openElements.contains(.template)
            guard formElement == nil || hasTemplate else { return }
            if inScope(.p, .button) { closePElement() }
            let node = insertHTMLElement(tag)
            if !hasTemplate { formElement = node }
        case .li, .dd, .dt:
            framesetOK = false
            // The topmost open item of the kind, unless a special element other than address, div
            // and p is above it (or is it: an item is special).
            let closing = tag.tagName == .li ? Self.listItemNames : Self.definitionNames
            let item = openElements.topmost(closing)
            if item >= 0, item >= max(openElements.topmost(Self.listItemStops), openElements.topmostForeignBoundary) {
                let name = openElements[item].tagName
                generateImpliedEndTags(except: name)
                popUntil(name)
            }
            if inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
        case .plaintext:
            if inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
            tokenizer.state = .plaintext
        case .button:
            if inScope(.button) {
                generateImpliedEndTags()
                popUntil(.button)
            }
            reconstructActiveFormatting()
            insertHTMLElement(tag)
            framesetOK = false
        case .a:
            for entry in activeFormatting.reversed() {
                guard let node = entry.node else { break }
                if node.isHTML(.a) {
                    if !adoptionAgency(.a) { anyOtherEndTag(.a, name: "a") }
                    if let index = formattingIndex(of: node) { activeFormatting.remove(at: index) }
                    remove(fromStack: node)
                    break
                }
            }
            reconstructActiveFormatting()
            pushFormatting(insertHTMLElement(tag), tag)
        case .b, .big, .code, .em, .font, .i, .s, .small, .strike, .strong, .tt, .u:
            reconstructActiveFormatting()
            pushFormatting(insertHTMLElement(tag), tag)
        case .nobr:
            reconstructActiveFormatting()
            if inScope(.nobr) {
                if !adoptionAgency(.nobr) { anyOtherEndTag(.nobr, name: "nobr") }
                reconstructActiveFormatting()
            }
            pushFormatting(insertHTMLElement(tag), tag)
        case .applet, .marquee, .object:
            reconstructActiveFormatting()
            insertHTMLElement(tag)
            appendFormattingMarker()
            framesetOK = false
        case .table:
            if quirks != .quirks, inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
            framesetOK = false
            mode = .inTable
        case .area, .br, .embed, .img, .keygen, .wbr:
            reconstructActiveFormatting()
            insertHTMLElement(tag)
            openElements.removeLast()
            framesetOK = false
        case .input:
            reconstructActiveFormatting()
            insertHTMLElement(tag)
            openElements.removeLast()
            if tag.attribute("type").map({ String(decoding: $0, as: UTF8.self).lowercased() }) != "hidden" { framesetOK = false }
        case .param, .source, .track:
            insertHTMLElement(tag)
            openElements.removeLast()
        case .hr:
            if inScope(.p, .button) { closePElement() }
            insertHTMLElement(tag)
            openElements.removeLast()
            framesetOK = false
        case .image:
            var renamed = tag
            renamed.name = Array("img".utf8)
            dispatch(.startTag(renamed))
        case .textarea:
            insertHTMLElement(tag)
            skipNextNewline = true
            tokenizer.state = .rcdata
            originalMode = mode
            framesetOK = false
            mode = .text
        case .xmp:
            if inScope(.p, .button) { closePElement() }
            reconstructActiveFormatting()
            framesetOK = false
            genericRawText(tag)
        case .iframe:
            framesetOK = false
            genericRawText(tag)
        case .noembed:
            genericRawText(tag)
        case .select:
            reconstructActiveFormatting()
            insertHTMLElement(tag)
            framesetOK = false
            mode = [.inTable, .inCaption, .inTableBody, .inRow, .inCell].contains(mode) ? .inSelectInTable : .inSelect
        case .optgroup, .option:
            if currentNode?.isHTML(.option) == true { openElements.removeLast() }
            reconstructActiveFormatting()
            insertHTMLElement(tag)
        case .rb, .rtc:
            if inScope(.ruby) { generateImpliedEndTags() }
            insertHTMLElement(tag)
        case .rp, .rt:
            if inScope(.ruby) { generateImpliedEndTags(except: .rtc) }
            insertHTMLElement(tag)
        case .math, .svg:
            reconstructActiveFormatting()
            let namespace: HTMLNamespace = tag.tagName == .svg ? .svg : .mathml
            var adjusted = tag
            if namespace == .svg { Self.adjustSVGAttributes(&adjusted) } else { Self.adjustMathMLAttributes(&adjusted) }
            Self.adjustForeignAttributes(&adjusted)
            insertForeignElement(adjusted, namespace: namespace)
            if tag.selfClosing { openElements.removeLast() }
        case .caption, .col, .colgroup, .frame, .head, .tbody, .td, .tfoot, .th, .thead, .tr:
            break
        default:
            reconstructActiveFormatting()
            insertHTMLElement(tag)
        }
    }

    // swiftlint:disable:next cyclomatic_complexity
    mutating func inBodyEndTag(_ tag: HTMLTag, token: HTMLToken) {
        switch tag.tagName {
        case .template: inHead(token)
        case .body:
            guard inScope(.body) else { return }
            mode = .afterBody
        case .html:
            guard inScope(.body) else { return }
            mode = .afterBody
            dispatch(token)
        case .address, .article, .aside, .blockquote, .button, .center, .details, .dialog, .dir, .div, .dl, .fieldset, .figcaption, .figure, .footer,
            .header, .hgroup, .listing, .main, .menu, .nav, .ol, .pre, .search, .section, .summary, .ul:
            guard inScope(tag.tagName) else { return }
            generateImpliedEndTags()
            popUntil(tag.tagName)
        case .form:
            if !openElements.contains(.template) {
                let node = formElement
                formElement = nil
                guard let node, nodeInScope(node) else { return }
                generateImpliedEndTags()
                remove(fromStack: node)
            } else {
                guard inScope(.form) else { return }
                generateImpliedEndTags()
                popUntil(.form)
            }
        case .p:
            if !inScope(.p, .button) { insertHTMLElement(named: "p") }
            closePElement()
        case .li:
            guard inScope(.li, .listItem) else { return }
            generateImpliedEndTags(except: .li)
            popUntil(.li)
        case .dd, .dt:
            guard inScope(tag.tagName) else { return }
            generateImpliedEndTags(except: tag.tagName)
            popUntil(tag.tagName)
        case _ where Self.headings.contains(index: tag.tagName.rawValue):
            guard inScope(Self.headings) else { return }
            generateImpliedEndTags()
            popUntil(Self.headings)
        case .a, .b, .big, .code, .em, .font, .i, .nobr, .s, .small, .strike, .strong, .tt, .u:
            if !adoptionAgency(tag.tagName) { anyOtherEndTag(tag.tagName, name: tag.nameString) }
        case .applet, .marquee, .object:
            guard inScope(tag.tagName) else { return }
            generateImpliedEndTags()
            popUntil(tag.tagName)
            clearFormattingToLastMarker()
        case .br:
            inBodyStartTag(HTMLTag(name: Array("br".utf8)), token: .startTag(HTMLTag(name: Array("br".utf8))))
        default:
            anyOtherEndTag(tag.tagName, name: tag.nameString)
        }
    }

    static let listItemStops = specialHTML.subtracting(listItemClosingExceptions)

    /// Adds the attributes of `tag` that `node` lacks (a second `<html>` or `<body>` tag), with a
    /// set of the names it has rather than a search of them per attribute.
    mutating func addMissingAttributes(of tag: HTMLTag, to node: NodeID) {
        guard !tag.attributes.isEmpty else { return }
        var present = Set(tree[node].attributes.map { AttributeName(bytes: $0.name) })
        for attribute in tag.attributes where present.insert(AttributeName(bytes: attribute.name)).inserted {
            tree[node].attributes.append(attribute)
        }
    }

    /// "Any other end tag": the topmost HTML element of that name closes, unless a special element
    /// is above it (or the special element is it: then it closes). `known` is the name's
    /// `HTMLTagName`; `name` is read only when that is `.unknown`, and only the elements with an
    /// unknown name above the topmost special one are compared with it.
    mutating func anyOtherEndTag(_ known: HTMLTagName, name: @autoclosure () -> String) {
        let special = max(openElements.topmost(Self.specialHTML), openElements.topmostForeignBoundary)
        var match = -1
        if known != .unknown {
            match = openElements.topmost(known)
            guard match >= 0, match >= special else { return }
        } else {
            let unknownName = name()
            match = openElements.topmostUnindexed(named: unknownName, above: special) { $0.namespace == .html && tree[$0.id].name == unknownName }
            guard match >= 0 else { return }
        }
        generateImpliedEndTags(except: known)
        openElements.removeAll(from: match)
    }

    // MARK: - Foreign content

    static let breakoutTags: HTMLTagSet = [
        "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed", "h1", "h2", "h3", "h4", "h5",
        "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr", "ol", "p", "pre", "ruby", "s", "small", "span",
        "strong", "strike", "sub", "sup", "table", "tt", "u", "ul", "var"
    ]

    mutating func processForeign(_ token: HTMLToken) {
        switch token {
        case .characters(let bytes):
            for piece in Self.pieces(bytes) {
                switch piece.kind {
                case .null: insertCharacters(HTMLTokenizer.replacement[...])
                case .whitespace: insertCharacters(piece.bytes)
                case .other:
                    insertCharacters(piece.bytes)
                    framesetOK = false
                }
            }
        case .comment(let data): insertComment(data)
        case .doctype: break
        case .startTag(let tag):
            let name = tag.nameString
            let breaksOut =
                Self.breakoutTags.contains(index: tag.tagName.rawValue)
                || (name == "font" && tag.attributes.contains { ["color", "face", "size"].contains(String(decoding: $0.name, as: UTF8.self)) })
            if breaksOut {
                while let node = currentNode, node.namespace != .html, !Self.isMathMLTextIntegrationPoint(node), !isHTMLIntegrationPoint(node) {
                    openElements.removeLast()
                }
                process(token, in: mode)
                return
            }
            guard let adjusted = adjustedCurrentNode else { return }
            var foreign = tag
            let namespace = adjusted.namespace
            if namespace == .mathml { Self.adjustMathMLAttributes(&foreign) }
            if namespace == .svg {
                if let fixed = Self.svgTagNames[name] { foreign.name = Array(fixed.utf8) }
                Self.adjustSVGAttributes(&foreign)
            }
            Self.adjustForeignAttributes(&foreign)
            insertForeignElement(foreign, namespace: namespace)
            if tag.selfClosing { openElements.removeLast() }
        case .endTag(let tag):
            let name = tag.nameString
            if name == "br" || name == "p" {
                while let node = currentNode, node.namespace != .html, !Self.isMathMLTextIntegrationPoint(node), !isHTMLIntegrationPoint(node) {
                    openElements.removeLast()
                }
                process(token, in: mode)
                return
            }
            // From the current node down to the topmost HTML element (not it): the topmost foreign
            // element of that name closes; if none has it, the token goes to the insertion mode.
            let floor = max(openElements.topmostHTML, 0)
            let match = openElements.topmostUnindexed(named: name, above: floor) {
                $0.namespace != .html && Self.equalIgnoringASCIICase(tree[$0.id].name, name)
            }
            if match > 0 {
                openElements.removeAll(from: match)
            } else {
                process(token, in: mode)
            }
        case .endOfFile: break
        }
    }

    /// `name` is the tokenizer's, lowercase already; foreign element names may have capitals.
    static func equalIgnoringASCIICase(_ elementName: String, _ name: String) -> Bool {
        elementName.utf8.count == name.utf8.count
            && zip(elementName.utf8, name.utf8).allSatisfy { (a, b) in
                a == b || (a >= 65 && a <= 90 && a | 0x20 == b)
            }
    }

    static func adjustMathMLAttributes(_ tag: inout HTMLTag) {
        for index in tag.attributes.indices where tag.attributes[index].name == Array("definitionurl".utf8) {
            tag.attributes[index].name = Array("definitionURL".utf8)
        }
    }

    static func adjustSVGAttributes(_ tag: inout HTMLTag) {
        for index in tag.attributes.indices {
            if let fixed = svgAttributeNames[String(decoding: tag.attributes[index].name, as: UTF8.self)] {
                tag.attributes[index].name = Array(fixed.utf8)
            }
        }
    }

    static func adjustForeignAttributes(_ tag: inout HTMLTag) {
        for index in tag.attributes.indices {
            let name = String(decoding: tag.attributes[index].name, as: UTF8.self)
            let parts = name.split(separator: ":", maxSplits: 1)
            switch name {
            case "xlink:actuate", "xlink:arcrole", "xlink:href", "xlink:role", "xlink:show", "xlink:title", "xlink:type":
                tag.attributes[index] = HTMLAttribute(
                    name: Array(parts[1].utf8), value: tag.attributes[index].value, prefix: Array("xlink".utf8), namespace: .xlink)
            case "xml:lang", "xml:space":
                tag.attributes[index] = HTMLAttribute(
                    name: Array(parts[1].utf8), value: tag.attributes[index].value, prefix: Array("xml".utf8), namespace: .xml)
            case "xmlns":
                tag.attributes[index].namespace = .xmlns
            case "xmlns:xlink":
                tag.attributes[index] = HTMLAttribute(
                    name: Array("xlink".utf8), value: tag.attributes[index].value, prefix: Array("xmlns".utf8), namespace: .xmlns)
            default: break
            }
        }
    }

    static let svgTagNames: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "altGlyph", "altGlyphDef", "altGlyphItem", "animateColor", "animateMotion", "animateTransform", "clipPath", "feBlend",
            "feColorMatrix", "feComponentTransfer", "feComposite", "feConvolveMatrix", "feDiffuseLighting", "feDisplacementMap",
            "feDistantLight", "feDropShadow", "feFlood", "feFuncA", "feFuncB", "feFuncG", "feFuncR", "feGaussianBlur", "feImage",
            "feMerge", "feMergeNode", "feMorphology", "feOffset", "fePointLight", "feSpecularLighting", "feSpotLight", "feTile",
            "feTurbulence", "foreignObject", "glyphRef", "linearGradient", "radialGradient", "textPath"
        ].map { ($0.lowercased(), $0) })

    static let svgAttributeNames: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "attributeName", "attributeType", "baseFrequency", "baseProfile", "calcMode", "clipPathUnits", "diffuseConstant",
            "edgeMode", "filterUnits", "glyphRef", "gradientTransform", "gradientUnits", "kernelMatrix", "kernelUnitLength",
            "keyPoints", "keySplines", "keyTimes", "lengthAdjust", "limitingConeAngle", "markerHeight", "markerUnits", "markerWidth",
            "maskContentUnits", "maskUnits", "numOctaves", "pathLength", "patternContentUnits", "patternTransform", "patternUnits",
            "pointsAtX", "pointsAtY", "pointsAtZ", "preserveAlpha", "preserveAspectRatio", "primitiveUnits", "refX", "refY",
            "repeatCount", "repeatDur", "requiredExtensions", "requiredFeatures", "specularConstant", "specularExponent",
            "spreadMethod", "startOffset", "stdDeviation", "stitchTiles", "surfaceScale", "systemLanguage", "tableValues", "targetX",
            "targetY", "textLength", "viewBox", "viewTarget", "xChannelSelector", "yChannelSelector", "zoomAndPan"
        ].map { ($0.lowercased(), $0) })
}
