import RidegateCore
import RidegateLinux

/// Publishes the core's messages through `MQTTPublisher` (its spool and replay, over libmosquitto on the gateway's event loop).
public struct MQTTSink: EffectSink {
    let client: MQTTPublisher

    public init(client: MQTTPublisher) {
        self.client = client
    }

    public func apply(_ effect: Effect) {
        if case .publish(let publication) = effect { client.publish(publication) }
    }

    public func shutdown() async {
        await client.shutdown()
    }
}
