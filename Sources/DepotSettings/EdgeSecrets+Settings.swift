import DepotOrigin

extension EdgeSecrets {
    /// The secrets of the edge settings (`edge.fillSecrets`, in `edge.fillSecretHeader`); none means edge fill is off.
    package init(settings: EdgeSettings) {
        self.init(headerName: settings.fillSecretHeader, secrets: settings.fillSecrets)
    }
}
