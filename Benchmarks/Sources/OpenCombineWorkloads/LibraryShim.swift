// The one file of this folder that differs from its Sluice counterpart beyond the import line
// (./check-identical requires it in both folders but does not compare it): what the two libraries
// spell differently, given one spelling here so that the workload files stay identical.
import Dispatch
import OpenCombineDispatch

/// A new serial dispatch queue as a `Scheduler`: OpenCombineDispatch wraps it in
/// `DispatchQueue.OCombine` (`queue.ocombine`).
func serialScheduler(label: String) -> DispatchQueue.OCombine {
    DispatchQueue(label: label).ocombine
}
