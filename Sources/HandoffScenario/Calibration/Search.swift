import Foundation
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
    var finalBudget = 10
    /// Simulations per coefficient of a bootstrap replicate's quadratic
    /// model (see ``refit(from:radius:key:_:)``).
    var samplesPerCoefficient = 2.0

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
        let size = min(0.15, max(0.05, 2 * cell))
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

    /// One round at every trial around `start`, of half-width `radius`:
    /// the refit of a bootstrap replicate, from the fit's point.
    func refit(
        from start: [Double], radius: Double, key: RandomStreamKey,
        _ f: (_ point: [Double]) throws(ScenarioError) -> Double
    ) throws(ScenarioError) -> Evaluated {
        let coefficients = QuadraticModel.coefficients(dimension: start.count)
        let perRound = max(coefficients + 1, Int((samplesPerCoefficient * Double(coefficients)).rounded(.up)))
        let lower = start.map { max(0, $0 - radius) }
        let upper = start.map { min(1, $0 + radius) }
        var samples: [Evaluated] = [(start, try f(start))]
        for point in Self.latinHypercube(count: perRound - 1, lower: lower, upper: upper, key: key.child("round")) {
            samples.append((point, try f(point)))
        }
        let sampledBest = samples.min(by: Self.ordered)!
        guard let model = QuadraticModel(fitting: samples, center: start, scale: radius) else { return sampledBest }
        let proposal = model.minimum(lower: lower, upper: upper, key: key.child("model"))
        let value = try f(proposal)
        return sampledBest.value < value ? sampledBest : (proposal, value)
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

/// A quadratic in d variables fitted by least squares: a constant, d
/// linear terms and the d(d+1)/2 products (or, past six variables, only the
/// squares, so that a round needs no more than 4d + 3 simulations).
struct QuadraticModel {
    let center: [Double]
    let scale: Double
    let full: Bool
    let beta: [Double]

    /// Coefficients of the model in `dimension` variables.
    static func coefficients(dimension: Int) -> Int {
        dimension <= 6 ? (dimension + 1) * (dimension + 2) / 2 : 2 * dimension + 1
    }

    /// The terms at `point`, in coordinates centred at `center` and
    /// divided by `scale` (well conditioned whatever the region's size).
    func terms(_ point: [Double]) -> [Double] {
        Self.terms(point.indices.map { (point[$0] - center[$0]) / scale }, full: full)
    }

    static func terms(_ z: [Double], full: Bool) -> [Double] {
        var terms = [1.0] + z
        for i in z.indices {
            if full {
                for j in i..<z.count { terms.append(z[i] * z[j]) }
            } else {
                terms.append(z[i] * z[i])
            }
        }
        return terms
    }

    /// The least-squares fit to `samples`, or nil if they do not determine
    /// it (fewer than its coefficients, or a singular system).
    init?(fitting samples: [(point: [Double], value: Double)], center: [Double], scale: Double) {
        self.center = center
        self.scale = scale
        full = center.count <= 6
        let count = Self.coefficients(dimension: center.count)
        guard samples.count >= count, scale > 0 else { return nil }
        // Normal equations, with a ridge of 1e-9 of the diagonal's scale.
        var matrix = Array(repeating: [Double](repeating: 0, count: count), count: count)
        var vector = [Double](repeating: 0, count: count)
        for sample in samples {
            let row = Self.terms(sample.point.indices.map { (sample.point[$0] - center[$0]) / scale }, full: full)
            for i in 0..<count {
                vector[i] += row[i] * sample.value
                for j in 0..<count { matrix[i][j] += row[i] * row[j] }
            }
        }
        for i in 0..<count { matrix[i][i] += 1e-9 * max(matrix[i][i], 1) }
        guard let solved = Self.solve(matrix, vector) else { return nil }
        beta = solved
    }

    /// The model's value at `point`.
    func value(_ point: [Double]) -> Double {
        zip(terms(point), beta).reduce(0) { $0 + $1.0 * $1.1 }
    }

    /// The model's lowest point in the box: its stationary point when that
    /// is a minimum inside the box, otherwise the best of a Latin hypercube
    /// of 1,024 points in the box, its corners' projections and the centre.
    func minimum(lower: [Double], upper: [Double], key: RandomStreamKey) -> [Double] {
        let d = center.count
        var candidates = GlobalSearch.latinHypercube(count: 1_024, lower: lower, upper: upper, key: key)
        candidates.append(center)
        if full {
            // Gradient b + H z = 0, H from the products' coefficients.
            var hessian = Array(repeating: [Double](repeating: 0, count: d), count: d)
            var index = d + 1
            for i in 0..<d {
                for j in i..<d {
                    if i == j { hessian[i][i] = 2 * beta[index] } else { hessian[i][j] = beta[index]; hessian[j][i] = beta[index] }
                    index += 1
                }
            }
            if let z = Self.solve(hessian, (0..<d).map { -beta[1 + $0] }) {
                let point = (0..<d).map { center[$0] + scale * z[$0] }
                candidates.append(point.indices.map { min(max(point[$0], lower[$0]), upper[$0]) })
            }
        } else {
            // Each axis on its own: the parabola's vertex, clamped.
            candidates.append((0..<d).map { i in
                let linear = beta[1 + i], square = beta[1 + d + i]
                let z = square > 0 ? -linear / (2 * square) : (linear > 0 ? -1e9 : 1e9)
                return min(max(center[i] + scale * z, lower[i]), upper[i])
            })
        }
        var best = candidates[0]
        var bestValue = value(best)
        for candidate in candidates.dropFirst() {
            let candidateValue = value(candidate)
            if candidateValue < bestValue || (candidateValue == bestValue && candidate.lexicographicallyPrecedes(best)) {
                best = candidate
                bestValue = candidateValue
            }
        }
        return best
    }

    /// The solution of `matrix` x = `vector` by Gaussian elimination with
    /// partial pivoting, or nil if the matrix is singular.
    static func solve(_ matrix: [[Double]], _ vector: [Double]) -> [Double]? {
        var a = matrix
        var b = vector
        let n = b.count
        let scale = a.map { $0.map(abs).max() ?? 0 }.max() ?? 0
        guard scale > 0 else { return nil }
        for column in 0..<n {
            var pivot = column
            for row in (column + 1)..<max(column + 1, n) where abs(a[row][column]) > abs(a[pivot][column]) { pivot = row }
            guard abs(a[pivot][column]) > 1e-12 * scale else { return nil }
            if pivot != column {
                a.swapAt(pivot, column)
                b.swapAt(pivot, column)
            }
            for row in (column + 1)..<max(column + 1, n) {
                let factor = a[row][column] / a[column][column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row][k] -= factor * a[column][k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in (row + 1)..<max(row + 1, n) { sum -= a[row][k] * x[k] }
            x[row] = sum / a[row][row]
        }
        return x
    }
}
