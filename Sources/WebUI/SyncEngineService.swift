import ServiceLifecycle
import TernCore
import TernRuntime

/// The sync engine inside `tern serve` (PLATFORM.md): the core's runner (first sync, IDLE watching,
/// pushes, retries on its schedule), stopped at graceful shutdown. Its states reach the page on the
/// change feed.
struct SyncEngineService: Service {
    let services: TernServices

    func run() async throws {
        await cancelWhenGracefulShutdown {
            // The server never ends on a sync failure: the folder pane shows it, and it is tried again.
            try? await services.syncRunner.run(account: nil, describe: WebErrorText.describe) { _ in }
        }
    }
}
