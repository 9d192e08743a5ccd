import Kilo
import NIOHTTP1

extension KiloTransport.HTTPHeaders {
    /// Creates headers from a response's, joining the values of a repeated field with ", " (as
    /// `URLSession` does), in the order they arrived.
    ///
    /// - Parameter headers: The response's headers.
    init(_ headers: NIOHTTP1.HTTPHeaders) {
        self.init()
        for (name, value) in headers {
            if let earlier = self[name] {
                self[name] = earlier + ", " + value
            } else {
                self[name] = value
            }
        }
    }
}
