import Foundation
import Testing

/// Issue 20: as in IMAPIntegrationTests, a run that requires the servers fails when they are missing.
@Test func theMailServersAreThereWhenTheRunRequiresThem() {
    guard ProcessInfo.processInfo.environment["TERN_REQUIRE_TEST_SERVERS"] == "1" else { return }
    #expect(MailServers.available, "make test requires the test mail servers: TERN_MAILSERVERS_DIR has no tls/ca.crt")
}
