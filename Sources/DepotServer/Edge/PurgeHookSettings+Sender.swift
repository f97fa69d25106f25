import DepotServices

extension PurgeHookSettings {
    /// The sender for the configured hook: a command runs in a child process, a URL gets a POST.
    var sender: any PurgeSender {
        switch target {
        case .command(let command): PurgeCommandSender(command: command)
        case .url(let url, let headers): PurgePostSender(url: url, headers: headers)
        }
    }
}
