import CCurlShim

/// libcurl, loaded (dlopen) by whoever makes an HTTP request: the uploader, when a training site is configured,
/// and `ridegate upload strava-authorize`. Loaded once per owner, its global setup made then; unloaded with it.
public final class CurlLibrary: Sendable {
    // A pointer to the loaded library's functions, never changed after init: safe to share.
    nonisolated(unsafe) let handle: OpaquePointer

    public struct LoadError: Error, CustomStringConvertible {
        public var reason: String
        public var description: String {
            "uploads need libcurl (\(reason)); install it: sudo apt install libcurl4t64 (libcurl4 on Debian 12)"
        }
    }

    public init() throws(LoadError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let handle = rg_curl_open(&error, error.count) else {
            throw LoadError(reason: String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.handle = handle
        _ = rg_curl_global_init(handle) // before any transfer; failing, each transfer's own init says so
    }

    deinit { rg_curl_close(handle) }
}
