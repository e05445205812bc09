// Runs the source articles' systems end to end and prints what happens; with `--timeline DIR`,
// records the search box of the article "Seeing a pipeline" into DIR instead.
import Foundation
import SluiceExamples

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "--timeline" {
    do {
        try Examples.writeSearchBoxTimeline(to: arguments[2])
    } catch {
        FileHandle.standardError.write(Data("sluice-examples: \(error)\n".utf8))
        exit(1)
    }
} else {
    Examples.runAll(print: { print($0) })
}
