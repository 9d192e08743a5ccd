import Foundation

extension Data {
    /// The data as UTF-8 text, for comparing a body with an expected string in a readable way.
    var utf8Text: String {
        String(decoding: self, as: UTF8.self)
    }
}
