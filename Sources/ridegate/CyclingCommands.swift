import ArgumentParser
import RidegateCore

struct CSCCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "csc",
        abstract: "Cycling speed and cadence sensor tools.",
        subcommands: [Decode.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode CSC Measurement (0x2A5B) values, and the cadence and wheel speed between them.",
            discussion: """
                Each HEX is one value as a speed or cadence sensor notifies it. From the second value on, the \
                cadence and wheel speed since the previous value are added (when its event time advanced; \
                counters and event times may wrap in between). Exit status 65 when a value is malformed \
                (with --json: {"error": "empty" | "truncated" | "unexpected_trailing_bytes"}).
                """)

        @OptionGroup var options: CyclingDecodeOptions

        func run() throws { try options.run(.csc) }
    }
}

struct PowerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "power",
        abstract: "Cycling power meter tools.",
        subcommands: [Decode.self])

    struct Decode: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decode Cycling Power Measurement (0x2A63) values, and the cadence and wheel speed between them.",
            discussion: """
                Each HEX is one value as a power meter notifies it, with every optional field its flags announce. \
                A power meter's wheel event time counts 1/2048 s (CSC's counts 1/1024 s). From the second value \
                on, the cadence and wheel speed since the previous value are added. Exit status 65 when a value \
                is malformed (with --json: {"error": "empty" | "truncated" | "unexpected_trailing_bytes"}).
                """)

        @OptionGroup var options: CyclingDecodeOptions

        func run() throws { try options.run(.power) }
    }
}
