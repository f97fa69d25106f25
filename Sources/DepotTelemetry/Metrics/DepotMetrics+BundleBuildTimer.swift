import DepotServices

extension DepotMetrics: BundleBuildTimer {}
