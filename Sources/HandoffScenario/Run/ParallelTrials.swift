import Dispatch
import Foundation

/// Runs work cut into pieces over threads, and hands back each piece's
/// result in piece order: the one way the scenario layer spreads trials
/// over cores (`run`, `sweep` and `baseline` all measure through it).
///
/// Pieces are handed out in order to whichever thread is free, so threads
/// stay busy across pieces of unequal cost. Each thread keeps its own state
/// (its reused run, the scenario it is on), made by the thread itself, so
/// no object is shared between threads while trials run. A piece may stop
/// the work: no piece is handed out after it, and since pieces go out in
/// order, every piece before it has run to its end.
///
/// What is *not* guaranteed: which thread runs which piece, and whether
/// pieces after a stopping piece ran. Read results up to the first piece
/// that stopped; the result then never depends on the number of threads.
struct ParallelTrials: Sendable {
    /// What a piece produced, and whether it stops the work.
    struct PieceOutcome<Output: Sendable>: Sendable {
        let output: Output
        let stops: Bool
    }

    /// Threads to use (at least 1).
    let jobs: Int

    /// Work on up to `jobs` threads.
    init(jobs: Int) { self.jobs = max(1, jobs) }

    /// Runs pieces `0..<pieces` and returns their outcomes in piece order:
    /// `nil` for a piece not run because an earlier-handed piece stopped
    /// the work.
    ///
    /// - Parameters:
    ///   - groups: the group of each piece (a sweep point), given to
    ///     `progress` as groups finish; `nil` for one group.
    ///   - makeState: a thread's own state, made on the thread.
    ///   - piece: runs piece `index` with the thread's state.
    ///   - progress: called with (groups finished, groups) as the last
    ///     piece of a group finishes, under a lock.
    func run<State, Output: Sendable>(
        pieces: Int, groups: [Int]? = nil, makeState: @escaping @Sendable () -> State,
        piece: @escaping @Sendable (inout State, Int) -> PieceOutcome<Output>,
        progress: (@Sendable (Int, Int) -> Void)? = nil
    ) -> [PieceOutcome<Output>?] {
        let slots = UnsafeMutableBufferPointer<PieceOutcome<Output>?>.allocate(capacity: pieces)
        slots.initialize(repeating: nil)
        defer {
            slots.deinitialize()
            slots.deallocate()
        }
        // Each slot is written by the one thread that ran its piece, and read
        // only after every thread has finished.
        nonisolated(unsafe) let shared = slots
        work(pieces: pieces, groups: groups, progress: progress, makeState: makeState, piece: piece) { index, outcome in
            shared[index] = outcome
        }
        return Array(slots)
    }

    /// Runs pieces `0..<pieces` and hands each outcome to `consume` in
    /// piece order, as soon as it and every piece before it have finished:
    /// only the pieces finished out of order wait in memory, so what a run
    /// keeps does not grow with the number of pieces or their size.
    ///
    /// `consume` is called under a lock, one outcome at a time, on
    /// whichever thread finished the piece that completed the order; it
    /// returns `false` to take no more (as at a piece that stopped the
    /// work). Pieces not run, because an earlier-handed piece stopped the
    /// work, are never consumed.
    func run<State, Output: Sendable>(
        pieces: Int, makeState: @escaping @Sendable () -> State,
        piece: @escaping @Sendable (inout State, Int) -> PieceOutcome<Output>,
        consume: @escaping @Sendable (PieceOutcome<Output>) -> Bool
    ) {
        let order = OrderedConsumer(pieces: pieces, consume: consume)
        work(pieces: pieces, groups: nil, progress: nil, makeState: makeState, piece: piece) { index, outcome in
            order.deliver(outcome, at: index)
        }
    }

    /// Hands pieces out in order to up to `jobs` threads, each with its own
    /// state, and gives every outcome to `deliver` (on the thread that ran
    /// the piece) until a piece stops the work.
    private func work<State, Output: Sendable>(
        pieces: Int, groups: [Int]?, progress: (@Sendable (Int, Int) -> Void)?,
        makeState: @escaping @Sendable () -> State, piece: @escaping @Sendable (inout State, Int) -> PieceOutcome<Output>,
        deliver: @escaping @Sendable (Int, PieceOutcome<Output>) -> Void
    ) {
        let workers = max(1, min(jobs, pieces))
        let dispenser = PieceDispenser(groups: groups ?? Array(repeating: 0, count: pieces), progress: progress)
        let work: @Sendable (Int) -> Void = { _ in
            var state = makeState()
            while let index = dispenser.next() {
                let outcome = piece(&state, index)
                deliver(index, outcome)
                if outcome.stops {
                    dispenser.stop()
                    return
                }
                dispenser.finished(index)
            }
        }
        if workers == 1 {
            work(0)
        } else {
            DispatchQueue.concurrentPerform(iterations: workers, execute: work)
        }
    }

