import Foundation

/// The package's root directory (this file is Tests/HandoffCalibrationTests/…).
func packageRoot(filePath: String = #filePath) -> String {
    URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
}
