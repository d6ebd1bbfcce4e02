import Handoff
import Testing

@Suite("Handoff errors")
struct HandoffErrorTests {
    @Test("every error says what was expected")
    func messagesNameTheExpectation() {
        let errors: [HandoffError] = [
            .invalidUserInfoValue(keyPath: "userInfo.items[2]", type: "NSObject"),
            .unsupportedURLScheme(url: "ftp://example.com"),
            .invalidTeamID("abc"),
            .invalidBundleID(""),
            .invalidAssociatedDomain("example.com", reason: "no service"),
            .invalidParameter(name: "coldLaunch", value: "-1s", expected: "a duration ≥ 0"),
        ]
        for error in errors {
            #expect(error.description.contains("expected"), "\(error)")
        }
        #expect(HandoffError.invalidUserInfoValue(keyPath: "userInfo.items[2]", type: "NSObject").description
            .hasPrefix("userInfo.items[2]:"))
    }
}
