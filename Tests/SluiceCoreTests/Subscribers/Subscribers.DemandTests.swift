import Foundation
import SluiceCore
import Testing

@Suite("Subscribers.Demand")
struct DemandTests {
    typealias Demand = Subscribers.Demand

    // MARK: Creating and inspecting

    @Test func maxAndUnlimitedReportTheirCount() {
        #expect(Demand.max(0).max == 0)
        #expect(Demand.max(3).max == 3)
        #expect(Demand.max(Int.max).max == Int.max)
        #expect(Demand.unlimited.max == nil)
        #expect(Demand.none == .max(0))
        #expect(Demand.none.max == 0)
    }

    @Test func description() {
        #expect(String(describing: Demand.unlimited) == "unlimited")
        #expect(String(describing: Demand.max(3)) == "max(3)")
        #expect(String(describing: Demand.none) == "max(0)")
        #expect("\(Demand.max(Int.max))" == "max(\(Int.max))")
    }

    @Test func equalityAndHashing() {
        #expect(Demand.max(2) == .max(2))
        #expect(Demand.max(2) != .max(3))
        #expect(Demand.unlimited == .unlimited)
        #expect(Demand.unlimited != .max(Int.max))
        #expect(Set([Demand.max(1), .max(1), .unlimited, .unlimited, .none]).count == 3)
    }

    // MARK: Addition

    @Test func addingDemands() {
        #expect(Demand.max(2) + .max(3) == .max(5))
        #expect(Demand.none + .max(3) == .max(3))
        #expect(Demand.max(2) + .unlimited == .unlimited)
        #expect(Demand.unlimited + .max(2) == .unlimited)
        #expect(Demand.unlimited + .unlimited == .unlimited)
    }

    @Test func additionThatOverflowsIsUnlimited() {
        #expect(Demand.max(Int.max) + .max(1) == .unlimited)
        #expect(Demand.max(Int.max) + .max(Int.max) == .unlimited)
        #expect(Demand.max(Int.max - 1) + .max(1) == .max(Int.max))
        #expect(Demand.max(Int.max) + 1 == .unlimited)
    }

    @Test func addingAssigning() {
        var demand = Demand.max(1)
        demand += .max(2)
        #expect(demand == .max(3))
        demand += .none
        #expect(demand == .max(3))
        demand += .unlimited
        #expect(demand == .unlimited)
        demand += .max(4)
        #expect(demand == .unlimited)
    }

    @Test func addingIntegers() {
        #expect(Demand.max(2) + 3 == .max(5))
        #expect(Demand.unlimited + 3 == .unlimited)
        #expect(Demand.unlimited + (-3) == .unlimited)
        #expect(Demand.max(5) + (-2) == .max(3))
        #expect(Demand.max(1) + (-2) == .none)  // never below zero
        var demand = Demand.max(1)
        demand += 4
        #expect(demand == .max(5))
        var unlimited = Demand.unlimited
        unlimited += 1
        #expect(unlimited == .unlimited)
    }

    // MARK: Subtraction

    @Test func subtractingDemands() {
        #expect(Demand.max(5) - .max(2) == .max(3))
        #expect(Demand.max(2) - .max(2) == .none)
        // "A negative demand is impossible; ... Combine adjusts the value to .max(0)."
        #expect(Demand.max(2) - .max(5) == .none)
        // "When subtracting any value (including .unlimited) from .unlimited, the result is still .unlimited."
        #expect(Demand.unlimited - .max(5) == .unlimited)
        #expect(Demand.unlimited - .unlimited == .unlimited)
        // "Subtracting .unlimited from any value (except .unlimited) results in .max(0)."
        #expect(Demand.max(5) - .unlimited == .none)
        #expect(Demand.max(Int.max) - .unlimited == .none)
    }

    @Test func subtractingAssigning() {
        var demand = Demand.max(5)
        demand -= .max(2)
        #expect(demand == .max(3))
        demand -= .max(10)
        #expect(demand == .none)
        var unlimited = Demand.unlimited
        unlimited -= .unlimited
        #expect(unlimited == .unlimited)
        var finite = Demand.max(3)
        finite -= .unlimited
        #expect(finite == .none)
    }

