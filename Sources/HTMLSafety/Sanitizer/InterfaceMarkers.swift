/// The markup the sanitizer writes for the interface: the quote fold (`details.tern-quote` and its
/// summary, FR-ED-01), the mismatch mark on links (`a.tern-link-mismatch`) and the image
/// placeholders (`span.tern-blocked-image`, `span.tern-inline-image`, FR-ED-04). Issue 21: mail
/// could carry these classes itself and select them from its style sheets, to hide a warning or
/// dress its own content as one. So mail loses every `tern-` class (its own names, any case), its
/// style rules never select a marker (`CSSSanitizer.markerExclusion`) and may not name one.
enum InterfaceMarkers {
    /// The markers as selectors, for the exclusion appended to the mail's selectors.
    static let selectors = [".tern-quote", ".tern-quote>summary", ".tern-link-mismatch", ".tern-blocked-image", ".tern-inline-image"]

    /// A class name in the sanitizer's namespace.
    static func isReserved(_ name: ArraySlice<UInt8>) -> Bool {
        name.count >= 5 && ASCIIBytes.equals(name.prefix(5), "tern-")
    }

    /// A class attribute's value without reserved names, each taken out with the whitespace
    /// before it (a first one with the whitespace after it), so the rest keeps its bytes and
    /// cleaning the result again changes nothing; nil when only whitespace is left. The value
    /// itself when it holds no reserved name.
    static func withoutReservedClasses(_ value: [UInt8]) -> [UInt8]? {
        guard ASCIIBytes.contains("tern-", in: value[...]) else { return value }
        var kept: [UInt8] = []
        var index = 0
        while index < value.count {
            let start = index
            while index < value.count, ASCIIBytes.isSpace(value[index]) { index += 1 }
            let nameStart = index
            while index < value.count, !ASCIIBytes.isSpace(value[index]) { index += 1 }
            guard !isReserved(value[nameStart..<index]) else { continue }
            // After a first name taken out, the next one starts the value as the first did.
            let leading = kept.isEmpty && start > 0 && !ASCIIBytes.isSpace(value[0]) ? nameStart : start
            kept += value[leading..<index]
        }
        return kept.contains(where: { !ASCIIBytes.isSpace($0) }) ? kept : nil
    }

    /// An image placeholder exactly as `SanitizerPass.writePlaceholder` writes it, read back by
    /// the next pass: a span with the class, `role="img"`, the label twice and one text. Kept
    /// with its class; mail that writes one gets that placeholder, no more.
    static func isPlaceholder(_ span: NodeID, in tree: HTMLTree) -> Bool {
        let attributes = tree[span].attributes
        guard tree[span].isHTML(.span), attributes.count == 4, let text = tree.onlyChild(of: span), tree[text].isText,
            attributes.allSatisfy({ $0.namespace == nil }),
            attributes[0].name == SanitizerPass.className, attributes[1].name == SanitizerPass.roleName,
            attributes[2].name == SanitizerPass.ariaLabelName, attributes[3].name == SanitizerPass.titleName,
            attributes[1].value == SanitizerPass.imageRole, attributes[2].value == attributes[3].value
        else { return false }
        let kind = attributes[0].value
        return kind.elementsEqual("tern-blocked-image".utf8) || kind.elementsEqual("tern-inline-image".utf8)
    }

    /// Elements the mail's style rules never select (as `markerExclusion` has it in a browser):
    /// the quote fold as the sanitizer rewrites it, its summary, the placeholders. The mismatch
    /// mark is decided as the link is written, so its link counts as the mail's.
    static func isMarker(_ element: NodeID, in tree: HTMLTree) -> Bool {
        switch tree[element].tagName {
        case .details: return isQuoteFold(element, in: tree)
        case .summary: return tree[element].parent.exists && isQuoteFold(tree[element].parent, in: tree)
        case .span: return isPlaceholder(element, in: tree)
        default: return false
        }
    }

    static func isQuoteFold(_ element: NodeID, in tree: HTMLTree) -> Bool {
        tree[element].isHTML(.details) && QuoteDetector.hasClass(element, in: tree, "tern-quote")
    }
}
