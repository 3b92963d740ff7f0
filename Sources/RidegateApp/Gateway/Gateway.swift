import RidegateCore
import RidegateLinux

/// Runs the pipeline: sources → core → sinks, one way. Sources run concurrently and feed one event
/// stream; a single consumer owns the core, so the core needs no locks; sinks act on its effects.
///
/// Stopping is ordered: sources are cancelled first, the events already emitted are still processed, the
/// final ride summary and the devices' `stopped` states are published, then each sink shuts down in turn (LED off before MQTT says offline).
public struct Gateway: Sendable {
    public enum StopReason: Sendable, Equatable {
        case signal(Int32)
        case sourcesEnded
    }

    let sources: [any EventSource]
    let sinks: [any EffectSink]
    let core: GatewayCore
    let clock: SystemClock
    let logger: Logger
    /// The demo ends with its ride; the daemon runs until told to stop.
    let stopWhenSourcesEnd: Bool
    /// Runs beside the sources (the demo's simulated receiver), cancelled with them.
    let companions: [@Sendable () async -> Void]
    /// The thread the gateway's tasks run on (`EventLoop`): its parts were built on it too.
    let loop: EventLoop

    public init(sources: [any EventSource], sinks: [any EffectSink], core: GatewayCore, clock: SystemClock, logger: Logger,
                stopWhenSourcesEnd: Bool = false, companions: [@Sendable () async -> Void] = [], loop: EventLoop) {
        self.loop = loop
        self.sources = sources
        self.sinks = sinks
        self.core = core
        self.clock = clock
        self.logger = logger
        self.stopWhenSourcesEnd = stopWhenSourcesEnd
        self.companions = companions
    }

    /// Runs until a signal arrives on `signals` (or, for the demo, the sources end); returns why it stopped.
    /// Its tasks prefer `loop` as their executor: on the daemon's main thread, where the loop already runs every
    /// job, nothing changes; a gateway on a test's loop runs there too.
    public func run(signals: AsyncStream<Int32>) async -> StopReason {
        await withTaskExecutorPreference(loop) { await runHere(signals: signals) }
    }

    private func runHere(signals: AsyncStream<Int32>) async -> StopReason {
        let events = EventChannel<SourceEvent>()
        let reason = await withTaskGroup(of: Void.self, returning: StopReason.self) { outer in
            outer.addTask { await consume(events) }
            let reason = await runSources(emit: { events.send($0) }, signals: signals)
            logger.debug("sources stopped")
            events.finish()
            await outer.waitForAll()
            logger.debug("events drained")
            return reason
        }
        for sink in sinks {
            await sink.shutdown()
            logger.debug("sink stopped", [("sink", "\(type(of: sink))")])
        }
        logger.info("stopped")
        return reason
    }

    private func consume(_ events: EventChannel<SourceEvent>) async {
        var core = core
        for effect in core.startupEffects() { deliver(effect) }
        while let event = await events.next() {
            for effect in core.handle(event) { deliver(effect) }
        }
        // The stream ends only after every source has stopped: the last word on this ride and its devices.
        for effect in core.shutdownEffects(at: clock.now()) { deliver(effect) }
    }

    /// An effect to every sink; what the core asks to be said, to the log.
    private func deliver(_ effect: Effect) {
        if case .log(let record) = effect {
            logger.log(record.level, record.message, record.metadata)
            return
        }
        for sink in sinks { sink.apply(effect) }
    }

    private func runSources(emit: @escaping @Sendable (SourceEvent) -> Void, signals: AsyncStream<Int32>) async -> StopReason {
        await withTaskGroup(of: StopReason?.self, returning: StopReason.self) { group in
            group.addTask {
                await withTaskGroup(of: Void.self) { inner in
                    for source in sources { inner.addTask { await source.run(emit: emit) } }
                    for companion in companions { inner.addTask { await companion() } }
                    // Companions (a replayed receiver) end on their own; only the sources' end matters.
                    await inner.waitForAll()
                }
                guard stopWhenSourcesEnd else {
                    // A daemon whose sources all ended (none configured) idles until it is told to stop.
                    await loop.sleep(seconds: .infinity)
                    return nil
                }
                return .sourcesEnded
            }
            group.addTask {
                for await signal in signals {
                    logger.notice("stopping", [("signal", TerminationSignals.name(signal))])
                    return .signal(signal)
                }
                return nil
            }
            var reason: StopReason = .sourcesEnded
            for await result in group {
                if let result {
                    reason = result
                    break
                }
            }
            group.cancelAll()
            return reason
        }
    }
}
