// `import OpenCombine` gives Sluice: the whole of Combine's API, with Foundation and Dispatch
// integration (schedulers, Timer, NotificationCenter, URLSession, coders).
@_exported import Sluice
