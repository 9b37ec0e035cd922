import Foundation
import Synchronization
import TernCore
import Testing

@testable import WebUI

/// The web app's memory between requests, one part per concern.
@Suite struct WebStateTests {
    final class Counter: Sendable {
        let value = Mutex(0)
        func next() -> Int {
            value.withLock {
                $0 += 1
                return $0
            }
        }
    }

    func draft(_ notes: [ComposeNote] = []) -> ComposeDraft {
        ComposeDraft(mode: .reply, accountId: "a", from: EmailAddress(address: "me@example.org"), subject: "Re: x", notes: notes)
    }

    @Test func aPrefillIsMadeOnceUnlessItHasNotes() async throws {
        let cache = ComposePrefillCache()
        let made = Counter()
        for _ in 0..<3 {
            _ = try await cache.prefill(mode: .reply, original: 7, account: nil) {
                _ = made.next()
                return draft()
            }
        }
        #expect(made.value.withLock { $0 } == 1)
        _ = try await cache.prefill(mode: .forward, original: 7, account: nil) {
            _ = made.next()
            return draft()
        }
        #expect(made.value.withLock { $0 } == 2, "another mode is another prefill")
        let noted = Counter()
        for _ in 0..<2 {
            _ = try await cache.prefill(mode: .reply, original: 8, account: nil) {
                _ = noted.next()
                return draft([.originalBodyUnavailable])
            }
        }
        #expect(noted.value.withLock { $0 } == 2, "made again while the original's body is missing")
    }

    @Test func oneDownloadPerAttachmentAndCancelStopsIt() async {
        let downloads = AttachmentDownloads()
        let (ended, end) = AsyncStream<Bool>.makeStream()
        #expect(
            downloads.start(3) {
                while !Task.isCancelled { await Task.yield() }
                end.yield(true)
            })
        #expect(!downloads.start(3) {}, "the same attachment is already downloading")
        #expect(!downloads.cancel(4))
        #expect(downloads.cancel(3))
        var iterator = ended.makeAsyncIterator()
        #expect(await iterator.next() == true)
    }

    @Test func theBoardKeepsEachAccountsLatestSyncState() {
        let board = SyncStatusBoard(changes: ChangeFeed())
        board.record(.syncState(accountId: "ana", state: .syncingFolders, detail: nil))
        board.record(.syncState(accountId: "ana", state: .error, detail: "refused"))
        board.record(.threadsChanged(accountId: nil))
        #expect(board.current.count == 1)
        #expect(board.current["ana"]?.state == .error)
    }

    @Test func bodiesThatCannotBeFetchedAreAnEventOfTheirOwn() throws {
        let event = try #require(ServerSentEvent(.bodiesUnavailable(threadId: 12, offline: true)))
        #expect(event.name == "bodiesunavailable")
        #expect(event.data == ["thread": "12", "offline": "1"])
    }
}
