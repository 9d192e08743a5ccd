import Foundation

/// Header names as Linux's URLSession stores them: `String.capitalized` ("content-type" becomes
/// "Content-Type"), remembered for the names a transport sends again and again.
///
/// `URLRequest.setValue(_:forHTTPHeaderField:)` on Linux capitalizes each name, checks the value
/// one `Character` at a time and copies the whole header dictionary, a visible part of a small
/// request. ``URLRequest/init(_:)`` checks the values itself and sets all the fields at once, with
/// the names in this case; ``URLSessionTransport`` keeps one of these so that each name is
/// capitalized once.
final class HeaderNameCase: Sendable {
    /// The names capitalized so far; a transport sends few, so 256 is plenty.
    private let names = RecentValues<String>(limit: 256)

    /// The capitalized form of `name`.
    ///
    /// - Parameter name: A header name.
    /// - Returns: `name.capitalized`.
    func capitalized(_ name: String) -> String {
        if let known = names[name] {
            return known
        }
        let capitalized = name.capitalized
        names.remember(capitalized, for: name)
        return capitalized
    }
}
