#!/usr/bin/env python3
"""Local HTTPS stand-in for the intervals.icu and Strava upload APIs, for ridegate's integration
tests: it records requests and created activities under --dir and injects the faults queued in
DIR/faults.json (server errors, rate limits, expired tokens, dropped connections, stalls).

Every answer comes from the service's documentation or from what independent clients recorded, cited where
it is made; where the two disagree, the stand-in answers as the service does today:
- Strava: developers.strava.com/docs/uploads and /docs/rate-limits and /docs/authentication; recorded
  exchanges (VCR cassettes) in dblock/strava-ruby-client spec/fixtures/strava/client/ (create_upload*.yml).
- intervals.icu: forum.intervals.icu "API Integration Cookbook" (t/80090) and "API access to Intervals.icu"."""
import argparse, base64, contextlib, hashlib, json, os, re, secrets, signal, socket, ssl, sys, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

PROCESSING = "Your activity is still being processed."
READY = "Your activity is ready."
FAILED = "There was an error processing your activity."
DATA_TYPES = {"fit", "fit.gz", "tcx", "tcx.gz", "gpx", "gpx.gz"}
TOKEN_PATHS = {"/oauth/token", "/api/v3/oauth/token"}
JSON = "application/json; charset=utf-8"
# What the load balancer in front of the real sites sends, not the API's JSON.
HTML_ERROR = ("<html><head><title>{0} {1}</title></head><body><center>"
              "<h1>{0} {1}</h1></center><hr><center>nginx</center></body></html>\n")


def is_fit(data):
    # Every FIT file starts with a 12- or 14-byte header whose bytes 8..11 are ".FIT".
    return len(data) >= 14 and data[8:12] == b".FIT"


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def strava_error(message, resource, field, code="invalid"):
    return {"message": message, "errors": [{"resource": resource, "field": field, "code": code}]}


class Part(NamedTuple):
    data: bytes
    filename: str | None


def parse_multipart(body, content_type):
    """Returns {name: Part} of a multipart/form-data body ({} if it is not one)."""
    m = re.match(r'multipart/form-data.*?boundary=(?:"([^"]+)"|([^;\s]+))', content_type or "", re.I | re.S)
    if not m:
        return {}
    # Splitting on CRLF + delimiter keeps binary file bytes exactly as sent.
    delimiter = b"\r\n--" + (m[1] or m[2]).encode()
    parts = {}
    for chunk in (b"\r\n" + body).split(delimiter)[1:]:
        if chunk.startswith(b"--"):
            break  # closing delimiter
        head, sep, data = chunk.partition(b"\r\n\r\n")
        head = head.decode("utf-8", "replace")
        name, filename = re.search(r'(?:^|[;\s])name="([^"]*)"', head), re.search(r'filename="([^"]*)"', head)
        if sep and name:
            parts.setdefault(name[1], Part(data, filename[1] if filename else None))
    return parts


class State:
    """Everything the tests inspect lives in DIR; the lock serialises all writers."""

    def __init__(self, root):
        self.root = Path(root)
        (self.root / "activities").mkdir(parents=True, exist_ok=True)
        self.lock = threading.RLock()
        self.by_sha = {}  # sha256 of a stored file -> its activity id
        log = self.root / "activities.jsonl"
        if log.exists():  # a restarted server still recognises the files it already took
            for line in filter(str.strip, log.read_text().splitlines()):
                entry = json.loads(line)
                self.by_sha[entry["sha256"]] = entry["id"]
        self.created = len(self.by_sha)

    def append(self, name, record):
        with self.lock, open(self.root / name, "a") as f:
            f.write(json.dumps(record) + "\n")
            f.flush()

    def pop_fault(self, kind):
        path = self.root / "faults.json"
        with self.lock:
            faults = json.loads(path.read_text()) if path.exists() else {}
            if not faults.get(kind):
                return None
            fault = str(faults[kind].pop(0))
            # Tests may read the file at any moment, so never expose a half-written one.
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(json.dumps(faults))
            os.replace(tmp, path)
            return fault

    def create_activity(self, activity_id, data, name, external_id):
        with self.lock:
            (self.root / "activities" / f"{activity_id}.fit").write_bytes(data)
            self.by_sha[sha256(data)] = activity_id
            self.created += 1
            self.append("activities.jsonl", {"id": activity_id, "sha256": sha256(data),
                                             "name": name, "external_id": external_id})


