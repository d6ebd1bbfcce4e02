// `run --seeds LIST`: the seeds a suite runs under, one after another.
import HandoffScenario

/// The seeds `run --seeds` names, in the order given.
struct SeedList: Hashable, Sendable {
    /// The most seeds one run takes.
    static let maximumCount = 1000

    /// The seeds, each once.
    let seeds: [UInt64]
}

extension ValueSyntax where Element == SeedList {
    /// `LIST`: seeds and ranges separated by commas, e.g. `1,7,42` or `1-5`
    /// or `1-3,12345`; each seed a whole number from 0 to 2⁶³ − 1, each
    /// once, at most ``SeedList/maximumCount`` in all.
    static var seedList: ValueSyntax {
        let expected = "seeds and ranges separated by commas (e.g. 1,7,42 or 1-5), each a whole number from 0 to \(Int64.max), at most \(SeedList.maximumCount) seeds"
        return ValueSyntax("LIST", expected: expected, describe: { $0.seeds.map(String.init).joined(separator: ",") }) {
            option, text throws(UsageError) in
            var seeds: [UInt64] = []
            var seen = Set<UInt64>()
            func seed(_ part: Substring) throws(UsageError) -> UInt64 {
                guard let value = UInt64(part), value <= UInt64(Int64.max) else {
                    throw .badValue(option, expected: expected, found: text)
                }
                return value
            }
            for item in text.split(separator: ",", omittingEmptySubsequences: false) {
                let ends = item.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
                let first = try seed(ends[0])
                let last = ends.count == 2 ? try seed(ends[1]) : first
                guard first <= last else {
                    throw .badValue(option, expected: "a range from low to high (e.g. 1-5)", found: String(item))
                }
                guard last - first < UInt64(SeedList.maximumCount) else {
                    throw .badValue(option, expected: expected, found: text)
                }
                for value in first...last {
                    guard seen.insert(value).inserted else {
                        throw .badValue(option, expected: "each seed once (\(value) is named twice)", found: text)
                    }
                    seeds.append(value)
                    guard seeds.count <= SeedList.maximumCount else {
                        throw .badValue(option, expected: expected, found: text)
                    }
                }
            }
            return SeedList(seeds: seeds)
        }
    }
}

extension CommandOption where Self == Option<SeedList?> {
    /// `run --seeds LIST`.
    static var seeds: Option<SeedList?> {
        .option(
            name: "--seeds", .seedList,
            help: "Run the whole suite once under each seed of LIST (e.g. 1,7,42 or 1-5) instead of the files' seeds; each scenario's verdict is shown per seed, and the run fails if any seed fails. Not with --seed or --samples.")
    }
}

extension CommandOption where Self == Option<Bool> {
    /// `run --strict`.
    static var strict: Option<Bool> {
        .flag(
            name: "--strict",
            help: "Treat a fragile verdict (it held, but its 95% confidence interval crosses the bound) as a failure: exit 1, and a <failure> in the JUnit report.")
    }
}
