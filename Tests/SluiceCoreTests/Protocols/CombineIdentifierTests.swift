import Dispatch
import SluiceCore
import Testing

@Suite("CombineIdentifier")
struct CombineIdentifierTests {
    @Test func everyNewIdentifierIsUnique() {
        let identifiers = (0..<1_000).map { _ in CombineIdentifier() }
        #expect(Set(identifiers).count == 1_000)
    }

    @Test func identifiersCreatedConcurrentlyAreUnique() {
        let batches = Shared<[CombineIdentifier]>([])
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            let batch = (0..<2_000).map { _ in CombineIdentifier() }
            batches.mutate { $0.append(contentsOf: batch) }
        }
        #expect(Set(batches.value).count == 8_000)
    }

    @Test func objectIdentifiersFollowIdentity() {
        let a = Token()
        let b = Token()
        #expect(CombineIdentifier(a) == CombineIdentifier(a))
        #expect(CombineIdentifier(a) != CombineIdentifier(b))
        #expect(CombineIdentifier(a).hashValue == CombineIdentifier(a).hashValue)
    }

    @Test func objectIdentifiersDoNotCollideWithCounterIdentifiers() {
        let objects = (0..<100).map { _ in Token() }
        let fromObjects = Set(objects.map(CombineIdentifier.init))
        let fresh = Set((0..<100).map { _ in CombineIdentifier() })
        #expect(fromObjects.isDisjoint(with: fresh))
    }

    @Test func descriptionIsHexadecimal() {
        let description = CombineIdentifier().description
        #expect(description.hasPrefix("0x"))
        #expect(description.dropFirst(2).allSatisfy { $0.isHexDigit })
        #expect(UInt64(description.dropFirst(2), radix: 16) != nil)
        let object = Token()
        let objectDescription = String(describing: CombineIdentifier(object))
        #expect(UInt(objectDescription.dropFirst(2), radix: 16) == UInt(bitPattern: ObjectIdentifier(object)))
    }
}
