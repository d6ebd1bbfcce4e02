import Foundation

/// Reading an input file whole, whatever kind of file it is: a regular
/// file, or a pipe or FIFO (`<(…)`, `/dev/stdin`), which has no size until
/// it ends and can be read only once.
///
/// Every reader of an input the command line or a file names (scenarios,
/// overlays, parts of a sweep, experiments and their measured files,
/// baselines) reads through here, once, and parses the bytes it got.
/// Foundation's `FileManager.contents(atPath:)` is not used for inputs: on
/// Linux it gives nil for a pipe.
///
/// ```swift
/// let bytes = InputFile.contents(atPath: "/dev/stdin")
/// ```
package enum InputFile {
    /// The bytes of the file at `path`, read until its end, without asking
    /// its size first; with `maximumBytes`, at most one byte more than that
    /// (so a larger input is found too large without being read whole).
    ///
    /// - Returns: nil when the file cannot be opened or read: it does not
    ///   exist, is a directory, or may not be read.
    /// - Complexity: O(n) for n bytes read.
    package static func contents(atPath path: String, maximumBytes: Int = .max) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while bytes.count <= maximumBytes {
            let room = maximumBytes - bytes.count
            let wanted = room >= chunk.count ? chunk.count : room + 1
            let count = chunk.withUnsafeMutableBytes { buffer in read(descriptor, buffer.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}