class IntervalsIcu:
    ACTIVITIES = re.compile(r"^/api/v1/athlete/([^/]+)/activities$")

    def __init__(self, args, state):
        self.key, self.athlete, self.state = args.api_key, args.athlete, state

    def kind(self, method, path):
        return "upload" if method == "POST" and self.ACTIVITIES.match(path) else None

    def prepare(self, req):
        pass  # no rate-limit headers to add

    def unauthorized(self, req):
        req.reply(401, {"status": 401, "error": "Unauthorized"}, {"WWW-Authenticate": 'Basic realm="intervals.icu"'})

    expired = unauthorized  # API keys do not expire; the closest answer is a rejected key

    def refuse(self, req):
        req.reply(422, {"status": 422, "error": "Unable to parse activity file"})

    def too_many(self, req):
        req.reply(429, {"status": 429, "error": "Too Many Requests"}, {"Retry-After": "2"})

    def handle(self, req):
        m = self.ACTIVITIES.match(req.route)
        if req.command != "POST" or not m:
            return req.reply(404, {"status": 404, "error": "Not Found"})
        scheme, _, credentials = req.headers.get("Authorization", "").partition(" ")
        try:
            user_pass = base64.b64decode(credentials.strip(), validate=True)
        except ValueError:
            user_pass = None
        if scheme.lower() != "basic" or user_pass != f"API_KEY:{self.key}".encode():
            return self.unauthorized(req)
        if m[1] not in ("0", self.athlete):
            return req.reply(403, {"status": 403, "error": "Forbidden"})
        file = req.form.get("file")
        if not file or not file.data:
            return req.reply(400, {"status": 400, "error": "No file"})
        if not is_fit(file.data):
            return req.reply(422, {"status": 422, "error": "Unable to parse activity file"})
        # The cookbook: "curl -F file=@i55610271.fit '.../athlete/0/activities?name=Foo&description=Bar'" — name,
        # description and the optional external_id are URL parameters; a form field of those names is not read.
        params = {k: v[-1] for k, v in req.query.items()}
        with self.state.lock:
            # "It won't create duplicate activities (hash of file data is checked)" (forum, "API access"); what it
            # answers then is documented nowhere: clients report 201 for a new activity and 200 with the existing
            # one (jorge-huxley/intervalssync PR #58), and read `id`, else `activities[0].id`.
            activity_id = self.state.by_sha.get(sha256(file.data))
            status = 200 if activity_id else 201
            if status == 201:
                activity_id = f"i{1001 + self.state.created}"
                self.state.create_activity(activity_id, file.data, params.get("name"), params.get("external_id"))
        req.reply(status, {"icu_athlete_id": self.athlete, "id": activity_id,
                           "activities": [{"icu_athlete_id": self.athlete, "id": activity_id}]})


