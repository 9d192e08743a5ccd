// The facade re-exports the modules it composes, so `import Kilo` is all a user writes.
@_exported import KiloCore
@_exported import KiloEncoding
@_exported import KiloTransport

#if canImport(FoundationNetworking)
    // Kilo 3.x code that names `URLSession` compiles on Linux with `import Kilo` alone.
    @_exported import FoundationNetworking
#endif
