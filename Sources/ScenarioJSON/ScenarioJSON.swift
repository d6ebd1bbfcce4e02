// ScenarioJSON: JSON with source positions, for HandoffSim's input files
// and reports. Standard library only; knows nothing of scenarios.
//
// Reading: a strict JSON reader that keeps every value's line and column,
//            so a problem in a scenario file can be reported where it is.
//            JSONParser.parse gives a JSONNode tree (values with their
//            SourcePosition; object members in document order, duplicates
//            kept) or throws the first JSONSyntaxError, whose messages are
//            our own and so identical on Linux and macOS (Foundation's
//            JSONSerialization gives neither positions nor portable
//            messages). Numbers stay as written (JSONNumber) until the
//            caller asks for an Int64 or a Double.
// Writing: JSONWriter renders a JSONOutput tree deterministically (members
//            in the order given, 2-space indentation or compact) for
//            reports.
//
// Everything here is `package`: the package's own modules (HandoffScenario,
// HandoffCalibration, HandoffReport, the commands, the benchmarks) use it;
// it is no part of the public API.
