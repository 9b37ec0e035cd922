import Foundation
import Testing

/// Issue 20: the integration suites are enabled only when the test servers are there, so a run whose servers did
/// not come up would pass with them skipped. `make test` (and so CI) sets `TERN_REQUIRE_TEST_SERVERS=1`: then a
/// missing server fails the run here instead.
@Test func theTestServersAreThereWhenTheRunRequiresThem() {
    guard ProcessInfo.processInfo.environment["TERN_REQUIRE_TEST_SERVERS"] == "1" else { return }
    #expect(TestServers.available, "make test requires the test mail servers: TERN_MAILSERVERS_DIR has no tls/ca.crt")
}
