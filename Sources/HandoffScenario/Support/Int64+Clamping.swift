extension Int64 {
    /// `value` rounded to the nearest whole number (ties away from zero)
    /// and clamped to `Int64`'s range, NaN as 0: a conversion from `Double`
    /// that cannot trap, for values a file or a fit can make arbitrarily
    /// large.
    ///
    /// ```swift
    /// Int64(roundingClamped: 2.5)    // 3
    /// Int64(roundingClamped: 1e30)   // Int64.max
    /// ```
    package init(roundingClamped value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= 0x1p63 {
            self = .max
        } else if value < -0x1p63 {
            self = .min
        } else {
            // |value| < 2⁶³, and so is its rounding (or it is exactly -2⁶³).
            let rounded = value.rounded()
            self = rounded >= 0x1p63 ? .max : Int64(rounded)
        }
    }
}
