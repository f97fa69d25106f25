@testable import DepotOrigin
import Foundation
import Testing

/// The connection gate's counting, without sockets.
@Suite("Connection gate")
struct ConnectionGateTests {
    @Test func perAddressLimitRefusesOnlyThatAddressAndReleasesGiveBack() {
        let gate = ConnectionGate(maxConnections: 10, maxPerAddress: 2)
        #expect(gate.admit(address: "10.0.0.1") == .admitted)
        #expect(gate.admit(address: "10.0.0.1") == .admitted)
        #expect(gate.admit(address: "10.0.0.1") == .overPerAddress)
        #expect(gate.admit(address: "10.0.0.2") == .admitted)
        gate.release(address: "10.0.0.1")
        #expect(gate.admit(address: "10.0.0.1") == .admitted)
        #expect(gate.counts == .init(open: 3, admitted: 4, refusedTotal: 0, refusedPerAddress: 1))
    }

    @Test func totalLimitRefusesEveryoneUntilAConnectionCloses() {
        let gate = ConnectionGate(maxConnections: 2, maxPerAddress: 5)
        #expect(gate.admit(address: "10.0.0.1") == .admitted)
        #expect(gate.admit(address: nil) == .admitted)
        #expect(gate.admit(address: "10.0.0.3") == .overTotal)
        #expect(gate.admit(address: "10.0.0.1") == .overTotal)
        gate.release(address: nil)
        #expect(gate.admit(address: "10.0.0.3") == .admitted)
        #expect(gate.counts == .init(open: 2, admitted: 3, refusedTotal: 2, refusedPerAddress: 0))
    }

    @Test func exemptAddressesCountTowardsTheTotalOnly() {
        let gate = ConnectionGate(maxConnections: 3, maxPerAddress: 1, exempt: { $0 == "10.9.9.9" })
        #expect(gate.admit(address: "10.9.9.9") == .admitted)
        #expect(gate.admit(address: "10.9.9.9") == .admitted)
        #expect(gate.admit(address: "10.0.0.1") == .admitted)
        #expect(gate.admit(address: "10.9.9.9") == .overTotal)
        gate.release(address: "10.9.9.9")
        gate.release(address: "10.9.9.9")
        #expect(gate.admit(address: "10.0.0.1") == .overPerAddress)
        #expect(gate.counts.open == 1)
    }

    @Test func withoutALimitPerAddressOneAddressIsHeldToTheTotalOnly() {
        let gate = ConnectionGate(maxConnections: 1000, maxPerAddress: nil)
        for _ in 0..<1000 { #expect(gate.admit(address: "10.0.0.1") == .admitted) }
        #expect(gate.admit(address: "10.0.0.1") == .overTotal)
        gate.release(address: "10.0.0.1")
        #expect(gate.admit(address: "10.0.0.2") == .admitted)
        #expect(gate.counts == .init(open: 1000, admitted: 1001, refusedTotal: 1, refusedPerAddress: 0))
    }

    @Test func refusalsAreCompleteHTTPAnswersThatClose() {
        for (admission, status, code) in [
            (ConnectionGate.Admission.overTotal, "503", "too-many-connections"),
            (.overPerAddress, "429", "too-many-connections-from-address"),
        ] {
            let text = String(decoding: ConnectionRefusalHandler.answer(for: admission, now: 1_700_000_000), as: UTF8.self)
            let parts = text.components(separatedBy: "\r\n\r\n")
            #expect(parts.count == 2)
            #expect(parts[0].hasPrefix("HTTP/1.1 \(status) "))
            #expect(parts[0].contains("\r\nConnection: close"))
            #expect(parts[0].contains("\r\nRetry-After: 5"))
            #expect(parts[0].contains("\r\nDate: Tue, 14 Nov 2023 22:13:20 GMT"))
            #expect(parts[0].contains("\r\nContent-Length: \(parts[1].utf8.count)"))
            #expect(parts[1].contains("\"code\":\"\(code)\""))
        }
    }
}
