import DepotCore
import DepotLedger

/// The App Store outbox and uploads, timed.
extension MeasuredLedger {
    package func enqueueAppleFinish(transactionId: String, now: Int64) async throws(LedgerError) -> Bool {
        try await timed("enqueueAppleFinish") { () async throws(LedgerError) in
            try await base.enqueueAppleFinish(transactionId: transactionId, now: now)
        }
    }

    package func claimAppleJobs(owner: String, now: Int64, leaseSeconds: Int64, limit: Int) async throws(LedgerError) -> [AppleJob] {
        try await timed("claimAppleJobs") { () async throws(LedgerError) in
            try await base.claimAppleJobs(owner: owner, now: now, leaseSeconds: leaseSeconds, limit: limit)
        }
    }

    package func completeAppleJob(id: Int64, owner: String, now: Int64) async throws(LedgerError) -> Bool {
        try await timed("completeAppleJob") { () async throws(LedgerError) in
            try await base.completeAppleJob(id: id, owner: owner, now: now)
        }
    }

    package func retryAppleJob(
        id: Int64, owner: String, nextAttemptAt: Int64, error: String, now: Int64
    ) async throws(LedgerError)
        -> Bool
    {
        try await timed("retryAppleJob") { () async throws(LedgerError) in
            try await base.retryAppleJob(id: id, owner: owner, nextAttemptAt: nextAttemptAt, error: error, now: now)
        }
    }

    package func failAppleJob(id: Int64, owner: String, error: String, now: Int64) async throws(LedgerError) -> Bool {
        try await timed("failAppleJob") { () async throws(LedgerError) in
            try await base.failAppleJob(id: id, owner: owner, error: error, now: now)
        }
    }

    package func appleJobs(states: [AppleJob.State], afterId: Int64, limit: Int) async throws(LedgerError) -> [AppleJob] {
        try await timed("appleJobs") { () async throws(LedgerError) in
            try await base.appleJobs(states: states, afterId: afterId, limit: limit)
        }
    }

    package func appleJobs(transactionId: String) async throws(LedgerError) -> [AppleJob] {
        try await timed("appleJobsOfTransaction") { () async throws(LedgerError) in try await base.appleJobs(transactionId: transactionId) }
    }

    package func appleJobCounts() async throws(LedgerError) -> [AppleJob.State: Int] {
        try await timed("appleJobCounts") { () async throws(LedgerError) in try await base.appleJobCounts() }
    }

    package func setConsumptionConsent(transactionId: String, consented: Bool, now: Int64) async throws(LedgerError) -> Bool {
        try await timed("setConsumptionConsent") { () async throws(LedgerError) in
            try await base.setConsumptionConsent(transactionId: transactionId, consented: consented, now: now)
        }
    }

    package func consumptionConsentedAt(transactionId: String) async throws(LedgerError) -> Int64? {
        try await timed("consumptionConsentedAt") { () async throws(LedgerError) in
            try await base.consumptionConsentedAt(transactionId: transactionId)
        }
    }

    package func recordRefundReview(
        transactionId: String, pendingRefundToken: String, now: Int64
    ) async throws(LedgerError) -> Bool {
        try await timed("recordRefundReview") { () async throws(LedgerError) in
            try await base.recordRefundReview(transactionId: transactionId, pendingRefundToken: pendingRefundToken, now: now)
        }
    }

    package func pendingRefundToken(transactionId: String) async throws(LedgerError) -> String? {
        try await timed("pendingRefundToken") { () async throws(LedgerError) in
            try await base.pendingRefundToken(transactionId: transactionId)
        }
    }

    package func createUpload(_ upload: UploadRecord) async throws(LedgerError) {
        try await timed("createUpload") { () async throws(LedgerError) in try await base.createUpload(upload) }
    }

    package func createUpload(
        _ upload: UploadRecord, within quota: UploadQuota, now: Int64
    ) async throws(LedgerError) -> UploadQuotaOutcome {
        try await timed("createUploadWithinQuota") { () async throws(LedgerError) in
            try await base.createUpload(upload, within: quota, now: now)
        }
    }

    package func upload(id: String) async throws(LedgerError) -> UploadRecord? {
        try await timed("upload") { () async throws(LedgerError) in try await base.upload(id: id) }
    }

    package func advanceUpload(
        id: String, from: Int64, to: Int64, length: Int64?, expiresAt: Int64, now: Int64, part: String?
    ) async throws(LedgerError) -> Bool {
        try await timed("advanceUpload") { () async throws(LedgerError) in
            try await base.advanceUpload(id: id, from: from, to: to, length: length, expiresAt: expiresAt, now: now, part: part)
        }
    }

    package func uploadParts(id: String) async throws(LedgerError) -> [UploadPart] {
        try await timed("uploadParts") { () async throws(LedgerError) in try await base.uploadParts(id: id) }
    }

    package func deleteUpload(id: String) async throws(LedgerError) -> Bool {
        try await timed("deleteUpload") { () async throws(LedgerError) in try await base.deleteUpload(id: id) }
    }

    package func expiredUploads(now: Int64, limit: Int) async throws(LedgerError) -> [String] {
        try await timed("expiredUploads") { () async throws(LedgerError) in try await base.expiredUploads(now: now, limit: limit) }
    }
}
