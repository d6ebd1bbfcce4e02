import Handoff
import HandoffAdvice
import HandoffReport
import HandoffScenario
import SimKernel

// The option types and declarations `sweep`, `merge` and `advise` share.

/// How `sweep` and `merge` write a result.
enum SweepFormat: String, CaseIterable, Sendable {
    /// A text table (SweepTable.text).
    case text
    /// CSV (SweepTable.csv).
    case csv
    /// JSON Lines (SweepJSONLines), what a shard writes and merge reads.
    case jsonl
    /// A Markdown table (SweepTable.markdown).
    case markdown
    /// An SVG chart of one latency (SweepChart).
    case svg
}

extension CommandOption where Self == Option<SweepFormat> {
    /// `--format FORMAT` of sweep and merge.
    static var sweepFormat: Option<SweepFormat> {
        .option(name: "--format", .choice("FORMAT"), default: .text, help: "The result's format.")
    }
}

extension CommandOption where Self == Option<LatencyMetric> {
    /// `--metric METRIC` of sweep and merge (and advise, in its words).
    static var chartMetric: Option<LatencyMetric> {
        .option(name: "--metric", .choice("METRIC"), default: .acceptToContinue, help: "The latency an svg chart shows.")
    }
}

extension CommandOption where Self == Option<SweepTable.Columns> {
    /// `--columns COLUMNS` of sweep and merge.
    static var columns: Option<SweepTable.Columns> {
        .option(name: "--columns", .choice("COLUMNS"), default: .compact, help: "The text table's columns.")
    }
}

extension CommandOption where Self == Option<String?> {
    /// `--activity NAME` of sweep and advise.
    static var activity: Option<String?> {
        .option(name: "--activity", .text("NAME"), help: "The activity to measure (files with several).")
    }

    /// `--on DEVICE` of sweep and advise.
    static var device: Option<String?> {
        .option(name: "--on", .text("DEVICE"), help: "The receiving device to measure on.")
    }
}

extension CommandOption where Self == Option<[String]?> {
    /// `sweep --payload LIST`.
    static var payloads: Option<[String]?> {
        .option(
            name: "--payload", .list(),
            help: "Payload sizes (the measured activity's payloadSize), e.g. 256B,1KiB,3KiB,16KiB.")
    }

    /// `sweep --profile LIST`.
    static var profiles: Option<[String]?> {
        .option(name: "--profile", .list(), help: "Network profiles (network.profile), e.g. WiFi,LTE,\"Very Bad Network\".")
    }

    /// `advise --profile LIST`.
    static var advisedProfiles: Option<[String]?> {
        .option(
            name: "--profile", .list(), shownDefault: "the file's \"sweep\" profiles, or its own profile",
            help: "Profiles to advise on.")
    }
}

/// A parameter `sweep --vary` varies, and the values it takes.
struct VariedParameter: Sendable {
    /// Its path in the file, e.g. `network.wifiPeerToPeer.loss`.
    let path: String
    /// Its values as written.
    let values: [String]
}

extension CommandOption where Self == Option<[VariedParameter]> {
    /// `sweep --vary PATH=LIST`.
    static var vary: Option<[VariedParameter]> {
        let syntax = ValueSyntax("PATH=LIST", expected: "PATH=V1,V2,...") { option, text throws(UsageError) in
            guard let equals = text.firstIndex(of: "=") else {
                throw .badValue(option, expected: "PATH=V1,V2,...", found: text)
            }
            return VariedParameter(
                path: String(text[..<equals]), values: listItems(String(text[text.index(after: equals)...])))
        }
        return .repeating(
            name: "--vary", syntax, help: "Any parameter of the file, e.g. network.wifiPeerToPeer.loss=0,0.01,0.05.")
    }
}

extension CommandOption where Self == Option<Shard?> {
    /// `sweep --shard I/N`.
    static var shard: Option<Shard?> {
        let syntax = ValueSyntax<Shard>("I/N", expected: "I/N with 0 ≤ I < N ≤ \(Shard.maximumCount)") {
            option, text throws(UsageError) in
            let parts = text.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
                let shard = Shard(index: index, count: count)
            else {
                throw UsageError(message: "option '\(option)' expects I/N with 0 ≤ I < N ≤ \(Shard.maximumCount), such as 0/4; found '\(text.escapingControlCharacters)'")
            }
            return shard
        }
        return .option(
            name: "--shard", syntax,
            help: "Run the I-th (from 0) of N disjoint slices of every point's trials and write a partial result (JSON Lines) for 'handoff-sim merge'.")
    }
}

