import Handoff
import HandoffWorld
import ScenarioJSON
import SimKernel

/// Reads apps, their behaviour and site associations from a scenario file, reporting every problem to
/// its context.
struct AppReader {
    let context: DecodingContext

    func readApp(_ node: JSONNode, _ path: JSONPath) -> (AppDescription, AppBehaviour)? {
        guard let object = context.object(node, path, what: "an app object", allowed: ScenarioKeys.app) else {
            return nil
        }
        let bundleID = object.required("bundleID", what: "the app's bundle ID", { context.nonEmptyString($0, $1) })
        let team: TeamID? = object.required("teamID", what: "the app's Team ID", { node, teamPath in
            guard let text = context.string(node, teamPath) else { return nil }
            do {
                return try TeamID(text)
            } catch {
                context.report(teamPath, at: node.position, "invalid \(error)")
                return nil
            }
        })
        let platforms = object.optional("platforms") { node, listPath -> [Platform]? in
            guard let names = context.array(node, listPath, expected: "an array of platforms") else { return nil }
            var result: [Platform] = []
            for (index, element) in names.enumerated() {
                if let name = context.choice(element, listPath.index(index), what: "platform",
                                             among: Platform.allCases.map(\.rawValue)) {
                    result.append(Platform(rawValue: name)!)
                }
            }
            return result
        } ?? Platform.allCases
        let activityTypes = object.optional("activityTypes") { context.strings($0, $1) } ?? []
        let domains = object.optional("associatedDomains") { node, listPath -> [AssociatedDomain]? in
            guard let entries = context.strings(node, listPath) else { return nil }
            var result: [AssociatedDomain] = []
            for (index, entry) in entries.enumerated() {
                do {
                    result.append(try AssociatedDomain(parsing: entry))
                } catch {
                    context.report(listPath.index(index), at: context.array(node, listPath, expected: "")?[index].position,
                                   "invalid \(error)")
                }
            }
            return result
        } ?? []
        let documentTypes = object.optional("documentTypes") { node, listPath -> [DocumentType]? in
            guard let list = context.array(node, listPath, expected: "an array of document types") else { return nil }
            var result: [DocumentType] = []
            for (index, element) in list.enumerated() {
                let elementPath = listPath.index(index)
                guard let type = context.object(element, elementPath, what: "a document type object",
                                                allowed: ScenarioKeys.documentType),
                    let name = type.required("name", what: "the document type's name", { context.nonEmptyString($0, $1) })
                else { continue }
                result.append(DocumentType(
                    name: name, contentTypes: type.optional("contentTypes") { context.strings($0, $1) } ?? [],
                    ubiquitousActivityType: type.optional("ubiquitousActivityType") { context.nonEmptyString($0, $1) }))
            }
            return result
        } ?? []
        let cold = object.optional("coldLaunch") { context.durationDistribution($0, $1) } ?? AppDescription.defaultColdLaunch
        let warm = object.optional("warmLaunch") { context.durationDistribution($0, $1) } ?? AppDescription.defaultWarmLaunch
        let behaviour = object.optional("behaviour") { readBehaviour($0, $1) } ?? AppBehaviour()
        guard let bundleID, let team else { return nil }
        do {
            let app = try AppDescription(
                bundleID: bundleID, teamID: team, platforms: platforms, activityTypes: activityTypes,
                associatedDomains: domains, documentTypes: documentTypes, coldLaunch: cold, warmLaunch: warm)
            return (app, behaviour)
        } catch {
            context.report(path, at: node.position, "invalid app: \(error)")
            return nil
        }
    }

    func readBehaviour(_ node: JSONNode, _ path: JSONPath) -> AppBehaviour? {
        guard let object = context.object(node, path, what: "a behaviour object", allowed: ScenarioKeys.behaviour)
        else { return nil }
        var behaviour = AppBehaviour()
        if let value = object.optional("willContinueTime", { context.duration($0, $1) }) { behaviour.willContinueTime = value }
        if let value = object.optional("notifiesUser", { context.bool($0, $1) }) { behaviour.notifiesUser = value }
        if let value = object.optional("continueTime", { context.duration($0, $1) }) { behaviour.continueTime = value }
        if let value = object.optional("handlesContinuation", { context.bool($0, $1) }) {
            behaviour.handlesContinuation = value
        }
        if let value = object.optional("restorableObjects", { context.strings($0, $1) }) {
            behaviour.restorableObjects = value
        }
        if let value = object.optional("restoreDelay", { context.duration($0, $1) }) { behaviour.restoreDelay = value }
        if let value = object.optional("restoreTime", { context.duration($0, $1) }) { behaviour.restoreTime = value }
        if let value = object.optional("saveTime", { context.duration($0, $1) }) { behaviour.saveTime = value }
        if let value = object.optional("saveEntries", { ActivityReader(context: context).readUserInfo($0, $1) }) { behaviour.saveEntries = value }
        if let value = object.optional("responderEntries", { node, mapPath -> [String: UserInfo]? in
            guard case let .object(members) = node.value else {
                context.mismatch(node, mapPath, expected: "an object of responder names to userInfo entries")
                return nil
            }
            var result: [String: UserInfo] = [:]
            for member in members {
                if let entries = ActivityReader(context: context).readUserInfo(member.value, mapPath.key(member.key)) { result[member.key] = entries }
            }
            return result
        }) {
            behaviour.responderEntries = value
        }
        if let value = object.optional("streamRounds", { node, listPath -> [StreamRound]? in
            guard let list = context.array(node, listPath, expected: "an array of stream rounds") else { return nil }
            var rounds: [StreamRound] = []
            for (index, element) in list.enumerated() {
                let elementPath = listPath.index(index)
                guard let round = context.object(element, elementPath, what: "a stream round object",
                                                 allowed: ScenarioKeys.streamRound),
                    let request = round.required("request", what: "the request size", { context.bytes($0, $1) }),
                    let response = round.required("response", what: "the response size", { context.bytes($0, $1) })
                else { continue }
                rounds.append(StreamRound(requestBytes: request, responseBytes: response))
            }
            return rounds
        }) {
            behaviour.streamRounds = value
        }
        if let value = object.optional("streamResponseTime", { context.duration($0, $1) }) {
            behaviour.streamResponseTime = value
        }
        return behaviour
    }

    /// `{"example.com": ["ABCDE12345.com.example.app"]}`.
    func readSiteAssociations(_ node: JSONNode, _ path: JSONPath) -> SiteAssociations? {
        guard case let .object(members) = node.value else {
            context.mismatch(node, path, expected: "an object of domains to app IDs (\"TEAMID.bundleID\")")
            return nil
        }
        var associations: [SiteAssociation] = []
        for member in members {
            let memberPath = path.key(member.key)
            guard let apps = context.strings(member.value, memberPath, expected: "an array of app IDs (\"TEAMID.bundleID\")")
            else { continue }
            do {
                associations.append(try SiteAssociation(domain: member.key, activityContinuationApps: apps))
            } catch {
                context.report(memberPath, at: member.value.position, "invalid site association: \(error)")
            }
        }
        return SiteAssociations(associations)
    }
}
