// HandoffScenario: scenario files for HandoffSim.
//
// JSON/      a strict JSON reader that keeps every value's line and column,
//            so a problem in a scenario file can be reported where it is.
