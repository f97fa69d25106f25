import DepotAPI
import NIOCore
import NIOHTTP1

/// How what arrived is answered, handed on, or made to wait, in the order of the requests.
extension BundleConnectionStateMachine {
    /// Processes what arrived now, or queues it behind what waits.
    mutating func arrived(_ arrival: Arrival) {
        guard lifecycle.isTakingRequests else { return }
        if pending.isEmpty && canProcess(arrival) {
            process(arrival)
        } else {
            pending.append(arrival)
        }
    }

    /// Whether an arrival may be processed now: a head waits behind an answer of ours being written, and a
    /// request of ours (or a refusal) waits behind routed answers still due (answers go out in request order).
    func canProcess(_ arrival: Arrival) -> Bool {
        switch arrival {
        case .part(.head(let head)):
            switch order {
            case .idle: return true
            case .answering: return false
            case .forwarded, .modifying: return Self.claimed(head.uri) == nil
            }
        case .part:
            return true
        case .recognized, .rejected:
            return order.isIdle
        }
    }

    /// What this connection answers itself for a request target: a bundle, or the grant check.
    static func claimed(_ uri: String) -> Answer? {
        if let target = BundleRequestTarget(uri: uri) { return .bundle(target) }
        if GrantCheckResponder.isCheck(uri: uri) { return .grantCheck }
        return nil
    }

    /// Answers, refuses or hands on one arrival; returns whether a part was handed on.
    @discardableResult
    mutating func process(_ arrival: Arrival) -> Bool {
        let part: HTTPServerRequestPart
        switch arrival {
        case .part(let arrived):
            part = arrived
        case .recognized(let request):
            let keepAlive = request.keepAlive && lifecycle.keepsAlive
            order.startAnswer(keepAlive: keepAlive)
            actions.append(.answerRecognized(request, keepAlive: keepAlive))
            return false
        case .rejected(let error):
            closeAnswering(error)
            return false
        }
        switch part {
        case .head(let head):
            if let answer = Self.claimed(head.uri) {
                owner = .ours
                let keepAlive = head.isKeepAlive && lifecycle.keepsAlive
                order.startAnswer(keepAlive: keepAlive)
                actions.append(.answer(answer, head, keepAlive: keepAlive))
                return false
            }
            owner = .forwarded
            order.forward(isHead: head.method == .HEAD)
        case .body:
            guard owner == .forwarded else { return false }
        case .end:
            defer { owner = .none }
            guard owner == .forwarded else { return false }
        }
        actions.append(.forward(part))
        return true
    }

    /// Processes what waited, as far as it may go now; a read held back is asked once nothing waits.
    mutating func drain(now: NIODeadline) {
        var forwarded = false
        while lifecycle.isTakingRequests, let waiting = pending.first, canProcess(waiting) {
            pending.removeFirst()
            forwarded = process(waiting) || forwarded
        }
        if forwarded { actions.append(.endReadBurst) }
        if pending.isEmpty && readHeldBack {
            readHeldBack = false
            arriving.readAsked(now: now)
            actions.append(.read)
        }
        if isIdle { idleSince = now }
    }
}
