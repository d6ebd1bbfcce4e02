#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Resource figures of the benchmark process itself.
enum ProcessStatistics {
    /// The peak resident set size of this process, in bytes, or `nil` where
    /// the platform does not report it.
    static func peakResidentBytes() -> UInt64? {
        #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
        var usage = rusage()
        #if canImport(Darwin)
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss)  // bytes on Darwin
        #else
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss) * 1024  // kibibytes on Linux
        #endif
        #else
        return nil
        #endif
    }
}
