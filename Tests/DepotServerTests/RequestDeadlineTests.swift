@testable import DepotServerTestSupport
import DepotAPI
import DepotCore
import DepotServices
@testable import DepotOrigin
import DepotTrust
import Testing

@testable import DepotServer

@Suite("The request deadline's decision, and how verification refusals map to statuses")
struct RequestDeadlineTests {
    @Test(arguments: [
        (false, false, false, RequestDeadline.Decision.answerTimeoutAndClose),
        (false, false, true, .close),
        (true, false, false, .closeAfterResponse),
        (true, false, true, .closeAfterResponse),
        (false, true, false, .closeAfterResponse),
        (true, true, true, .closeAfterResponse),
    ])
    func decision(writing: Bool, earlierPending: Bool, answered: Bool, expected: RequestDeadline.Decision) {
        #expect(
            RequestDeadline.decide(writingResponse: writing, earlierAnswersPending: earlierPending, answered: answered)
                == expected)
    }

    @Test(arguments: [
        (AppStoreVerificationError.Code.payloadInconsistent, 400),
        (.payloadMalformed, 400),
        (.signedInFuture, 403),
        (.chainUntrusted, 403),
    ])
    func verificationRefusalsMapToStatuses(code: AppStoreVerificationError.Code, status: Int) {
        let error = DepotError(DeliveryError.purchaseRefused(AppStoreVerificationError(code, "refused").refusal))
        #expect(error.status == status)
        #expect(error.code == code.description)
    }
}
