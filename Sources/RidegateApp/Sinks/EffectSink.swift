import RidegateCore

/// Something that acts on the core's effects: the MQTT connection, the LED. `apply` must not block (it
/// runs on the pipeline); `shutdown` is the sink's part of the orderly stop.
public protocol EffectSink: Sendable {
    func apply(_ effect: Effect)
    func shutdown() async
}
