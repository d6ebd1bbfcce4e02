import Foundation
import Handoff

extension UserInfoValue {
    /// A URL value, if `string` parses as a URL.
    static func url(string: String) -> UserInfoValue? {
        URL(string: string).map(UserInfoValue.url)
    }

    /// `count` zero bytes: a data value of a given size.
    static func zeroBytes(_ count: Int) -> UserInfoValue {
        .data(Data(count: count))
    }

    /// A date `seconds` after 1 January 2001, 00:00 UTC.
    static func date(secondsSinceReferenceDate seconds: Double) -> UserInfoValue {
        .date(Date(timeIntervalSinceReferenceDate: seconds))
    }

    /// A UUID value, if `string` is one.
    static func uuid(string: String) -> UserInfoValue? {
        UUID(uuidString: string).map(UserInfoValue.uuid)
    }
}
