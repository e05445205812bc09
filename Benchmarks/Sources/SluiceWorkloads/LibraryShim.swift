// The one file of this folder that differs from its OpenCombine counterpart beyond the import
// line (./check-identical requires it in both folders but does not compare it): what the two
// libraries spell differently, given one spelling here so that the workload files stay identical.
import Dispatch
import Sluice

/// A new serial dispatch queue as a `Scheduler`: `import Sluice` makes `DispatchQueue` one itself.
func serialScheduler(label: String) -> DispatchQueue {
    DispatchQueue(label: label)
}
