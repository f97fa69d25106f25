import DepotHTTP
import DepotTrust
import NIOCore
import NIOHTTP1

/// The byte path of one server: what answers `GET`/`HEAD /v1/bundles/{digest}` and the grant check below the
/// routed application, and how it joins each connection's pipeline.
///
/// The server fills it once (its bundles, its grants and revocations, its limits and where evidence goes) and
/// calls ``install(on:before:)`` for every new connection, after NIO's HTTP/1 server pipeline is set up.
package struct BundleOrigin: Sendable {
    /// The timeouts of every connection.
    package struct Timeouts: Sendable {
        /// How long a connection may stay idle.
        package var idle: TimeAmount
        /// How long a request may take to arrive.
        package var request: TimeAmount
        /// How long a running answer may go on once a graceful shutdown began.
        package var shutdownGrace: TimeAmount

        /// The timeouts given.
        package init(idle: TimeAmount, request: TimeAmount, shutdownGrace: TimeAmount) {
            self.idle = idle
            self.request = request
            self.shutdownGrace = shutdownGrace
        }
    }

    /// Who may fetch a bundle and how its bytes are answered.
    let responder: BundleResponder
    /// The answer to an edge's grant check.
    let checker: GrantCheckResponder
    /// Where the bytes served under a grant go, if anywhere.
    let recorder: (any ServedBytesRecording)?
    /// Where bytes sent to filling edges are counted, when edges may fill.
    let edgeFills: EdgeFillCounter?
    /// The state each event loop keeps for the byte path.
    let loopStates: OriginLoopStates
    let timeouts: Timeouts
    let headLimits: RequestHeadLimits
    let metrics: BytePathMetrics?
    let bodyWriter: BundleBodyWriter
    let clock: @Sendable () -> Int64

    /// The byte path serving the bundles of `index` to holders of grants `grants` verifies (unless revoked in
    /// `revocations`) and to edges presenting one of `edgeSecrets`; the grant check keeps its answers up to
    /// `grantCheckCacheSeconds` and, when `purgeTagHeader` is set, names a transaction's checks in it with
    /// `transactionTag`. Bundle bytes go out as file
    /// regions, or as buffers when the server speaks `tls`. With `fileSource`, not every bundle is on this disk: a
    /// missing one is brought in before its answer. `clock` gives seconds since 1970.
    package init(
        index: BundleIndex, grants: GrantAuthority, revocations: RevocationList, edgeSecrets: EdgeSecrets,
        rangeLimits: RangeLimits, grantCheckCacheSeconds: Int64,
        purgeTagHeader: String?, transactionTag: @escaping @Sendable (_ transactionId: String) -> String,
        recorder: (any ServedBytesRecording)?, edgeFills: EdgeFillCounter?, timeouts: Timeouts,
        headLimits: RequestHeadLimits, metrics: BytePathMetrics?, tls: Bool, fileSource: (any BundleFileSource)? = nil,
        clock: @escaping @Sendable () -> Int64
    ) {
        let access = BundleAccess(grants: grants, revocations: revocations, edgeSecrets: edgeSecrets)
        responder = BundleResponder(index: index, access: access, rangeLimits: rangeLimits)
        let checkTag = purgeTagHeader.map { header in
            { @Sendable (transactionId: String) in GrantCheckAnswer.HeaderPair(name: header, value: transactionTag(transactionId)) }
        }
        checker = GrantCheckResponder(access: access, cacheSeconds: grantCheckCacheSeconds, purgeTag: checkTag)
        self.recorder = recorder
        self.edgeFills = edgeSecrets.isEnabled ? edgeFills : nil
        loopStates = OriginLoopStates(source: fileSource)
        self.timeouts = timeouts
        self.headLimits = headLimits
        self.metrics = metrics
        bodyWriter = BundleBodyWriter.forServer(tls: tls)
        self.clock = clock
    }

    /// Adds the byte path to `channel`, whose pipeline NIO's `configureHTTPServerPipeline` set up: its handler goes
    /// just before `next` (where requests are still NIO's parts), with the socket options it writes best with.
    package func install(on channel: any Channel, before next: any ChannelHandler) throws {
        let pipeline = channel.pipeline.syncOperations
        let handler = BundleChannelHandler(
            responder: responder, checker: checker, recorder: recorder, edgeFills: edgeFills,
            loopState: loopStates.state(for: channel.eventLoop), idleTimeout: timeouts.idle, requestTimeout: timeouts.request,
            shutdownGrace: timeouts.shutdownGrace, headLimits: headLimits, metrics: metrics, bodyWriter: bodyWriter,
            clock: clock)
        // A 64 KiB range is one file region: under NIO's default high-water mark (64 KiB) writing it would make
        // the channel unwritable and writable again around every answer, two events through the whole pipeline.
        try channel.syncOptions?.setOption(
            ChannelOptions.writeBufferWaterMark, value: .init(low: 128 * 1024, high: 256 * 1024))
        // A write the socket took in part is not tried again at once: the socket's buffer is full, and the retry
        // would only be told so (one wasted `sendfile` per buffer of a large bundle). NIO's default tries up to
        // 16 more times; the next attempt now waits for the socket to become writable, as nginx's does.
        try channel.syncOptions?.setOption(ChannelOptions.writeSpin, value: 0)
        try Self.install(handler, before: next, in: pipeline)
    }

    /// Adds bundle serving to a pipeline NIO's `configureHTTPServerPipeline` set up: the request decoder is
    /// replaced by one that feeds no encoder, `handler` goes just before `next` (where requests are still NIO's
    /// parts), and the request recognizer first; it holds arriving bytes until the swap is done.
    ///
    /// NIO's server pipeline pairs its request decoder with its response encoder: the decoder queues the method of
    /// every request it reads, and the encoder takes one off the queue for every response head it encodes, to leave
    /// out the body of a HEAD answer. Bundle answers are written below the encoder, so they would never take theirs:
    /// the queue would grow by one per bundle request, and the next routed answer would be framed for the wrong
    /// request (after a bundle HEAD, a routed GET lost its body and the client waited for it). The decoder is
    /// therefore replaced by one that feeds no encoder, and the bundle handler, which sees every request, leaves out
    /// the bodies of routed HEAD answers itself.
    ///
    /// The decoder's limits are the handler's head limits: past a request the recognizer cannot frame, the decoder
    /// alone reads the connection's heads, and refuses one over them (with a 400).
    static func install(
        _ handler: BundleChannelHandler, before next: any ChannelHandler,
        in pipeline: ChannelPipeline.SynchronousOperations
    ) throws {
        let paired = try pipeline.context(handlerType: ByteToMessageHandler<HTTPRequestDecoder>.self)
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = handler.headLimits.maxHeadBytes
        limits.maxHeaderListSize = handler.headLimits.maxHeadBytes
        limits.maxHeaderFieldCount = handler.headLimits.maxFields
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)
        try pipeline.addHandler(ByteToMessageHandler(decoder), position: .after(paired.handler))
        try pipeline.addHandler(handler, position: .before(next))
        let scanner = RequestHeadScanner(
            limits: handler.headLimits,
            edgeSecretField: handler.responder.access.edgeSecretField.map { Array($0.lowercased().utf8) })
        let recognizer = RequestRecognizer(bundleHandler: handler, scanner: scanner)
        try pipeline.addHandler(recognizer, position: .first)
        // A decoder leaves the pipeline on a later turn of the event loop: until it has, bytes that arrive wait in
        // the recognizer, so that they reach the new decoder only (the old one would hand it parts, not bytes).
        recognizer.holdBytes(until: pipeline.removeHandler(context: paired))
    }
}
