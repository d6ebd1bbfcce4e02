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
        var usage = rusage()
        #if canImport(Glibc)
        // glibc imports RUSAGE_SELF as an enum case; ru_maxrss is in KiB.
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss) * 1024
        #elseif canImport(Musl)
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss) * 1024
        #elseif canImport(Darwin)
        // Darwin reports ru_maxrss in bytes.
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss)
        #else
        return nil
        #endif
    }

    /// The CPU time (user and system) this process has used so far, in
    /// seconds, or `nil` where the platform does not report it.
    static func cpuSeconds() -> Double? {
        var usage = rusage()
        #if canImport(Glibc)
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return nil }
        #elseif canImport(Musl) || canImport(Darwin)
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        #else
        return nil
        #endif
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) * 1e-6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
