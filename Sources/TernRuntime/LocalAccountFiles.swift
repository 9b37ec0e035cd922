import Foundation
import TernCore

/// The per-account files under `$TERN_HOME`: the attachment cache and the OAuth token file.
public struct LocalAccountFiles: AccountFileStore {
    let home: TernHome

    public init(home: TernHome) { self.home = home }

    public func removeFiles(of accountID: Account.ID) throws {
        for url in [home.attachmentsURL(for: accountID), home.tokenFileURL(for: accountID)]
        where FileManager.default.fileExists(atPath: url.path) {
            do {
                try FileManager.default.removeItem(at: url)
            } catch {
                throw TernError.storageUnavailable("cannot remove '\(url.path)': \(error.localizedDescription)")
            }
        }
    }
}
