// Runs the source articles' systems end to end and prints what happens.
import SluiceExamples

Examples.runAll(print: { print($0) })
