import Foundation

/// URLs remembered for the strings that name them, such as the paths a program calls: a
/// ``RecentValues`` of URLs behind methods that are not generic.
///
/// As SwiftPM builds this package with Swift 6.3.1, another module neither inlines nor
/// specializes a `package` declaration (see ``Locked``), so a call from the `Kilo` module into
/// `RecentValues<URL>` would run its generic code, which looks up the metadata of `[String: URL]`
/// in the runtime's cache on every lookup. Calls into this type's methods reach code that was
/// specialized here.
package final class RecentURLs: Sendable {
    private let values: RecentValues<URL>

    /// Creates an empty store.
    ///
    /// - Parameter limit: How many URLs it holds before it forgets them all.
    package init(limit: Int) {
        values = RecentValues(limit: limit)
    }

    /// The URL remembered for `key`, if any.
    package subscript(key: String) -> URL? {
        values[key]
    }

    /// Remembers `url` for `key`, first forgetting everything if the store is full.
    ///
    /// - Parameters:
    ///   - url: The URL.
    ///   - key: The string that names it.
    package func remember(_ url: URL, for key: String) {
        values.remember(url, for: key)
    }
}
