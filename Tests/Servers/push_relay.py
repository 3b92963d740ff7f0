#!/usr/bin/env python3
"""Local stand-in for the Home Assistant companion apps' push relay (the `push_url` a phone registers with
Home Assistant's mobile_app), for scripts/home-assistant-check: it records every notification Home Assistant
sends, one JSON line each ({"received": unix time, "status": HTTP status, "body": what HA posted}) in --log,
and answers as the relay does for an Android phone.

Modelled on the relay's own source, home-assistant/mobile-apps-fcm-push at 85b4c82 (2026-08-19):
- functions/handlers.js handleRequest: 403 {"errorMessage": "You did not send a token!"} without
  `push_token`, 403 "That is not a valid FCM token" for a token without ':'; 429 with errorType RateLimited
  once the day's MAX_NOTIFICATIONS_PER_DAY (500) are used; otherwise 201 {messageId, sentPayload, target,
  rateLimits}.
- functions/android.js createPayload: reads registration_info.webhook_id (a request without
  registration_info fails there: 500 here), turns each known data key into a string, and does not count
  notification commands (clear_notification among them) against the day's limit.
- functions/rate-limiter/util.js: rateLimits = attempts, successful, errors, total, maximum, remaining, resetsAt
  (midnight UTC, as the companion docs' notification details say)."""
import argparse, datetime, json, threading, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MAXIMUM = 500
COMMANDS = {"request_location_update", "clear_notification", "remove_channel"}  # part of android.js's list


class Relay:
    def __init__(self, log_path):
        self.log_path, self.lock, self.counts = log_path, threading.Lock(), {}

    def rate_limits(self, token):
        attempts, successful = self.counts.get(token, (0, 0))
        tomorrow = datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=1)
        return {"attempts": attempts, "successful": successful, "errors": 0, "total": successful, "maximum": MAXIMUM,
                "remaining": max(0, MAXIMUM - successful), "resetsAt": f"{tomorrow.isoformat()}T00:00:00.000Z"}

    def answer(self, body):
        token = body.get("push_token")
        if not token:
            return 403, {"errorMessage": "You did not send a token!"}
        if ":" not in token:
            return 403, {"errorMessage": "That is not a valid FCM token"}
        if not isinstance(body.get("registration_info"), dict):
            return 500, {"errorMessage": "Cannot read properties of undefined (reading 'webhook_id')"}
        data = body.get("data") or {}
        payload = {"android": {}, "data": {k: str(v) for k, v in data.items() if not isinstance(v, (dict, list))}}
        payload["data"].update({k: body[k] for k in ("message", "title") if body.get(k)})
        with self.lock:
            if body.get("message") not in COMMANDS:
                attempts, successful = self.counts.get(token, (0, 0))
                if successful >= MAXIMUM:
                    self.counts[token] = (attempts + 1, successful)
                    return 429, {"errorType": "RateLimited", "message": "The given target has reached the maximum number of "
                                 "notifications allowed per day. Please try again later.", "target": token,
                                 "rateLimits": self.rate_limits(token)}
                self.counts[token] = (attempts + 1, successful + 1)
            return 201, {"messageId": f"projects/ridegate-check/messages/{time.time_ns()}", "sentPayload": payload,
                         "target": token, "rateLimits": self.rate_limits(token)}

    def record(self, status, body):
        with self.lock, open(self.log_path, "a") as log:
            log.write(json.dumps({"received": time.time(), "status": status, "body": body}) + "\n")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    relay = Relay(args.log)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw)
            except ValueError:
                status, answer, body = 400, {"errorMessage": "Bad JSON"}, raw.decode(errors="replace")
            else:
                status, answer = relay.answer(body) if isinstance(body, dict) else (400, {"errorMessage": "Bad JSON"})
            relay.record(status, body)
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()


if __name__ == "__main__":
    main()
