import Foundation

/// How many threads a pass that splits its work uses: as many as cores, up to 8, or `asked`
/// (the tests') when given. Reading, checking and rendering all take their count from here.
public enum Workers {
    public static func count(_ asked: Int?) -> Int { max(1, min(asked ?? ProcessInfo.processInfo.activeProcessorCount, 8)) }
}
