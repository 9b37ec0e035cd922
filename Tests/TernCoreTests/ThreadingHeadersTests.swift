import TernCore
import Testing

struct ThreadingHeadersTests {
    @Test func messageIDsFromHeaderValues() {
        #expect(ThreadingHeaders.ids("<a@b> <c@d>") == ["a@b", "c@d"])
        #expect(ThreadingHeaders.ids("<a@b>,<c@d>\r\n\t<e@f>") == ["a@b", "c@d", "e@f"])
        #expect(ThreadingHeaders.ids("a@b c@d") == ["a@b", "c@d"])
        #expect(ThreadingHeaders.ids("<> , ") == [])
        #expect(ThreadingHeaders.ids(nil) == [])
    }
}
