import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads activities and their userInfo from a scenario file, reporting every problem to
/// its context.
struct ActivityReader {
    let context: DecodingContext

    func readActivities(
        _ top: ObjectReader, _ root: JSONPath, apps: [AppDescription], bundleIDs: [String], declaredTypes: [String: [String]],
        deviceNames: [String], drafts: [ScenarioReader.DeviceDraft], userInfoLimit: Int
    ) -> [ScenarioActivity] {
        var nodes: [(JSONNode, JSONPath, String?)] = []
        switch (top.member("activity"), top.member("activities")) {
        case (nil, nil):
            context.report(root, at: top.node.position,
                           "missing required key \"activity\" (the activity, an object; or \"activities\", an array)")
        case (.some, .some):
            context.report(root.key("activities"), at: top.member("activities")!.keyPosition,
                           "give either \"activity\" or \"activities\", not both")
        case let (.some(single), nil):
            nodes.append((single.value, root.key("activity"), "activity"))
        case let (nil, .some(list)):
            if let elements = context.array(
                list.value, root.key("activities"), expected: "an array of activities",
                maximumCount: InputBounds.maximumActivities) {
                if elements.isEmpty {
                    context.report(root.key("activities"), at: list.value.position, "expected at least one activity")
                }
                for (index, element) in elements.enumerated() {
                    nodes.append((element, root.key("activities").index(index), nil))
                }
            }
        }
        var activities: [ScenarioActivity] = []
        for (node, path, defaultName) in nodes {
            guard let activity = readActivity(
                node, path, defaultName: defaultName, apps: apps, bundleIDs: bundleIDs, declaredTypes: declaredTypes,
                deviceNames: deviceNames, drafts: drafts, userInfoLimit: userInfoLimit)
            else { continue }
            if activities.contains(where: { $0.name == activity.name }) {
                context.report(path.key("name"), at: node.member("name")?.value.position,
                               "duplicate activity \"\(activity.name)\"")
                continue
            }
            activities.append(activity)
        }
        return activities
    }

    func readActivity(
        _ node: JSONNode, _ path: JSONPath, defaultName: String?, apps: [AppDescription], bundleIDs: [String],
        declaredTypes: [String: [String]], deviceNames: [String], drafts: [ScenarioReader.DeviceDraft], userInfoLimit: Int
    ) -> ScenarioActivity? {
        guard let object = context.object(node, path, what: "an activity object", allowed: ScenarioKeys.activity) else {
            return nil
        }
        let name: String?
        if let defaultName {
            name = object.optional("name") { context.nonEmptyString($0, $1) } ?? defaultName
        } else {
            name = object.required("name", what: "the name the timeline and expectations use", {
                context.nonEmptyString($0, $1)
            })
        }
        let device = object.required("device", what: "the device that creates it", { node, devicePath in
            deviceReference(node, devicePath, among: deviceNames)
        })
        // The app's bundle ID when the file declares it, valid or not: a
        // declared app that is invalid was reported where it is declared.
        let bundleID = object.required("app", what: "the bundle ID of the app that creates it", { node, appPath -> String? in
            guard let bundleID = context.string(node, appPath) else { return nil }
            guard bundleIDs.contains(bundleID) else {
                context.report(appPath, at: node.position,
                               "unknown app \"\(bundleID)\"; apps are declared under \"apps\"" + context.didYouMean(bundleID, among: bundleIDs))
                return nil
            }
            return bundleID
        })
        let app = bundleID.flatMap { bundleID in apps.first { $0.bundleID == bundleID } }
        let type = object.required("type", what: "the activity type", { context.nonEmptyString($0, $1) })
        // The app declares the type: checked whatever else is wrong with the
        // activity or the app, against the types the app declares as written
        // (skipped only when they cannot be read).
        if let bundleID, let type, type != browsingWebActivityType {
            let declared = app.map { $0.activityTypes + $0.documentTypes.compactMap(\.ubiquitousActivityType) }
                ?? declaredTypes[bundleID]
            if let declared, !declared.contains(type) {
                context.report(path.key("type"), at: object.position(of: "type"),
                               "activity type \"\(type)\" is not declared by app \"\(bundleID)\" (its activityTypes: \(declared.isEmpty ? "none" : declared.joined(separator: ", ")))"
                                   + context.didYouMean(type, among: declared))
            }
        }
        var content = ActivityContent(type: type ?? "")
        if let title = object.optional("title", { context.string($0, $1) }) { content.title = title }
        if let userInfo = object.optional("userInfo", { readUserInfo($0, $1) }) { content.userInfo = userInfo }
        if let size = object.optional("payloadSize", { context.bytes($0, $1) }) { content.payloadSize = size }
        if let requiredKeys = object.optional("requiredUserInfoKeys", { context.strings($0, $1) }) {
            content.requiredUserInfoKeys = Set(requiredKeys)
        }
        // A literal userInfo the source will refuse to send: valid, but every
        // trial fails with 4611. (A payloadSize over the limit says so on
        // purpose, as payload-over-limit.json does.)
        if !object.has("payloadSize"), object.has("userInfo"), content.transferSize > userInfoLimit {
            context.warn(path.key("userInfo"), at: object.position(of: "userInfo"),
                         "the userInfo encodes to about \(content.transferSize) bytes, over protocol.userInfoLimit "
                             + "(\(userInfoLimit) bytes): the source refuses to send it and every continuation fails with "
                             + "4611 (handoffUserInfoTooLarge); give a smaller userInfo, raise protocol.userInfoLimit, or "
                             + "use continuation streams for bulk data")
        }
        if let member = object.member("webpageURL"), let text = context.string(member.value, path.key("webpageURL")) {
            do {
                try content.setWebpageURL(text)
            } catch {
                context.report(path.key("webpageURL"), at: member.value.position, "\(error)")
            }
        }
        if let value = object.optional("supportsContinuationStreams", { context.bool($0, $1) }) {
            content.supportsContinuationStreams = value
        }
        if let value = object.optional("needsSave", { context.bool($0, $1) }) { content.needsSave = value }
        if let value = object.optional("eligibleForHandoff", { context.bool($0, $1) }) {
            content.isEligibleForHandoff = value
        }
        if let value = object.optional("expiresAfter", { context.duration($0, $1) }) {
            content.expirationDate = .zero + value
        }
        if let value = object.optional("documentPath", { context.nonEmptyString($0, $1) }) { content.documentPath = value }
        if let value = object.optional("responders", { context.strings($0, $1) }) { content.responders = value }
        guard let name, let device, let app, type != nil else { return nil }
        // Cross-references: the app runs on the device and declares the type.
        if let draft = drafts.first(where: { $0.description.name == device }),
            !draft.description.installedApps.contains(app.bundleID)
        {
            context.report(path.key("app"), at: object.position(of: "app"),
                           "app \"\(app.bundleID)\" is not installed on device \"\(device)\"; add it to the device's \"apps\"")
        }
        return ScenarioActivity(name: name, device: device, app: app.bundleID, content: content)
    }