    @Test func subtractingIntegers() {
        #expect(Demand.max(5) - 2 == .max(3))
        #expect(Demand.max(2) - 5 == .none)
        #expect(Demand.unlimited - 5 == .unlimited)
        #expect(Demand.unlimited - Int.max == .unlimited)
        #expect(Demand.max(2) - (-3) == .max(5))  // subtracting a negative adds
        // As Apple's: past Int.max, subtracting a negative gives .max(0).
        #expect(Demand.max(Int.max) - (-1) == .none)
        var overflowing = Demand.max(Int.max)
        overflowing -= -1
        #expect(overflowing == .none)
        #expect(Demand.unlimited - (-1) == .unlimited)
        var demand = Demand.max(5)
        demand -= 1
        #expect(demand == .max(4))
        demand -= 10
        #expect(demand == .none)
        var unlimited = Demand.unlimited
        unlimited -= 1
        #expect(unlimited == .unlimited)
    }

    // MARK: Multiplication

    @Test func multiplying() {
        #expect(Demand.max(3) * 4 == .max(12))
        #expect(Demand.max(3) * 0 == .none)
        #expect(Demand.none * 7 == .none)
        #expect(Demand.unlimited * 2 == .unlimited)
        #expect(Demand.unlimited * 0 == .unlimited)
        // "If the multiplication operation overflows, the result is .unlimited."
        #expect(Demand.max(Int.max / 2 + 1) * 2 == .unlimited)
        #expect(Demand.max(Int.max) * Int.max == .unlimited)
        var demand = Demand.max(2)
        demand *= 5
        #expect(demand == .max(10))
        var unlimited = Demand.unlimited
        unlimited *= 3
        #expect(unlimited == .unlimited)
    }

    // MARK: Comparing demands

    @Test func comparingDemands() {
        #expect(Demand.max(1) < .max(2))
        #expect(!(Demand.max(2) < .max(2)))
        #expect(Demand.max(2) <= .max(2))
        #expect(Demand.max(3) > .max(2))
        #expect(Demand.max(2) >= .max(2))
        // `<`: "If lhs is .unlimited, then the result is always false. If rhs is .unlimited then
        // the result is false iff lhs is .unlimited."
        #expect(!(Demand.unlimited < .max(Int.max)))
        #expect(!(Demand.unlimited < .unlimited))
        #expect(Demand.max(Int.max) < .unlimited)
        // `<=`: both unlimited → true; lhs unlimited → false; rhs unlimited → true.
        #expect(Demand.unlimited <= .unlimited)
        #expect(!(Demand.unlimited <= .max(5)))
        #expect(Demand.max(5) <= .unlimited)
        // `>`: both unlimited → false; lhs unlimited → true; rhs unlimited → false.
        #expect(!(Demand.unlimited > .unlimited))
        #expect(Demand.unlimited > .max(Int.max))
        #expect(!(Demand.max(Int.max) > .unlimited))
        // `>=`: both unlimited → true; lhs unlimited → true; rhs unlimited → false.
        #expect(Demand.unlimited >= .unlimited)
        #expect(Demand.unlimited >= .max(5))
        #expect(!(Demand.max(5) >= .unlimited))
    }

    @Test func demandIsComparable() {
        // Apple's Demand conforms to Comparable, so generic algorithms work on it.
        let demands: [Demand] = [.unlimited, .max(3), .none, .max(1)]
        #expect(demands.sorted() == [.none, .max(1), .max(3), .unlimited])
        #expect(demands.max() == .unlimited)
        #expect(demands.min() == Demand.none)
        #expect(Swift.min(Demand.max(3), .unlimited) == .max(3))
        func isLess<T: Comparable>(_ a: T, _ b: T) -> Bool { a < b }
        #expect(isLess(Demand.max(2), .unlimited))
    }

    // MARK: Comparing with integers

    @Test func equalityWithIntegers() {
        #expect(Demand.max(3) == 3)
        #expect(3 == Demand.max(3))
        #expect(Demand.max(3) != 4)
        #expect(4 != Demand.max(3))
        #expect(Demand.none == 0)
        #expect(Demand.none != -1)
        // "An .unlimited demand doesn't match any integer."
        #expect(!(Demand.unlimited == Int.max))
        #expect(Demand.unlimited != Int.max)
        #expect(Int.max != Demand.unlimited)
        #expect(!(Int.max == Demand.unlimited))
    }

