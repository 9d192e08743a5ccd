import Foundation

/// Header names as Linux's URLSession stores them: `String.capitalized` ("content-type" becomes
/// "Content-Type"), remembered for the names a transport sends again and again.
///
/// `URLRequest.setValue(_:forHTTPHeaderField:)` on Linux capitalizes each name, checks the value
/// one `Character` at a time and copies the whole header dictionary: about 10,000 instructions a
/// field, 4% of a form POST on loopback. ``URLRequest/init(_:)`` checks the values itself and sets
/// all the fields at once, with the names in this case; ``URLSessionTransport`` keeps one of these
/// so that each name is capitalized once.
///
/// `@unchecked Sendable`: `names` is only touched while `lock` is held.
final class HeaderNameCase: @unchecked Sendable {
    /// How many names one remembers before it starts again.
    private static let limit = 256

    private let lock = NSLock()
    private var names: [String: String] = [:]

    /// The capitalized form of `name`.
    ///
    /// - Parameter name: A header name.
    /// - Returns: `name.capitalized`.
    func capitalized(_ name: String) -> String {
        if let known = lock.withLock({ names[name] }) {
            return known
        }
        let capitalized = name.capitalized
        lock.withLock {
            if names.count >= Self.limit {
                names.removeAll(keepingCapacity: true)
            }
            names[name] = capitalized
        }
        return capitalized
    }
}
