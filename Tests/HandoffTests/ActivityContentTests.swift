import SimKernel
import Testing
@testable import Handoff

@Suite("ActivityContent")
struct ActivityContentTests {
    @Test("a copy is a value: changing it leaves the original alone, field by field")
    func copiesDoNotShareChanges() throws {
        var original = ActivityContent(type: "com.example.doc", title: "Draft", userInfo: ["page": 3])
        try original.setWebpageURL("https://example.com/draft")
        var copy = original
        #expect(copy == original)
        copy.title = "Final"
        copy.userInfo["page"] = 4
        copy.requiredUserInfoKeys = ["page"]
        copy.needsSave = true
        copy.supportsContinuationStreams = true
        copy.expirationDate = SimInstant(nanosecondsSinceStart: 5)
        copy.isEligibleForHandoff = false
        copy.payloadSize = 10
        copy.documentPath = "Documents/Final.rtf"
        copy.responders = ["editor"]
        try copy.setWebpageURL(nil)
        #expect(original.title == "Draft")
        #expect(original.userInfo["page"] == 3)
        #expect(original.requiredUserInfoKeys.isEmpty)
        #expect(!original.needsSave && !original.supportsContinuationStreams)
        #expect(original.expirationDate == nil && original.isEligibleForHandoff)
        #expect(original.payloadSize == nil && original.documentPath == nil && original.responders.isEmpty)
        #expect(original.webpageURL?.description == "https://example.com/draft")
        #expect(copy != original)
        #expect(copy.webpageURL == nil && copy.title == "Final" && copy.userInfo["page"] == 4)
    }

    @Test("equal contents are equal and hash alike, whether or not they share storage")
    func equalityIsByValue() {
        let a = ActivityContent(type: "t", title: "x", userInfo: ["k": "v"], needsSave: true)
        let b = ActivityContent(type: "t", title: "x", userInfo: ["k": "v"], needsSave: true)
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b, a]).count == 1)
        #expect(a != ActivityContent(type: "t", title: "y", userInfo: ["k": "v"], needsSave: true))
        #expect(a != ActivityContent(type: "u", title: "x", userInfo: ["k": "v"], needsSave: true))
    }
}
