extension ConsoleFiles {
    /// `favicon.svg`: The tab's icon.
    static let faviconSVG = #"""
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
        <rect width="32" height="32" rx="6" fill="#2f5bd3"/>
        <path d="M8 9h16v4H8zm0 6h16v8H8z" fill="#fff"/>
        </svg>
        """#
}