    /// `trials` cut into pieces of consecutive trials for `points` points,
    /// in the order they are handed out: every trial once, point by point.
    ///
    /// Each point is cut into enough pieces to keep `workers` threads busy
    /// on it (none with one thread). The last pieces of the run are cut
    /// four times finer, so that the threads finish close together rather
    /// than one waiting while another runs a whole piece of the last and
    /// often dearest point. How the trials are cut never changes a result:
    /// pieces are merged exactly, in order.
    static func pieces(points: Int, trials: Range<Int>, workers: Int) -> [(point: Int, trials: Range<Int>)] {
        func split(_ range: Range<Int>, into pieces: Int) -> [Range<Int>] {
            (0..<pieces).map { piece in
                (range.lowerBound + range.count * piece / pieces)..<(range.lowerBound + range.count * (piece + 1) / pieces)
            }
        }
        guard workers > 1 else { return (0..<points).map { ($0, trials) } }
        let perPoint = max(1, min(trials.count / 64, 4 * workers))
        var pieces = (0..<points).flatMap { point in split(trials, into: perPoint).map { (point: point, trials: $0) } }
        // The tail: the last 2 × workers pieces, each cut in four while
        // pieces keep at least 16 trials.
        let tail = min(pieces.count, 2 * workers)
        let finer = pieces.suffix(tail).flatMap { piece in
            split(piece.trials, into: max(1, min(4, piece.trials.count / 16))).map { (point: piece.point, trials: $0) }
        }
        pieces.removeLast(tail)
        pieces.append(contentsOf: finer)
        return pieces
    }
}

/// Takes pieces' outcomes in any order and hands them to a consumer in
/// piece order, under a lock: the outcomes finished early wait here until
/// the pieces before them are in.
private final class OrderedConsumer<Output: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var waiting: [ParallelTrials.PieceOutcome<Output>?]
    private var next = 0
    private var taking = true
    private let consume: @Sendable (ParallelTrials.PieceOutcome<Output>) -> Bool

    init(pieces: Int, consume: @escaping @Sendable (ParallelTrials.PieceOutcome<Output>) -> Bool) {
        waiting = Array(repeating: nil, count: pieces)
        self.consume = consume
    }

    /// Piece `index` finished with `outcome`.
    func deliver(_ outcome: ParallelTrials.PieceOutcome<Output>, at index: Int) {
        lock.lock()
        defer { lock.unlock() }
        waiting[index] = outcome
        while next < waiting.count, let ready = waiting[next] {
            waiting[next] = nil
            next += 1
            if taking { taking = consume(ready) }
        }
    }
}

/// Hands out piece indices in order to whichever thread asks, under a lock,
/// and reports groups as their last piece finishes.
private final class PieceDispenser: @unchecked Sendable {
    private let lock = NSLock()
    private var nextIndex = 0
    private var stopped = false
    /// The group of every piece, and how many pieces of each group are
    /// still running or to run.
    private let groups: [Int]
    private var unfinished: [Int]
    private var finishedGroups = 0
    private let progress: (@Sendable (Int, Int) -> Void)?

    init(groups: [Int], progress: (@Sendable (Int, Int) -> Void)?) {
        self.groups = groups
        self.progress = progress
        unfinished = [Int](repeating: 0, count: (groups.max() ?? -1) + 1)
        for group in groups { unfinished[group] += 1 }
    }

    /// Records that piece `index` is done; reports its group if it was the
    /// group's last.
    func finished(_ index: Int) {
        lock.lock()
        defer { lock.unlock() }
        let group = groups[index]
        unfinished[group] -= 1
        if unfinished[group] == 0 {
            finishedGroups += 1
            progress?(finishedGroups, unfinished.count)
        }
    }

    /// The next piece, or nil when all are handed out or the work stopped.
    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped, nextIndex < groups.count else { return nil }
        nextIndex += 1
        return nextIndex - 1
    }

    /// Hands out nothing more (a piece stopped the work).
    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
    }
}
