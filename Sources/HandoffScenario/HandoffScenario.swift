// HandoffScenario: scenario files for HandoffSim.
//
// JSON/      a strict JSON reader that keeps every value's line and column,
//            so a problem in a scenario file can be reported where it is.
//            JSONParser.parse gives a JSONNode tree (values with their
//            SourcePosition; object members in document order, duplicates
//            kept) or throws the first JSONSyntaxError, whose messages are
//            our own and so identical on Linux and macOS (Foundation's
//            JSONSerialization gives neither positions nor portable
//            messages). Numbers stay as written (JSONNumber) until the
//            caller asks for an Int64 or a Double.
//            JSONWriter renders a JSONOutput tree deterministically (members
//            in the order given, 2-space indentation or compact) for
//            reports.
