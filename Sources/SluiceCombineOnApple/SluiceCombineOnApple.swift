// The `Combine` product as a host with Apple's Combine sees it: an empty module.
//
// Where Apple's Combine exists, `import Combine` must find Apple's framework. Package.swift gives
// the `Combine` product this module there instead of the module named `Combine` (Sources/Combine),
// so that a package graph built on such a host never holds a second module of that name, even when
// a client depends on the product without a platform condition. It declares nothing.
