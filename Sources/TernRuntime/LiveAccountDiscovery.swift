import AccountDiscovery
import TernCore

extension TernServices {
    /// Issue 35: discovery's steps on the live network, configured from the process's environment
    /// (`TERN_ISPDB_URL`, `TERN_DNS_SERVER`, the tests' `TERN_DISCOVERY_RESOLVE`); `caFile` is the
    /// account's extra CA, trusted for the autoconfig documents as it is for the mail servers.
    public func discoverAccountSettings(caFile: String?) -> DiscoverAccountSettingsUseCase {
        Self.liveDiscovery(environment: environment, caFile: caFile)
    }

    static func liveDiscovery(environment: [String: String], caFile: String?) -> DiscoverAccountSettingsUseCase {
        DiscoverAccountSettingsUseCase(
            sources: LiveDiscoverySources.sources(environment: environment, caFile: caFile),
            encodeDomain: { LiveDiscoverySources.encodeDomain($0) })
    }
}

extension TernServices {
    /// The online database discovery asks with consent (`TERN_ISPDB_URL`, else Thunderbird's), to name it to the person.
    public var onlineSettingsDatabase: String { OnlineDatabaseSource.baseURL(environment: environment) }
}
