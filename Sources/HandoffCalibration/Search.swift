import Foundation
import HandoffScenario
import SimKernel

/// The calibrator's search: a space-filling screen of the whole ranges at
/// an eighth of the trials, Nelder–Mead from the best screened points (in
/// different parts of the ranges) at a quarter of the trials, and a last
/// Nelder–Mead from the best of them at every trial.
///
/// Every simulation of a candidate runs on the experiment's random numbers,
/// and trial k draws the same numbers whatever the trial count, so a
/// simulation at a quarter of the trials runs exactly the first quarter of
/// the full simulation's trials: the cheap objectives are the full one on
/// fewer draws, noisier but not a different model. The screen finds the
/// basins, so a start in the wrong one costs nothing; the middle stage
/// descends into two of them cheaply, and only the last stage pays for
/// every trial, from close to the floor. The screen's points are a Latin
/// hypercube drawn from the stream `calibrate/screen` of the experiment's
/// seed; the simulations run one after another, so the result is a pure
/// function of the experiment and its seed.
struct GlobalSearch {
    /// Screened points besides the start, per parameter, at
    /// ``screenDivisor`` (a simulation at divisor k runs `trials / k` of
    /// each dataset's trials: see ``Evaluator/trials(_:divisor:)``).
    var screenPerParameter = 10
    var screenDivisor = 8
    /// Nelder–Mead runs of the middle stage, at ``localDivisor``, each
    /// from one of the best screened points that are not close together
    /// (within 0.1 of the range, or a screen's cell, on every axis).
    var localStarts = 2
    var localDivisor = 4
    /// Simulations per vertex (d + 1) of each middle-stage run, and of the
    /// last stage.
    var localBudget = 10
    var finalBudget = 7
    /// The middle stage's simplex, of each range mapped to [0, 1]; nil:
    /// ``simplexSize(screened:dimension:)``. The last stage's is a third.
    var simplex: Double? = nil

    /// A point and its objective.
    typealias Evaluated = (point: [Double], value: Double)

    /// The best point found from `start` (in [0, 1]^d) with at most
    /// `budget` simulations, `f` evaluating a point at a divisor of the
    /// trials (1: every trial). The value returned is at every trial.
    func minimise(
        from start: [Double], budget: Int, key: RandomStreamKey,
        _ f: (_ point: [Double], _ divisor: Int) throws(ScenarioError) -> Double
    ) throws(ScenarioError) -> Evaluated {
        let dimension = start.count
        var used = 0
        func evaluate(_ point: [Double], _ divisor: Int) throws(ScenarioError) -> Double {
            used += 1
            return try f(point, divisor)
        }
        // 1. The screen: the start and a Latin hypercube of the ranges, with
        // a third of the budget at most.
        let count = max(0, min(screenPerParameter * dimension, (budget - 1) / 3))
        var screened: [Evaluated] = [(start, try evaluate(start, screenDivisor))]
        for point in Self.latinHypercube(count: count, lower: Array(repeating: 0, count: dimension),
                                         upper: Array(repeating: 1, count: dimension), key: key.child("screen")) {
            screened.append((point, try evaluate(point, screenDivisor)))
        }
        screened.sort(by: Self.ordered)
        // 2. Nelder–Mead from the best screened points not close together.
        let cell = 1 / Double(max(count, 1))
        var starts: [[Double]] = []
        for candidate in screened where starts.count < localStarts {
            let near = starts.contains { chosen in
                zip(chosen, candidate.point).allSatisfy { abs($0 - $1) < max(cell, 0.1) }
            }
            if !near { starts.append(candidate.point) }
        }
        // The simplex spans half the screen's spacing in d dimensions
        // (count^(-1/d) on each axis: 0.40 for 40 points in four), not
        // its cell on one axis (1/count): a smaller one stalls in the
        // ripples of the screened point's own basin.
        let size = simplex ?? Self.simplexSize(screened: count, dimension: dimension)
        let finalShare = finalBudget * (dimension + 1)
        var local: [Evaluated] = []
        for (index, point) in starts.enumerated() {
            let share = min(localBudget * (dimension + 1), (budget - used - finalShare) / (starts.count - index))
            guard share > dimension + 1 else { break }
            let run = try Calibrator.nelderMead(
                from: point, value: try evaluate(point, localDivisor), size: size, budget: share - 1
            ) { point throws(ScenarioError) in try evaluate(point, localDivisor) }
            local.append((run.point, run.value))
        }
        let best = local.min(by: Self.ordered) ?? screened[0]
        // 3. Every trial, from the best point, with a smaller simplex.
        guard used < budget else { return best }
        let value = try evaluate(best.point, 1)
        guard budget - used > dimension + 1 else { return (best.point, value) }
        let run = try Calibrator.nelderMead(
            from: best.point, value: value, size: size / 3, budget: min(finalShare, budget - used)
        ) { point throws(ScenarioError) in try evaluate(point, 1) }
        return run.value < value ? (run.point, run.value) : (best.point, value)
    }

    /// The middle stage's simplex (of each range mapped to [0, 1]) after a
    /// screen of `screened` points in `dimension` parameters: half their
    /// spacing, `screened^(-1/dimension) / 2`, within 0.05 … 0.25.
    static func simplexSize(screened: Int, dimension: Int) -> Double {
        let spacing = pow(Double(max(screened, 1)), -1 / Double(max(dimension, 1)))
        return min(0.25, max(0.05, spacing / 2))
    }

    /// By value, then by the point's coordinates: a stable order.
    static func ordered(_ a: Evaluated, _ b: Evaluated) -> Bool {
        a.value != b.value ? a.value < b.value : a.point.lexicographicallyPrecedes(b.point)
    }

    /// `count` points of a Latin hypercube in the box `lower`…`upper`: on
    /// every axis one point in each of `count` equal cells, at a uniform
    /// place in it, the cells' order a uniform permutation per axis.
    static func latinHypercube(count: Int, lower: [Double], upper: [Double], key: RandomStreamKey) -> [[Double]] {
        guard count > 0 else { return [] }
        var points = Array(repeating: lower, count: count)
        for axis in lower.indices {
            var generator = key.child("axis", axis).generator()
            var cells = Array(0..<count)
            // Fisher–Yates with the project's generator.
            for index in stride(from: count - 1, to: 0, by: -1) {
                cells.swapAt(index, Int(generator.uniform(below: UInt64(index + 1))))
            }
            let width = upper[axis] - lower[axis]
            for index in 0..<count {
                points[index][axis] = lower[axis] + width * (Double(cells[index]) + generator.unitInterval()) / Double(count)
            }
        }
        return points
    }
}
