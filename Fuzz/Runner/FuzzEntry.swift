import Glibc
import RidegateApp
import RidegateCore
import RidegateFuzzTargets

func standardError(_ line: String) {
    var text = line + "\n"
    _ = text.withUTF8 { write(2, $0.baseAddress, $0.count) }
}

#if FUZZING
/// Built by `scripts/fuzz` with `-sanitize=fuzzer,address -DFUZZING`; the target comes from
/// `RIDEGATE_FUZZ_TARGET`, so one instrumented binary serves them all.
///
/// SwiftPM names an executable's entry point `<module>_main` and points `main` at it; here that entry point
/// hands the command line to libFuzzer's driver (libFuzzer's own `main` is then never linked in).
@_cdecl("ridegate_fuzz_main")
public func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    _ = FuzzTargetSelection.target // refuse a wrong target before the driver starts
    return LLVMFuzzerRunDriver(&count, &arguments) { data, size in
        let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
        FuzzTargetSelection.target.run(bytes)
        return 0
    }
}

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

enum FuzzTargetSelection {
    static let target: FuzzTarget = {
        let name = getenv("RIDEGATE_FUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            standardError("RIDEGATE_FUZZ_TARGET must be one of: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(64)
        }
        return target
    }()
}
#else
/// Without libFuzzer: `ridegate-fuzz TARGET FILE...` runs each file through a target once (a crash found by
/// the fuzzer, replayed by hand).
@main
enum FuzzReplay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.first == "--fit-seed", arguments.count == 2 {
            let bytes = FuzzSeeds.fitFile()
            guard !bytes.isEmpty, let file = fopen(arguments[1], "wb") else { exit(73) }
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
            return
        }
        if arguments.first == "--att-client-seed", arguments.count == 2 {
            // One recorded session per service mix: `ridegate-fuzz --att-client-seed FILE` writes them all.
            for (suffix, services) in [("strap", [SensorProfile.heartRate]), ("power", [.power]),
                                       ("csc", [.speedCadence]), ("power_csc", [.power, .speedCadence])] {
                let script = FuzzSeeds.attClientScript(services: services)
                guard let file = fopen(arguments[1] + "-" + suffix, "wb") else { exit(73) }
                _ = script.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
                fclose(file)
            }
            return
        }
        guard let name = arguments.first, let target = FuzzTarget(rawValue: name) else {
            standardError("usage: ridegate-fuzz TARGET FILE...\ntargets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(64)
        }
        for path in arguments.dropFirst() {
            guard let file = fopen(path, "rb") else {
                standardError("\(path): cannot open")
                exit(66)
            }
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = fread(&buffer, 1, buffer.count, file)
                if n <= 0 { break }
                bytes += buffer[0..<n]
            }
            fclose(file)
            target.run(bytes)
            print("\(path): ok")
        }
    }
}
#endif
