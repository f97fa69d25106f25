import DepotAPI
import DepotCore
import NIOCore
import NIOHTTP1

/// What the connection's state machine asks of the handler that drives it.
extension BundleConnectionStateMachine {
    /// What a request this connection answers itself asks for.
    enum Answer {
        /// `GET`/`HEAD /v1/bundles/...`.
        case bundle(BundleRequestTarget)
        /// `GET /v1/grants/check`.
        case grantCheck
    }

    /// What arrived on the connection, in the order it arrived.
    enum Arrival {
        /// A part NIO's decoder made.
        case part(HTTPServerRequestPart)
        /// A plain bundle request read straight from its bytes.
        case recognized(RecognizedBundleRequest)
        /// A head over the limits, with its answer (414, 431).
        case rejected(DepotError)
    }

    /// Something the handler carries out.
    enum Action {
        /// Hand this request part on to Hummingbird.
        case forward(HTTPServerRequestPart)
        /// End a burst of parts handed on outside a read (Hummingbird's async channel delivers on read-complete).
        case endReadBurst
        /// Answer this request; report the outcome with ``answerWritten(succeeded:inline:now:)``.
        case answer(Answer, HTTPRequestHead, keepAlive: Bool)
        /// Answer this bundle request, read straight from its bytes; report as for ``answer(_:_:keepAlive:)``.
        case answerRecognized(RecognizedBundleRequest, keepAlive: Bool)
        /// Write the interim `100 Continue` (RFC 9110 §10.1.1) below the encoder.
        case sendContinue
        /// Record the evidence of the answer just sent: served bytes for the ledger, an edge's fill.
        case recordEvidence
        /// Ask the socket for more bytes.
        case read
        /// Call ``resume(now:)`` from the event loop later, never from inside some other handler's write.
        case resumeLater
        /// Answer Depot's error (400, 408) outside any request, then close.
        case answerErrorAndClose(DepotError)
        /// Pass the graceful-shutdown event on to Hummingbird.
        case passShutdownOn
        /// Pass a decoder error on.
        case passErrorOn
        /// Close the connection.
        case close
        /// (Re)start the idle timer, to fire in this long; it reports ``idleTimerFired(now:)``.
        case scheduleIdleTimer(in: TimeAmount)
        /// (Re)start the request deadline, to fire in this long; it reports ``deadlinePassed(now:)``.
        case scheduleDeadline(in: TimeAmount)
        /// Stop the request deadline.
        case cancelDeadline
        /// Start the shutdown grace period; it reports ``graceExpired()``.
        case scheduleGraceClose(in: TimeAmount)
        /// Stop the shutdown grace period.
        case cancelGraceClose
        /// Stop every timer: the connection is gone.
        case cancelTimers
    }

    /// What to do with one part of a routed answer that Hummingbird writes.
    enum ResponseWrite: Equatable {
        /// Write it through NIO's encoder.
        case passOn
        /// Drop it: the body of an answer to a HEAD.
        case dropBody
        /// Write the answer's end: through the encoder, or for an answer to a HEAD below it (no chunked
        /// terminator after its head); then close once it went out, or not.
        case end(belowEncoder: Bool, thenClose: Bool)
    }

    /// The part of a routed answer being written.
    enum ResponsePart: Equatable {
        /// A response head; `closes` when it says `Connection: close` (an answer that ends the connection, such
        /// as a 413 sent before the body it refuses was read).
        case head(status: Int, closes: Bool = false)
        case body
        case end
    }
}
