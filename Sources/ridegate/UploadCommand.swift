import ArgumentParser
import Glibc
import RidegateApp
import RidegateCore
import RidegateLinux

/// `ridegate upload`: the uploads of finished rides to the training sites in `[upload.*]`.
struct UploadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload",
        abstract: "Authorize Strava, and see or retry the uploads of finished rides to intervals.icu and Strava.",
        discussion: """
            The daemon uploads each finished ride to the sites configured in [upload.intervals_icu] and \
            [upload.strava] when a network is up; these commands read and change its queue in the ride log.
            """,
        subcommands: [StravaAuthorize.self, Status.self, Retry.self])

    struct StravaAuthorize: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "strava-authorize",
            abstract: "Let ridegate upload to your Strava account: prints the address to open, then takes the code back once.")

        @OptionGroup var configFile: ConfigFileOption

        @Option(help: ArgumentHelp("The code (or the whole address the browser ended at); read from standard input when not given.", valueName: "code"))
        var code: String?

        func run() throws {
            let config = try configFile.load()
            guard let site = config.upload.strava else {
                writeError("\(configFile.config) has no [upload.strava]: add it (token_file, client_id, client_secret_file) as docs/rides.md shows")
                throw ExitCode(ExitStatus.config)
            }
            do {
                try GatewayAssembly.checkFiles(config)
            } catch {
                writeError(error.description)
                throw ExitCode(ExitStatus.config)
            }
            print("""
                1. Open this address on a phone or laptop signed in to Strava, and allow the upload:

                   \(StravaProtocol.authorizeURL(baseURL: site.baseURL, clientID: site.clientID))

                2. The browser then ends at http://localhost/exchange_token?...&code=... and shows an error page: that is \
                expected. Copy that address (or the code in it) and paste it here.
                """)
            let pasted = code ?? readLine(strippingNewline: true) ?? ""
            guard let code = StravaProtocol.code(fromPasted: pasted) else {
                writeError("no code in \"\(pasted.prefix(80))\": paste the address the browser ended at, with its code=...")
                throw ExitCode(ExitStatus.dataError)
            }
            // The consent page lets the athlete untick the upload; the address says what was granted.
            if let scopes = StravaProtocol.grantedScopes(fromPasted: pasted), !scopes.contains(StravaProtocol.uploadScope) {
                writeError("Strava was not allowed to take uploads (granted: \(scopes.joined(separator: ","))): open the address again, "
                    + "leave \"Upload your activities from … to Strava\" ticked, and paste the new address")
                throw ExitCode(ExitStatus.dataError)
            }
            switch StravaAuthorization.exchange(site, code: code) {
            case .success(let token):
                if let problem = StravaAuthorization.keep(token, in: site) {
                    writeError(problem.description)
                    throw ExitCode(ExitStatus.unavailable)
                }
                print("Strava authorized\(token.athleteID.map { " (athlete \($0))" } ?? ""); the token is kept in \(site.tokenFile).")
                Self.sendWaitingRides(config)
            case .failure(.refused(let reason)):
                writeError(reason)
                throw ExitCode(ExitStatus.dataError)
            case .failure(let failure):
                writeError(failure.description)
                throw ExitCode(ExitStatus.unavailable)
            }
        }
    }

    struct Status: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show each queued ride's upload per site.")

        @OptionGroup var location: RidesCommand.Location

        @Flag(help: "Print one JSON array: ride, service, state (queued, uploading, processing, done, failed), activity_id, activity_url, reason, attempts, next_attempt (ISO 8601 UTC; null when none).")
        var json = false

        func run() throws {
            let store = try location.open()
            let jobs: [UploadJob]
            do {
                jobs = try store.uploads()
            } catch {
                throw RidesCommand.Location.failure(error, doing: "read")
            }
            if json {
                print("[" + jobs.map(\.jsonObject).joined(separator: ",") + "]")
                return
            }
            guard !jobs.isEmpty else { return print("No ride is queued for upload.") }
            for job in jobs {
                let what = [job.activityURL, job.detail, job.isFinished ? nil : job.nextAttempt.map { "next attempt \($0.iso8601)" }]
                    .compactMap { $0 }.joined(separator: "; ")
                print("ride \(job.ride)  \(job.service.displayName)  \(job.state.rawValue)\(what.isEmpty ? "" : "  \(what)")")
            }
        }
    }

    struct Retry: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Upload a ride again: its failed or waiting uploads go now, and a site it was never queued for is added.",
            discussion: "The running daemon sees it within five minutes (at once after a restart).")

        @Argument(help: "The ride's id (see `ridegate rides list`).")
        var ride: Int64

        @Option(help: ArgumentHelp("Only this site: intervals_icu or strava.", valueName: "site"))
        var service: String?

        @OptionGroup var location: RidesCommand.Location

        func run() throws {
            let config = try location.configFile.load()
            var services = config.upload.services
            if let service {
                guard let chosen = UploadService(rawValue: service), services.contains(chosen) else {
                    writeError("--service \(service): not a configured site; configured: \(services.map(\.rawValue).joined(separator: ", "))")
                    throw ExitCode(ExitStatus.config)
                }
                services = [chosen]
            }
            guard !services.isEmpty else {
                writeError("\(location.configFile.config) configures no site to upload to: add [upload.intervals_icu] or [upload.strava]")
                throw ExitCode(ExitStatus.config)
            }
            let store = try location.open()
            do {
                guard try store.rides().contains(where: { $0.id == ride && $0.closed }) else {
                    writeError("no finished ride \(ride) in the ride log (see `ridegate rides list`)")
                    throw ExitCode(ExitStatus.dataError)
                }
                try store.queueUploads(ride: ride, services: services)
                for var job in try store.uploads(ride: ride) where services.contains(job.service) && job.state != .done {
                    job.state = job.state == .processing ? .processing : .queued
                    job.attempts = 0
                    job.nextAttempt = nil
                    job.detail = nil
                    try store.update(job)
                    print("ride \(ride): \(job.service.displayName) queued")
                }
            } catch let error as SQLiteFileError {
                throw RidesCommand.Location.failure(error, doing: "write")
            }
        }
    }
}

extension UploadCommand.StravaAuthorize {
    /// Rides that waited for Strava (not yet authorized, or refused) go at the daemon's next look, not after
    /// their backoff. Nothing recorded yet: nothing to say.
    static func sendWaitingRides(_ config: GatewayConfig) {
        let path = GatewayAssembly.rideLogPath(config.stateDirectory)
        guard TextFile.unreadable(path) == nil else { return }
        do {
            let store = try SQLiteRideStore(path: path)
            let waiting = try store.uploads().filter { $0.service == .strava && $0.state != .done && $0.state != .processing }
            for var job in waiting {
                job.state = .queued
                job.attempts = 0
                job.nextAttempt = nil
                job.detail = nil
                try store.update(job)
            }
            if !waiting.isEmpty { print("\(waiting.count) ride(s) waiting for Strava are sent within five minutes (at once after a restart).") }
        } catch {
            writeError("cannot queue the rides that waited for Strava (\(error)); run: ridegate upload retry RIDE")
        }
    }
}
