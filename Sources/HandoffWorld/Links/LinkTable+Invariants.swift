extension LinkRole {
    /// The link table's invariants, and every link's radio flag against
    /// the devices' settings now.
    ///
    /// - Complexity: O(links) with `HANDOFFWORLD_INVARIANTS`, O(1) without.
    func checkInvariants(devices: borrowing DeviceTable) {
        #if HANDOFFWORLD_INVARIANTS
        table.checkInvariants()
        for index in table.indices {
            precondition(
                table[index].flags.radiosUp == radiosUp(linkIndex: index, devices: devices),
                "link \(index)'s radio flag does not follow the devices' settings")
        }
        #endif
    }
}

/// The link table's invariants, checked after every change when
/// `HANDOFFWORLD_INVARIANTS` is defined (debug builds; see Package.swift).
/// Without the define these checks compile to nothing.
extension LinkTable {
    /// Checks the table's shape and every row.
    ///
    /// - Complexity: O(links) with the define, O(1) without.
    func checkInvariants() {
        #if HANDOFFWORLD_INVARIANTS
        precondition(
            rows.count == 2 * deviceCount + Self.linksPerPair * deviceCount * deviceCount,
            "\(rows.count) links for \(deviceCount) devices")
        for index in rows.indices { checkInvariants(ofRow: index) }
        #endif
    }

    /// Checks one row: its ends match its number, its flags and outage
    /// windows describe the parameters it runs with.
    ///
    /// - Complexity: O(outage windows) with the define, O(1) without.
    func checkInvariants(ofRow index: Int) {
        #if HANDOFFWORLD_INVARIANTS
        let kind = kind(of: index)
        precondition(self.index(of: kind) == index, "link \(index) is numbered \(self.index(of: kind)) by its kind")
        let row = rows[index]
        precondition(row.ends == LinkEnds(kind, deviceCount: deviceCount), "link \(index) has the ends of another link")
        precondition(row.flags.hasOutages == !row.outages.isEmpty, "link \(index)'s outage flag disagrees with its windows")
        if row.inUse {
            precondition(row.outages == row.state.parameters.outages, "link \(index)'s outages are not its parameters'")
            let usesDistance: Bool
            if case .distance = row.state.parameters.loss { usesDistance = true } else { usesDistance = false }
            precondition(row.flags.usesDistance == usesDistance, "link \(index)'s distance flag disagrees with its loss model")
        }
        #endif
    }
}
