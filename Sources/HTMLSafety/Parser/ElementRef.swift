/// An element as the tree builder holds it (on the stack of open elements, in the list of active
/// formatting elements): its place in the `HTMLTree` and what never changes about it, so that the
/// questions asked on every token ("is the current node an HTML `p`?") read the stack, not the tree.
/// Plain data (no name string): copying one, as every read of the stack does, costs no reference
/// counting (with the name held here, releasing those copies was an eighth of parsing deep tables).
struct ElementRef: Equatable, NumberedElementName {
    let id: NodeID
    let namespace: HTMLNamespace
    /// The name numbered for `HTMLTagSet` tests (0: a name Tern does not know).
    let nameIndex: UInt8
    /// For an element the stack of open elements chains by name (an HTML name Tern does not
    /// know, a foreign element): its bucket there (`OpenElementStack.bucket(of:)`); -1 otherwise.
    let nameBucket: Int16

    init(id: NodeID, namespace: HTMLNamespace, nameIndex: UInt8, name: String) {
        self.id = id
        self.namespace = namespace
        self.nameIndex = nameIndex
        nameBucket = nameIndex == 0 || namespace != .html ? Int16(OpenElementStack.bucket(of: name)) : -1
    }

    var isElement: Bool { true }

    /// The same element: one place in the tree.
    static func == (lhs: ElementRef, rhs: ElementRef) -> Bool { lhs.id == rhs.id }
}

extension HTMLTree {
    /// The element at `id` as the tree builder holds it.
    func element(_ id: NodeID) -> ElementRef {
        ElementRef(id: id, namespace: self[id].namespace, nameIndex: self[id].nameIndex, name: self[id].name)
    }
}
