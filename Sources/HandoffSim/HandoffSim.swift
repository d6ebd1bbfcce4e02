// The one import an app's tests need (`import HandoffSim`): the simulated
// time and random streams, the world, the Handoff protocol with its
// delegates, scenario files, calibration, baselines, advice, and the
// reports that put their results in words (`ExpectationResult.asked` and
// `.measured`, the text, JUnit and HTML reports).
@_exported import Handoff
@_exported import HandoffAdvice
@_exported import HandoffBaseline
@_exported import HandoffCalibration
@_exported import HandoffReport
@_exported import HandoffScenario
@_exported import HandoffWorld
@_exported import SimKernel
