import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

/// `ridegate rides`: the rides the gateway recorded, and the files a rider uploads.
struct RidesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rides",
        abstract: "List, export and delete the rides in the ride log (state_directory/rides.sqlite).",
        subcommands: [List.self, Export.self, Delete.self])

    /// Where the ride log is: `--state-directory`, else the config's `state_directory`.
    struct Location: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("The state directory holding rides.sqlite (e.g. the demo's).", valueName: "path"))
        var stateDirectory: String?

        /// Where state_directory comes from when --state-directory is not given.
        @OptionGroup var configFile: ConfigFileOption

        /// The config's units when it can be read, else metric: the rides may come from --state-directory with
        /// no config at all, and a broken config is `run --check-config`'s to report, not the table's.
        var displayUnits: DisplayUnits {
            ((try? configFile.find()) ?? GatewayConfig()).displayUnits
        }

        /// The config, when it can be read: its zones, FTP and rider for the totals.
        var config: GatewayConfig? { try? configFile.find() }

        func open() throws -> SQLiteRideStore {
            var directory = stateDirectory
            if directory == nil {
                do {
                    directory = try configFile.find(saying: true).stateDirectory
                } catch {
                    writeError("\(error.description) (or pass --state-directory)")
                    throw ExitCode(ExitStatus.config)
                }
            }
            let path = GatewayAssembly.rideLogPath(directory ?? "")
            guard TextFile.unreadable(path) == nil else {
                writeError("no ride log at \(path): nothing was recorded there yet (or pass another --state-directory)")
                throw ExitCode(ExitStatus.unavailable)
            }
            // A read-only state directory (a mount, a copy) is read as it is: listing and exporting write nothing.
            let readOnly = access(path, W_OK) != 0 || access(directory ?? ".", W_OK) != 0
            do {
                return try SQLiteRideStore(path: path, context: GatewayAssembly.rideContext(config ?? GatewayConfig()), readOnly: readOnly)
            } catch {
                throw Self.failure(error, doing: "open")
            }
        }

        /// The message and exit status for a ride log that failed: damage is a data error (65) with what to do,
        /// anything else (busy, unreadable) 69.
        static func failure(_ error: SQLiteFileError, doing operation: String) -> ExitCode {
            guard error.isDamage else {
                writeError("cannot \(operation) the ride log: \(error)")
                return ExitCode(ExitStatus.unavailable)
            }
            writeError("the ride log is damaged (\(error.path): \(error.message)); nothing was written. The gateway keeps it aside and saves "
                       + "what it can read into a new one when it next starts (sudo systemctl restart ridegate); `rides list` then shows what was saved")
            return ExitCode(ExitStatus.dataError)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the recorded rides, oldest first.")

        @OptionGroup var location: Location

        @Flag(help: "Print one JSON array: id, name, start, end (ISO 8601 UTC), distance_m, moving_time_s, elapsed_time_s, points, exported, elevation_gain_m, elevation_loss_m, avg_hr_bpm, max_hr_bpm, avg_power_w, max_power_w, normalized_power_w, work_kj, avg_cadence_rpm, avg_speed_mps, max_speed_mps, calories_kcal, hr_zone_s, power_zone_s, laps (null where unknown).")
        var json = false

        func run() throws {
            let rides: [SQLiteRideStore.Ride]
            do {
                rides = try location.open().rides()
            } catch let error as SQLiteFileError {
                throw Location.failure(error, doing: "read")
            }
            if json {
                print("[" + rides.map { RideListing.object($0) }.joined(separator: ",\n") + "]")
                return
            }
            guard !rides.isEmpty else {
                print("no rides recorded yet")
                return
            }
            let units = location.displayUnits
            print("id  start                     distance   moving    elapsed   points  exported  name")
            for ride in rides {
                let id = String(ride.id).padded(to: 3)
                let distance = units.distance(metres: ride.statistics?.distanceMeters ?? ride.distanceMeters).padded(to: 10)
                let moving = ride.statistics?.timerSeconds ?? ride.movingSeconds
                print("\(id) \(ride.start.iso8601)  \(distance) \(Self.duration(moving))  \(Self.duration(ride.elapsedSeconds))  "
                      + String(ride.points).padded(to: 7) + " "
                      + (ride.exported.isEmpty ? "-" : ride.exported.joined(separator: ",")).padded(to: 9) + " " + ride.name)
            }
        }

        static func duration(_ seconds: Double) -> String {
            let s = Int(rounding: seconds.rounded(.down), within: 0...Int.max) ?? 0
            let text = "\(s / 3600):" + String(format2(s / 60 % 60)) + ":" + String(format2(s % 60))
            return text.padded(to: 8)
        }

        static func format2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a ride as a file to upload: GPX 1.1, TCX or FIT, with heart rate, cadence and power.",
            discussion: "ID is a ride's id from `ridegate rides list`, or `latest`. Without --output the file goes to standard output.")

        @Argument(help: "The ride: its id, or latest.")
        var ride: String

        @Option(help: ArgumentHelp("The file format.", valueName: "format"))
        var format: RideFileFormat = .gpx

        @Option(name: .shortAndLong, help: ArgumentHelp("Write here instead of standard output.", valueName: "file"))
        var output: String?

        @OptionGroup var location: Location

        func validate() throws {
            if let output, let what = AtomicFile.targetProblem(output) {
                throw ValidationError("The value '\(output)' is invalid for '--output': it is \(what). Name a file, e.g. \(output.hasSuffix("/") ? output : output + "/")ride.\(format.fileExtension).")
            }
        }

        func run() throws {
            let store = try location.open()
            do {
                let rides = try store.rides()
                let chosen = ride == "latest" ? rides.last : rides.first { String($0.id) == ride }
                guard let chosen else {
                    writeError(rides.isEmpty ? "no rides recorded yet" : "no ride \(ride); `ridegate rides list` shows the ids")
                    throw ExitCode(ExitStatus.dataError)
                }
                let exporter = RideExporter(store: store, version: RidegateVersion.current)
                do throws(RideExporter.Failure) {
                    if let output {
                        try exporter.export(chosen, as: format, to: output)
                    } else {
                        try exporter.write(chosen, as: format) { (bytes) throws(RideExporter.Failure) in
                            do throws(Errno) { try FileDescriptor(rawValue: 1).writeAll(bytes) } catch {
                                throw .write(.system(SystemCallError("write", "standard output", error)))
                            }
                        }
                    }
                } catch {
                    throw failure(error, ride: chosen.id)
                }
                // Only a closed ride is marked: a file of a ride still going is not the whole ride. A read-only ride
                // log cannot be marked; the file is written all the same.
                if store.readOnly {
                    writeError("note: the ride log is read-only here, so ride \(chosen.id) is not marked exported")
                } else {
                    try store.markExported(ride: chosen.id, format: format.rawValue)
                }
            } catch let error as SQLiteFileError {
                throw Location.failure(error, doing: "read")
            }
        }

        /// What went wrong, said, and the exit status for it.
        func failure(_ error: RideExporter.Failure, ride: Int64) -> ExitCode {
            switch error {
            case .read(let why):
                return Location.failure(why, doing: "read ride \(ride) from")
            case .write(let why):
                writeError("cannot write \(output ?? "to standard output"): \(why)")
                return ExitCode(ExitStatus.unavailable)
            case .empty:
                writeError("ride \(ride) has no points to write")
                return ExitCode(ExitStatus.dataError)
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a ride and its points from the ride log.")

        @Argument(help: "The ride's id (from `ridegate rides list`).")
        var ride: Int64

        @OptionGroup var location: Location

        func run() throws {
            let store = try location.open()
            do {
                guard try store.rides().contains(where: { $0.id == ride }) else {
                    writeError("no ride \(ride); `ridegate rides list` shows the ids")
                    throw ExitCode(ExitStatus.dataError)
                }
                try store.delete(ride: ride)
            } catch let error as SQLiteFileError {
                throw Location.failure(error, doing: "change")
            }
        }
    }
}

/// `--format`: the names are the enum's cases, the one list of export formats (the config reads the same).
extension RideFileFormat: ExpressibleByArgument {}