class Strava:
    UPLOAD = re.compile(r"^/api/v3/uploads/(\d+)$")
    UNAUTHORIZED = strava_error("Authorization Error", "Athlete", "access_token")
    # A token whose athlete unticked the upload on the consent page: clients' tests of the live API assert
    # 401 {"message": "Authorization Error", "errors": [{"resource": "AccessToken",
    # "field": "activity:write_permission", "code": "missing"}]}.
    NO_UPLOAD_SCOPE = strava_error("Authorization Error", "AccessToken", "activity:write_permission", "missing")

    def __init__(self, args, state):
        self.client_id, self.secret, self.code = args.client_id, args.client_secret, args.code
        # What the athlete left ticked on the consent page ("Apps should check which scopes a user has accepted").
        self.granted = set(args.granted_scope.split(","))
        # docs/rate-limits: 200 requests per 15 minutes and 2,000 a day overall; "non-upload" requests (all but
        # POST uploads/activities) 100 and 1,000. Both counted here per server run, the 15 minutes as the day.
        self.read_limit = args.read_limit
        self.reads = 0
        self.polls_before_ready, self.expires_in, self.state = args.polls_before_ready, args.expires_in, state
        self.code_used, self.refresh_token, self.access_tokens = False, None, set()
        self.uploads, self.api_calls = {}, 0  # upload id -> record
        # A restarted server (the network back after a ride) still knows the tokens it handed out, as Strava does.
        self.tokens_file = state.root / "tokens.json"
        if self.tokens_file.exists():
            kept = json.loads(self.tokens_file.read_text())
            self.code_used, self.refresh_token, self.access_tokens = True, kept["refresh_token"], set(kept["access_tokens"])

    def kind(self, method, path):
        if method == "POST":
            return "token" if path in TOKEN_PATHS else "upload" if path == "/api/v3/uploads" else None
        return "poll" if method == "GET" and self.UPLOAD.match(path) else None

    def prepare(self, req):
        if req.route.startswith("/api/v3/") and req.route not in TOKEN_PATHS:
            # Both pairs on every answer, "15-minute,daily"; an upload is not a read, and its read usage comes
            # back empty ("," in the recorded POST answers).
            with self.state.lock:
                self.api_calls += 1
                read = req.route != "/api/v3/uploads"
                self.reads += read
                reads = f"{self.reads},{self.reads}" if read else ","
                req.extra_headers = {"X-RateLimit-Limit": "200,2000", "X-RateLimit-Usage": f"{self.api_calls},{self.api_calls}",
                                     "X-ReadRateLimit-Limit": f"{self.read_limit},{self.read_limit * 10}",
                                     "X-ReadRateLimit-Usage": reads}
                req.over_read_limit = read and self.reads > self.read_limit

    @staticmethod
    def bad(resource, field, code="invalid"):
        return 400, strava_error("Bad Request", resource, field, code)

    @staticmethod
    def bearer(req):
        scheme, _, token = req.headers.get("Authorization", "").partition(" ")
        return token.strip() if scheme.lower() == "bearer" else None

    def expired(self, req):
        with self.state.lock:
            self.access_tokens.discard(self.bearer(req))
        req.reply(401, self.UNAUTHORIZED)

    def refuse(self, req):
        req.reply(400, self.bad("Upload", "file")[1])

    def too_many(self, req):
        # docs/rate-limits: "429 Too Many Requests along with a JSON error message"; the body as clients log it.
        req.reply(429, strava_error("Rate Limit Exceeded", "Application", "rate limit", "exceeded"),
                  {"X-RateLimit-Limit": "200,2000", "X-RateLimit-Usage": "201,250"})

    def handle(self, req):
        m = self.UPLOAD.match(req.route)
        if req.command == "POST" and req.route in TOKEN_PATHS:
            answer = self.token(req.fields)
        elif req.route.startswith("/api/v3/") and self.bearer(req) not in self.access_tokens:
            answer = 401, self.UNAUTHORIZED
        elif getattr(req, "over_read_limit", False):
            return req.reply(429, strava_error("Rate Limit Exceeded", "Application", "rate limit", "exceeded"))
        elif req.command == "POST" and req.route == "/api/v3/uploads":
            answer = self.upload(req) if "activity:write" in self.granted else (401, self.NO_UPLOAD_SCOPE)
        elif req.command == "GET" and m:
            answer = self.poll(int(m[1]))
        else:
            answer = 404, strava_error("Record Not Found", "resource", "path")
        req.reply(*answer)  # outside the lock: a "hold" fault sleeps in reply()

    def token(self, fields):
        with self.state.lock:
            if fields.get("client_id") != self.client_id:
                return self.bad("Application", "client_id")
            if fields.get("client_secret") != self.secret:
                return self.bad("Application", "client_secret")
            if fields.get("grant_type") == "authorization_code":
                if self.code_used or fields.get("code") != self.code:
                    return self.bad("AuthorizationCode", "code")
                self.code_used = True
                return 200, {**self.issue_tokens(), "athlete": {"id": 1, "username": "rider"}}
            if fields.get("grant_type") == "refresh_token":
                if self.refresh_token is None or fields.get("refresh_token") != self.refresh_token:
                    return self.bad("RefreshToken", "refresh_token")
                return 200, self.issue_tokens()
            return self.bad("Application", "grant_type")

    def issue_tokens(self):
        # Rotation: the previous refresh token and all earlier access tokens stop working.
        self.refresh_token, access = "r" + secrets.token_hex(20), "a" + secrets.token_hex(20)
        self.access_tokens = {access}
        self.tokens_file.write_text(json.dumps({"refresh_token": self.refresh_token, "access_tokens": [access]}))
        return {"token_type": "Bearer", "expires_at": int(time.time()) + self.expires_in,
                "expires_in": self.expires_in, "refresh_token": self.refresh_token, "access_token": access}

    def upload(self, req):
        if req.fields.get("data_type") not in DATA_TYPES:
            return self.bad("Upload", "data_type")
        file = req.form.get("file")
        if not file or not file.data:
            return self.bad("Upload", "file", "empty")
        with self.state.lock:
            upload_id = 5001 + len(self.uploads)
            record = self.uploads[upload_id] = {
                "id": upload_id, "data": file.data, "name": req.fields.get("name"), "polls": 0, "result": None,
                "external_id": req.fields.get("external_id") or file.filename, "filename": file.filename}
            # The real site goes on processing an upload whose client vanished, so a retry
            # of the same file must find it already there (and be told it is a duplicate).
            if req.fault == "drop" or (req.fault or "").startswith("hold:"):
                self.process(record)
        return 201, self.view(record, None)

    def poll(self, upload_id):
        with self.state.lock:
            record = self.uploads.get(upload_id)
            if record is None:
                return 404, strava_error("Record Not Found", "Upload", "id")
            record["polls"] += 1
            if record["polls"] <= self.polls_before_ready:
                return 200, self.view(record, None)
            self.process(record)
            return 200, self.view(record, record["result"])

    def process(self, record):
        """Decides an upload's outcome once; later polls repeat the same answer."""
        if record["result"] is not None:
            return
        data = record.pop("data")
        if not is_fit(data):
            record["result"] = {"error": "Improperly formatted data.", "status": FAILED, "activity_id": None}
        elif (existing := self.state.by_sha.get(sha256(data))) is not None:
            # Recorded in 2023 as "17611540601.tcx duplicate of activity 8319193780" (dblock/strava-ruby-client
            # create_upload_file_with_error.yml); today the activity is a link ("the error … potentially containing
            # HTML", docs/uploads), as incyclist/services' Strava test carries it:
            # "1234.tcx duplicate of <a href='/activities/12699650316' target='_blank'>Strava Upload Test</a>".
            record["result"] = {"error": f"{record['filename']} duplicate of <a href='/activities/{existing}' "
                                         f"target='_blank'>{record['name'] or 'Morning Ride'}</a>",
                                "status": FAILED, "activity_id": None}
        else:
            activity_id = 9001 + self.state.created
            self.state.create_activity(activity_id, data, record["name"], record["external_id"])
            record["result"] = {"error": None, "status": READY, "activity_id": activity_id}

    @staticmethod
    def view(record, result):
        return {"id": record["id"], "id_str": str(record["id"]), "external_id": record["external_id"],
                **(result or {"error": None, "status": PROCESSING, "activity_id": None})}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and a prompt "100 Continue", as libcurl expects
    timeout = 60

    def do_GET(self):
        state = self.server.state
        url = urlsplit(self.path)
        self.route, self.query = url.path, parse_qs(url.query)
        self.body, self.form, self.fields, self.fault, self.status, self.extra_headers = b"", {}, {}, None, None, {}
        try:
            self.serve(self.server.site, state)
        except OSError:  # the client went away (broken pipe, reset, TLS error): nothing to answer
            self.close_connection = True
        except Exception as exc:
            print(f"internal error on {self.command} {self.route}: {exc!r}", file=sys.stderr)
            self.close_connection = True
        finally:
            state.append("requests.jsonl", {"method": self.command, "path": self.route, "status": self.status,
                                            "bytes": len(self.body), "fault": self.fault})
            print(f"{self.command} {self.route} {self.status} fault={self.fault}", file=sys.stderr)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_GET

    def serve(self, site, state):
        if self.command == "GET" and self.route == "/_health":
            return self.reply(200, b"ok", content_type="text/plain")
        kind = site.kind(self.command, self.route)
        self.fault = state.pop_fault(kind) if kind else None
        if self.fault == "drop_early":
            self.read_body(half=True)
            return self.drop()
        self.read_body()
        # Form fields may come as multipart parts, a urlencoded body or the query string.
        self.form = parse_multipart(self.body, self.headers.get("Content-Type"))
        urlencoded = "urlencoded" in self.headers.get("Content-Type", "")
        for source in (self.query, parse_qs(self.body.decode("utf-8", "replace")) if urlencoded else {}):
            self.fields.update({k: v[-1] for k, v in source.items()})
        self.fields.update({k: p.data.decode("utf-8", "replace").strip()
                            for k, p in self.form.items() if not p.filename})
        if kind == "upload":
            file = self.form.get("file")
            state.append("events.jsonl", {"event": "upload_received", "sha256": sha256(file.data) if file else None})
        site.prepare(self)
        if self.fault in ("500", "503"):
            code = int(self.fault)
            page = HTML_ERROR.format(code, self.responses[code][0]).encode()
            return self.reply(code, page, content_type="text/html")
        if self.fault == "refuse":  # the site cannot read the file it was sent
            return site.refuse(self)
        if self.fault in ("429", "expired"):
            return site.too_many(self) if self.fault == "429" else site.expired(self)
        site.handle(self)

    def read_body(self, half=False):
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            length = int(self.headers.get("Content-Length") or 0)
            self.body = self.rfile.read(length // 2 if half else length)
            return
        # A chunked body (upload of unknown size): "half" reads none of it.
        while not half and (size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)):
            self.body += self.rfile.read(size)
            self.rfile.readline()
        while not half and self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers

    def reply(self, status, body, headers=None, content_type=JSON):
        if self.fault == "drop":  # the site did its work, but the answer never leaves
            return self.drop()
        if self.fault and self.fault.startswith("hold:"):
            self.server.state.append("events.jsonl", {"event": "holding"})
            time.sleep(float(self.fault[5:]))
        body = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.status = status
        self.send_response(status)
        for name, value in {"Content-Type": content_type, "Content-Length": str(len(body)),
                            **self.extra_headers, **(headers or {})}.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def drop(self):
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
        self.connection.close()

    def log_message(self, format, *args):
        pass  # do_GET logs one terse line per request itself


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # Failed handshakes and vanished clients are routine in fault tests; one line is enough.
        print(f"connection error: {sys.exc_info()[1]!r}", file=sys.stderr)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--service", required=True, choices=["intervals_icu", "strava"])
    for name in ("--cert", "--key", "--dir"):
        p.add_argument(name, required=True)
    for name in ("--api-key", "--client-id", "--client-secret", "--code"):
        p.add_argument(name)
    p.add_argument("--athlete", default="i1")
    p.add_argument("--port", type=int, default=0)
    p.add_argument("--polls-before-ready", type=int, default=1)
    p.add_argument("--expires-in", type=int, default=21600)
    p.add_argument("--granted-scope", default="read,activity:write")
    p.add_argument("--read-limit", type=int, default=100)
    args = p.parse_args()
    needed = ["api_key"] if args.service == "intervals_icu" else ["client_id", "client_secret", "code"]
    if missing := [n for n in needed if getattr(args, n) is None]:
        p.error(f"--service {args.service} needs " + ", ".join("--" + n.replace("_", "-") for n in missing))

    state = State(args.dir)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(args.cert, args.key)
    server = Server(("127.0.0.1", args.port), Handler)
    server.state = state
    server.site = (IntervalsIcu if args.service == "intervals_icu" else Strava)(args, state)
    # Handshakes then happen in each connection's own thread, so a stalled client cannot block accept().
    server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    print(f"PORT {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
