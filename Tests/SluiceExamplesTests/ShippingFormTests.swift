import Sluice
import SluiceExamples
import Testing

@Suite("ShippingForm")
struct ShippingFormTests {
    @Test func nothingIsPublishedBeforeEveryFieldHasAValue() {
        let form = ShippingForm()
        var published: [ShippingInfo] = []
        let watching = form.$shippingInfo.dropFirst().sink { published.append($0) }
        form.nameTextField.type("Moe")
        form.addressTextField.type("Elm St")
        #expect(published.isEmpty)
        #expect(form.shippingInfo == .empty)
        form.cityTextField.type("NY")
        #expect(published == [
            ShippingInfo(name: "Moe", address: "Elm St", city: "N"),
            ShippingInfo(name: "Moe", address: "Elm St", city: "NY"),
        ])
        #expect(form.shippingInfo == ShippingInfo(name: "Moe", address: "Elm St", city: "NY"))
        watching.cancel()
    }

    @Test func everyKeystrokeAfterwardsPublishesTheLatestOfAllThree() {
        let form = ShippingForm()
        form.nameTextField.type("Al")
        form.addressTextField.type("1")
        form.cityTextField.type("X")
        form.nameTextField.type("i")
        #expect(form.shippingInfo == ShippingInfo(name: "Ali", address: "1", city: "X"))
    }

    @Test func theFormSignalsObjectWillChangeOnlyOnceItHasInformation() {
        let form = ShippingForm()
        var changes = 0
        let watching = form.objectWillChange.sink { changes += 1 }
        form.nameTextField.type("A")
        form.addressTextField.type("B")
        #expect(changes == 0)
        form.cityTextField.type("C")
        #expect(changes == 1)
        watching.cancel()
    }

    @Test func theFormAndItsFieldsAreReleased() {
        weak var weakForm: ShippingForm?
        weak var weakField: TextField?
        do {
            let form = ShippingForm()
            form.nameTextField.type("A")
            form.addressTextField.type("B")
            form.cityTextField.type("C")
            weakForm = form
            weakField = form.cityTextField
        }
        #expect(weakForm == nil)
        #expect(weakField == nil)
    }
}
