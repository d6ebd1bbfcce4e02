// The one import an app's tests need (`import HandoffSim`): the simulated
// time and random streams, the world, the Handoff protocol with its
// delegates, and scenario files.
@_exported import Handoff
@_exported import HandoffScenario
@_exported import HandoffWorld
@_exported import SimKernel
