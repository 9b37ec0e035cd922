import Foundation
import IMAP
import Sync
import Synchronization

/// One logged-in connection to an `InMemoryIMAPServer`, as the sync engine's `SyncSession`.
/// A connection the server dropped (an injected drop or timeout) is broken for good, as a live
/// session is; the pool then opens another.
public final class InMemoryIMAPSession: SyncSession, Sendable {
    struct State {
        var selected: IMAPSession.SelectedMailbox?
        var isBroken = false
    }

    public let server: InMemoryIMAPServer
    public let connection: Int
    let capabilities: Set<String>
    private let state = Mutex(State())

    init(server: InMemoryIMAPServer, connection: Int, capabilities: Set<String>) {
        self.server = server
        self.connection = connection
        self.capabilities = capabilities
    }

    public var selected: IMAPSession.SelectedMailbox? { state.withLock { $0.selected } }
    public var isBroken: Bool { state.withLock { $0.isBroken } }

    /// The connection dropped: the pool closes it instead of handing it out again.
    func markBroken() { state.withLock { $0.isBroken = true } }

    public func hasCapability(_ name: String) -> Bool { capabilities.contains(name.uppercased()) }

    public func checkCancellation() throws {
        if Task.isCancelled { throw CancellationError() }
    }

    /// Runs one command; a timeout or a dropped connection leaves the session broken.
    private func command<T>(_ body: () async throws -> T) async throws -> T {
        guard !isBroken else { throw IMAPError.connectionClosed }
        do {
            return try await body()
        } catch let error as IMAPError where error.isRetryable {
            state.withLock { $0.isBroken = true }
            throw error
        }
    }

    private func selectedName() throws -> String {
        guard let name = selected?.name else { throw IMAPError.server(status: .bad, text: "No mailbox selected") }
        return name
    }

    @discardableResult
    public func select(_ mailbox: MailboxPath, readOnly: Bool, qresync: (uidValidity: UInt32, modSeq: UInt64)?) async throws
        -> IMAPSession.SelectedMailbox
    {
        state.withLock { $0.selected = nil }
        let selected = try await command { try await server.select(mailbox.name, readOnly: readOnly, qresync: qresync) }
        state.withLock { $0.selected = selected }
        return selected
    }

    public func uidSearch(_ criteria: SearchCriteria) async throws -> [UInt32] {
        let name = try selectedName()
        return try await command { try await server.search(criteria, in: name) }
    }

    @discardableResult
    public func uidFetch(_ uids: UIDSet, items: [FetchItem], changedSince: UInt64?, each: (FetchedMessage) throws -> Void) async throws
        -> [QuarantinedResponse]
    {
        let name = try selectedName()
        guard !uids.isEmpty else { return [] }
        let answer = try await command { try await server.fetch(uids, items: items, changedSince: changedSince, in: name) }
        for (index, message) in answer.messages.enumerated() {
            if index == answer.dropAfter {
                state.withLock { $0.isBroken = true }
                await server.disconnect(connection)
                throw IMAPError.connectionClosed
            }
            try each(message)
        }
        if let drop = answer.dropAfter, drop >= answer.messages.count {
            state.withLock { $0.isBroken = true }
            await server.disconnect(connection)
            throw IMAPError.connectionClosed
        }
        return []
    }

    @discardableResult
    public func uidStore(_ uids: UIDSet, _ mode: StoreMode, flags: [String], silent: Bool, unchangedSince: UInt64?) async throws
        -> (updated: [FetchedMessage], modified: UIDSet)
    {
        let name = try selectedName()
        let updated = try await command { try await server.store(uids, mode, flags: flags, silent: silent, in: name) }
        return (updated, UIDSet())
    }

    @discardableResult
    public func uidCopy(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping? {
        let name = try selectedName()
        return try await command { try await server.copy(uids, from: name, to: mailbox.name, moving: false) }
    }

    @discardableResult
    public func uidMove(_ uids: UIDSet, to mailbox: MailboxPath) async throws -> UIDMapping? {
        guard hasCapability("MOVE") else { throw IMAPError.unsupported("MOVE") }
        let name = try selectedName()
        return try await command { try await server.copy(uids, from: name, to: mailbox.name, moving: true) }
    }

    @discardableResult
    public func uidExpunge(_ uids: UIDSet) async throws -> [UInt32] {
        let name = try selectedName()
        return try await command { try await server.expunge(uids, in: name) }
    }

    @discardableResult
    public func append(to mailbox: MailboxPath, message: [UInt8], flags: [String], date: Date?) async throws -> UIDMapping? {
        try await command { try await server.append(message, flags: flags, date: date, to: mailbox.name) }
    }

    public func create(_ mailbox: MailboxPath) async throws {
        try await command { try await server.create(mailbox.name) }
    }

    public func rename(_ mailbox: MailboxPath, to newName: MailboxPath) async throws {
        try await command { try await server.rename(mailbox.name, to: newName.name) }
    }

    public func delete(_ mailbox: MailboxPath) async throws {
        try await command { try await server.delete(mailbox.name) }
    }

    public func listMailboxes() async throws -> [MailboxListing] {
        try await command { try await server.list() }
    }

    public func namespaces() async throws -> Namespaces? { nil }

    public func status(of mailboxes: [MailboxPath], items: [String]) async throws -> [String: [String: UInt64]] {
        try await command { try await server.status(of: mailboxes.map(\.name), items: items) }
    }

    public func mailboxIds(of mailboxes: [MailboxPath]) async throws -> [String: String] {
        await server.mailboxIds(of: mailboxes.map(\.name))
    }

    /// IDLE on the selected mailbox: its events until the connection drops (the stream then throws).
    func idle() async throws -> AsyncThrowingStream<MailboxEvent, any Error> {
        let name = try selectedName()
        return try await command { try await server.watch(name, connection: connection) }
    }
}
