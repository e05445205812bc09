@_exported import SluiceCore
