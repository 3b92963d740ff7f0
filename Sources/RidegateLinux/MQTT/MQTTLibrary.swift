import CMosquitto

public enum MQTTLibrary {
    /// mosquitto_lib_version(3).
    public static var versionDescription: String {
        var major: Int32 = 0, minor: Int32 = 0, revision: Int32 = 0
        mosquitto_lib_version(&major, &minor, &revision)
        return "libmosquitto \(major).\(minor).\(revision)"
    }
}
