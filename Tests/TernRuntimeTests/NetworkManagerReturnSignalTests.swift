import Testing

@testable import TernRuntime

/// Issue 34: what `gdbus monitor` prints for NetworkManager, and which changes are the network coming back.
@Suite struct NetworkManagerReturnSignalTests {
    @Test func theStateIsReadFromTheSignalAndFromPropertiesChanged() {
        let read = { (line: String) in NetworkManagerReturnSignal.state(fromMonitorLine: line[...]) }
        #expect(read("/org/freedesktop/NetworkManager: org.freedesktop.NetworkManager.StateChanged (uint32 70,)") == 70)
        #expect(
            read(
                "/org/freedesktop/NetworkManager: org.freedesktop.DBus.Properties.PropertiesChanged "
                    + "('org.freedesktop.NetworkManager', {'Connectivity': <uint32 4>, 'State': <uint32 20>}, @as [])") == 20)
        #expect(read("The name org.freedesktop.NetworkManager is owned by :1.2") == nil)
        #expect(read("/org/freedesktop/NetworkManager: org.freedesktop.NetworkManager.StateChanged (uint32 ,)") == nil)
        #expect(read("/org/freedesktop/NetworkManager: org.freedesktop.NetworkManager.StateChanged (uint32 99999999999,)") == nil)
    }

    @Test func aRiseIntoAConnectedStateIsAReturn() {
        let isReturn = NetworkManagerReturnSignal.isReturn
        #expect(isReturn(20, 70))
        #expect(isReturn(40, 50))
        #expect(isReturn(50, 70))
        #expect(isReturn(nil, 70))
        #expect(!isReturn(70, 70))
        #expect(!isReturn(70, 20))
        #expect(!isReturn(20, 40))
    }
}
