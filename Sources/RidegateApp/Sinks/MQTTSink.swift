import RidegateCore
import RidegateLinux

/// Publishes the core's messages through `MosquittoClient` (libmosquitto driven by the gateway's event loop).
public struct MQTTSink: EffectSink {
    let client: MosquittoClient

    public init(client: MosquittoClient) {
        self.client = client
    }

    public func apply(_ effect: Effect) {
        if case .publish(let publication) = effect { client.publish(publication) }
    }

    public func shutdown() async {
        await client.shutdown()
    }
}
