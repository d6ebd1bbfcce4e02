import HandoffScenario

extension Overlay {
    /// The overlay of a fit: every parameter's value.
    public init(fitted result: CalibrationResult, description: String) {
        self.init(
            description: description,
            values: result.parameters.map { fitted in
                (fitted.parameter.path, fitted.parameter.text(fitted.value))
            },
            replicates: result.replicates.map { values in
                zip(result.parameters, values).map { fitted, value in (fitted.parameter.path, fitted.parameter.text(value)) }
            })
    }
}
