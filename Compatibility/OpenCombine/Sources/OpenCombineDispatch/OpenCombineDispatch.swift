// `import OpenCombineDispatch` gives Sluice, as `import OpenCombine` does: in Sluice the Dispatch and Foundation
// integration that OpenCombine keeps in separate modules is part of the `Sluice` module.
@_exported import OpenCombine
