import Foundation

/// Formats numbers for the tables; each benchmark adds the units it needs.
public enum Format {
    /// A ratio such as `0.97×`, or `–` when there is none.
    public static func ratio(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "–" }
        return String(format: "%.2f×", value)
    }

    /// A rate per second, rounded to a whole number, or `–` when it is not finite.
    public static func rate(_ perSecond: Double) -> String {
        perSecond.isFinite ? String(format: "%.0f", perSecond) : "–"
    }
}