extension CommandOption where Self == Option<Int?> {
    /// `sweep --shards N`.
    static var shards: Option<Int?> {
        .option(
            name: "--shards", .integer("N", in: 1...Shard.maximumCount),
            help: "As --shard, with I from SLURM_ARRAY_TASK_ID (less SLURM_ARRAY_TASK_MIN) or JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs). A Slurm array job needs neither option: the index and count come from SLURM_ARRAY_TASK_ID and SLURM_ARRAY_TASK_COUNT.")
    }
}

extension ValueSyntax where Element == SimDuration {
    /// A duration such as `1s` or `750ms`.
    static var duration: ValueSyntax {
        let expected = "a duration such as 1s or 750ms"
        return ValueSyntax("DURATION", expected: expected) { option, text throws(UsageError) in
            guard case let .success(duration) = Quantities.duration(text) else {
                throw .badValue(option, expected: expected, found: text)
            }
            return duration
        }
    }
}

extension CommandOption where Self == Option<SimDuration?> {
    /// `advise --p50 DURATION`.
    static var p50: Option<SimDuration?> {
        .option(name: "--p50", .duration, help: "A bound on the median (50th percentile), e.g. 1s.")
    }

    /// `advise --p90 DURATION`.
    static var p90: Option<SimDuration?> {
        .option(name: "--p90", .duration, help: "A bound on the 90th percentile, e.g. 1s.")
    }

    /// `advise --p95 DURATION`, the one the usage line shows.
    static var p95: Option<SimDuration?> {
        .option(name: "--p95", .duration, inUsage: true, help: "A bound on the 95th percentile, e.g. 1s.")
    }

    /// `advise --p99 DURATION`.
    static var p99: Option<SimDuration?> {
        .option(name: "--p99", .duration, help: "A bound on the 99th percentile, e.g. 1s.")
    }
}

extension CommandOption where Self == Option<Bool> {
    /// `--no-intervals`, for sweep and advise.
    static var noIntervals: Option<Bool> {
        .flag(
            name: "--no-intervals",
            help: "Do not run the bootstrap replicates an --overlay from 'calibrate --bootstrap N --output' holds (without this flag each replicate runs on the same trials and gives a 95% interval: one more run per replicate).")
    }

    /// `advise --sensitivity`.
    static var sensitivity: Option<Bool> {
        .flag(
            name: "--sensitivity",
            help: "Move every value the file does not set to both ends of its plausible range (on common random numbers) and report how far each moves the answer, largest first.")
    }
}

extension CommandOption where Self == Option<Double> {
    /// `advise --success RATE`.
    static var success: Option<Double> {
        let expected = "a percentage such as 99%"
        let syntax = ValueSyntax<Double>("RATE", expected: expected) { option, text throws(UsageError) in
            guard case let .success(value) = Quantities.percentage(text) else {
                throw .badValue(option, expected: expected, found: text)
            }
            return value
        }
        return .option(
            name: "--success", syntax, default: 0.99, shownAs: "99%",
            help: "The least share of trials that must continue, e.g. 99.9% (decided by its Clopper–Pearson interval; 100% can only be shown missed).")
    }
}

extension CommandOption where Self == Option<Int> {
    /// `advise --resolution SIZE`.
    static var resolution: Option<Int> {
        let expected = "a size such as 64B or 1KiB"
        let syntax = ValueSyntax<Int>("SIZE", expected: expected, describe: { "\($0)B" }) {
            option, text throws(UsageError) in
            guard case let .success(bytes) = Quantities.bytes(text), bytes >= 1 else {
                throw .badValue(option, expected: expected, found: text)
            }
            return bytes
        }
        return .option(name: "--resolution", syntax, default: 64, help: "Find sizes to within SIZE.")
    }

    /// `advise --max-trials N`.
    static var maximumTrials: Option<Int> {
        .option(
            name: "--max-trials", .integer("N", in: 1...ScenarioDecoder.maximumTrials),
            default: Advisor.defaultMaximumTrials,
            help: "The most trials at one size: trials are added (doubling from the file's or --trials) until the size's comparison with the target is decided at 95% confidence; beyond N it is reported undecided, with about how many trials would decide it.")
    }
}
