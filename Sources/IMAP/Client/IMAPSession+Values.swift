/// Public initializers for the values a SELECT answers with, so a stand-in for the server (the
/// in-memory IMAP server of `TernTesting`, issue 33) can hand the sync engine the same values a
/// live session does. Additive only; the labels differ from the memberwise initializers', which
/// stay internal.
extension IMAPSession.SelectedMailbox {
    public init(
        mailbox name: String, exists: UInt32, uidValidity: UInt32?, uidNext: UInt32?, highestModSeq: UInt64?, readOnly: Bool,
        vanished: UIDSet = UIDSet(), resynchronized: Bool = false, changed: [IMAPSession.FlagUpdate] = []
    ) {
        self.name = name
        self.exists = exists
        self.uidValidity = uidValidity
        self.uidNext = uidNext
        self.highestModSeq = highestModSeq
        self.readOnly = readOnly
        self.vanished = vanished
        self.resynchronized = resynchronized
        self.changed = changed
    }
}

extension IMAPSession.FlagUpdate {
    public init(messageUID uid: UInt32, flags: [String], modSeq: UInt64?) {
        self.uid = uid
        self.flags = flags
        self.modSeq = modSeq
    }
}
