// swift-tools-version:6.0
//
// An app team's package: a small notes app's editing controller (NotesApp,
// plain Swift, no HandoffSim in it) and its Handoff tests (NotesAppTests),
// which plug the controller into simulated devices through HandoffSim.
import PackageDescription

let package = Package(
    name: "NotesApp",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [
        // In your package: .package(url: "<HandoffSim's clone URL>", branch: "main")
        .package(name: "HandoffSim", path: "../.."),
    ],
    targets: [
        .target(name: "NotesApp"),
        .testTarget(
            name: "NotesAppTests",
            dependencies: ["NotesApp", .product(name: "HandoffSim", package: "HandoffSim")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
