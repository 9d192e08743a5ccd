import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLError {
    /// The error with the code Apple's URLSession gives for the same failure: itself on Apple
    /// platforms; on Linux, where libcurl's message is the only thing that tells some failures
    /// apart, the code that message means (see `URLError+Libcurl.swift`), with the original error
    /// underneath.
    func normalized() -> URLError {
        #if canImport(FoundationNetworking)
            readingLibcurlMessage()
        #else
            self
        #endif
    }
}