    @Test func demandComparedWithIntegers() {
        // `Demand < Int`: unlimited → always false.
        #expect(Demand.max(2) < 3)
        #expect(!(Demand.max(3) < 3))
        #expect(!(Demand.unlimited < Int.max))
        #expect(!(Demand.none < 0))
        #expect(!(Demand.none < -1))
        // `Demand <= Int`: unlimited → always false.
        #expect(Demand.max(3) <= 3)
        #expect(!(Demand.max(4) <= 3))
        #expect(!(Demand.unlimited <= Int.max))
        #expect(!(Demand.none <= -1))
        // `Demand > Int`: unlimited → always true.
        #expect(Demand.max(4) > 3)
        #expect(!(Demand.max(3) > 3))
        #expect(Demand.unlimited > Int.max)
        #expect(Demand.none > -1)
        // `Demand >= Int`: unlimited → always true.
        #expect(Demand.max(3) >= 3)
        #expect(!(Demand.max(2) >= 3))
        #expect(Demand.unlimited >= Int.max)
        #expect(Demand.none >= -5)
    }

    @Test func integersComparedWithDemand() {
        // `Int < Demand`: rhs unlimited → always true.
        #expect(2 < Demand.max(3))
        #expect(!(3 < Demand.max(3)))
        #expect(Int.max < Demand.unlimited)
        #expect(-1 < Demand.none)
        // `Int <= Demand`: rhs unlimited → always true.
        #expect(3 <= Demand.max(3))
        #expect(!(4 <= Demand.max(3)))
        #expect(Int.max <= Demand.unlimited)
        // `Int > Demand`: rhs unlimited → always false.
        #expect(4 > Demand.max(3))
        #expect(!(3 > Demand.max(3)))
        #expect(!(Int.max > Demand.unlimited))
        #expect(!(-1 > Demand.none))
        // `Int >= Demand`: rhs unlimited → always false.
        #expect(3 >= Demand.max(3))
        #expect(!(2 >= Demand.max(3)))
        #expect(!(Int.max >= Demand.unlimited))
    }

    // MARK: Codable

    @Test(arguments: [Demand.none, .max(1), .max(42), .max(Int.max), .unlimited])
    func codableRoundTrip(_ demand: Demand) throws {
        let data = try JSONEncoder().encode(demand)
        #expect(try JSONDecoder().decode(Demand.self, from: data) == demand)
        let plist = try PropertyListEncoder().encode([demand])
        #expect(try PropertyListDecoder().decode([Demand].self, from: plist) == [demand])
    }

    @Test func encodesAsASingleNumber() throws {
        #expect(String(decoding: try JSONEncoder().encode(Demand.max(3)), as: UTF8.self) == "3")
        #expect(String(decoding: try JSONEncoder().encode([Demand.none]), as: UTF8.self) == "[0]")
        // Apple's representation of `.unlimited` is one past `Int.max`.
        #expect(String(decoding: try JSONEncoder().encode(Demand.unlimited), as: UTF8.self) == "9223372036854775808")
    }

    @Test func decodesAnyCountAboveIntMaxAsUnlimited() throws {
        let decoder = JSONDecoder()
        #expect(try decoder.decode(Demand.self, from: Data("9223372036854775808".utf8)) == .unlimited)
        #expect(try decoder.decode(Demand.self, from: Data("18446744073709551615".utf8)) == .unlimited)
        #expect(try decoder.decode(Demand.self, from: Data("9223372036854775807".utf8)) == .max(Int.max))
        #expect(try decoder.decode(Demand.self, from: Data("7".utf8)) == .max(7))
    }

    @Test func decodingANegativeCountThrows() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Demand.self, from: Data("-1".utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(Demand.self, from: Data("\"unlimited\"".utf8))
        }
    }

    // MARK: Preconditions

    @Test func negativeMaxStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let count = Int(CommandLine.arguments.count) - 1_000_000  // negative, known only at run time
            _ = Subscribers.Demand.max(count)
        }
        if let result {
            let message = String(decoding: result.standardErrorContent, as: UTF8.self)
            #expect(message.contains("non-negative"), "stderr: \(message)")
        }
    }
}
