import Foundation

/// Runs jobs on a few worker threads and hands their outputs back in the order the jobs were submitted.
///
/// At most `window` jobs are outstanding (submitted and not yet taken back with `next()`), so the memory
/// their outputs hold is bounded whatever the number of jobs. Each worker thread makes its own worker
/// (state that is not shared, such as a zlib stream) with `makeWorker` when it starts. With `threads`
/// of 1 or less there is no thread at all: `submit` runs the job at once on the caller's thread, which
/// is the sequential writer the parallel one must match byte for byte.
///
/// The caller must call `shutdown()` (it is idempotent) before dropping the pool: worker threads hold it.
final class OrderedWorkPool<Job: Sendable, Output: Sendable>: @unchecked Sendable {
    /// How many jobs may be outstanding at once.
    let window: Int
    /// How many worker threads run jobs; 0 when jobs run inline.
    let threadCount: Int

    // All mutable state below is guarded by `condition`. `broadcast` wakes everyone on every change:
    // with a handful of threads that is simpler than separate conditions and costs nothing measurable.
    private let condition = NSCondition()
    private var queue: [(sequence: Int, job: Job)] = []
    private var queueHead = 0
    private var finished: [Int: Output] = [:]
    private var submitted = 0
    private var delivered = 0
    private var stopping = false
    private var liveThreads = 0
    private let inlineWorker: ((Job) -> Output)?

    /// A pool of `threads` workers (inline when `threads` <= 1) keeping at most `window` jobs outstanding.
    init(threads: Int, window: Int, makeWorker: @escaping @Sendable () -> (Job) -> Output) {
        precondition(window >= 1)
        self.window = window
        if threads <= 1 {
            threadCount = 0
            inlineWorker = makeWorker()
            return
        }
        threadCount = threads
        inlineWorker = nil
        liveThreads = threads
        for index in 0..<threads {
            let thread = Thread { [self] in
                let work = makeWorker()
                runWorker(work)
            }
            thread.name = "depot-bundle-\(index)"
            thread.start()
        }
    }

    deinit {
        precondition(liveThreads == 0, "OrderedWorkPool dropped without shutdown()")
    }

    /// Whether `window` jobs are outstanding: take one back with `next()` before submitting another.
    var isFull: Bool {
        condition.lock()
        defer { condition.unlock() }
        return submitted - delivered >= window
    }

    /// Whether every submitted job's output has been taken back.
    var isEmpty: Bool {
        condition.lock()
        defer { condition.unlock() }
        return submitted == delivered
    }

    /// Queues `job` (or, inline, runs it now). The pool must not be full.
    func submit(_ job: Job) {
        if let inlineWorker {
            precondition(submitted - delivered < window, "submit to a full pool")
            finished[submitted] = inlineWorker(job)
            submitted += 1
            return
        }
        condition.lock()
        defer { condition.unlock() }
        precondition(submitted - delivered < window, "submit to a full pool")
        precondition(!stopping, "submit after shutdown")
        queue.append((submitted, job))
        submitted += 1
        condition.broadcast()
    }

    /// The output of the oldest job not yet taken back, waiting for it if needed; `nil` when every
    /// submitted job has been taken back.
    func next() -> Output? {
        condition.lock()
        defer { condition.unlock() }
        guard delivered < submitted else { return nil }
        while finished[delivered] == nil { condition.wait() }
        let output = finished.removeValue(forKey: delivered)
        delivered += 1
        condition.broadcast()
        return output
    }

    /// Drops queued jobs, lets running ones end, and waits until every worker thread has exited.
    func shutdown() {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        queue.removeAll()
        queueHead = 0
        condition.broadcast()
        while liveThreads > 0 { condition.wait() }
        finished.removeAll()
    }

    private func runWorker(_ work: (Job) -> Output) {
        condition.lock()
        while true {
            while queueHead == queue.count, !stopping { condition.wait() }
            if stopping { break }
            let (sequence, job) = queue[queueHead]
            queueHead += 1
            if queueHead == queue.count {
                queue.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            condition.unlock()
            let output = work(job)
            condition.lock()
            if !stopping { finished[sequence] = output }
            condition.broadcast()
        }
        liveThreads -= 1
        condition.broadcast()
        condition.unlock()
    }
}