    /// A device name that must exist.
    func deviceReference(_ node: JSONNode, _ path: JSONPath, among names: [String]) -> String? {
        guard let name = context.string(node, path, expected: "a device name") else { return nil }
        guard names.contains(name) else {
            context.report(path, at: node.position,
                           "unknown device \"\(name)\"; devices are \(names.joined(separator: ", "))"
                               + context.didYouMean(name, among: names))
            return nil
        }
        return name
    }

    /// userInfo: JSON values as property-list values. Strings, whole
    /// numbers, other numbers, booleans, null, arrays and objects map
    /// directly; `{"$url": "…"}`, `{"$data": "3KiB"}` (that many zero
    /// bytes), `{"$date": seconds since 2001}` and `{"$uuid": "…"}` give the
    /// other allowed types.
    func readUserInfo(_ node: JSONNode, _ path: JSONPath) -> UserInfo? {
        guard case let .object(members) = node.value else {
            context.mismatch(node, path, expected: "an object of userInfo entries")
            return nil
        }
        var entries: [String: UserInfoValue] = [:]
        var valid = true
        for member in members {
            if let value = userInfoValue(member.value, path.key(member.key)) {
                entries[member.key] = value
            } else {
                valid = false
            }
        }
        return valid ? UserInfo(entries) : nil
    }

    func userInfoValue(_ node: JSONNode, _ path: JSONPath) -> UserInfoValue? {
        switch node.value {
        case .null: return .null
        case let .bool(value): return .boolean(value)
        case let .string(text): return .string(text)
        case let .number(number):
            if let whole = number.int64Value { return .integer(whole) }
            guard number.doubleValue.isFinite else {
                context.mismatch(node, path, expected: "a finite number")
                return nil
            }
            return .real(number.doubleValue)
        case let .array(elements):
            var values: [UserInfoValue] = []
            for (index, element) in elements.enumerated() {
                guard let value = userInfoValue(element, path.index(index)) else { return nil }
                values.append(value)
            }
            return .array(values)
        case let .object(members):
            if members.count == 1, members[0].key.hasPrefix("$") {
                return taggedValue(members[0], path)
            }
            var entries: [String: UserInfoValue] = [:]
            for member in members {
                guard let value = userInfoValue(member.value, path.key(member.key)) else { return nil }
                entries[member.key] = value
            }
            return .dictionary(entries)
        }
    }

    func taggedValue(_ member: JSONMember, _ path: JSONPath) -> UserInfoValue? {
        let tags = ["$url", "$data", "$date", "$uuid"]
        let valuePath = path.key(member.key)
        switch member.key {
        case "$url":
            guard let text = context.string(member.value, valuePath), let url = UserInfoValue.url(string: text) else {
                context.mismatch(member.value, valuePath, expected: "a URL")
                return nil
            }
            return url
        case "$data":
            guard let size = context.bytes(
                member.value, valuePath, maximum: InputBounds.maximumDataBytes,
                maximumText: "16 MiB (give larger payloads as payloadSize)")
            else { return nil }
            return UserInfoValue.zeroBytes(size)
        case "$date":
            guard let seconds = context.number(member.value, valuePath, in: -1e12...1e12,
                                               expected: "seconds since 1 January 2001")
            else { return nil }
            return UserInfoValue.date(secondsSinceReferenceDate: seconds)
        case "$uuid":
            guard let text = context.string(member.value, valuePath), let uuid = UserInfoValue.uuid(string: text) else {
                context.mismatch(member.value, valuePath, expected: "a UUID such as \"E621E1F8-C36C-495A-93FC-0C247A3E6E5F\"")
                return nil
            }
            return uuid
        default:
            context.report(valuePath, at: member.keyPosition,
                           "unknown tagged value \"\(member.key)\"; expected one of \(tags.joined(separator: ", "))"
                               + context.didYouMean(member.key, among: tags))
            return nil
        }
    }
}
