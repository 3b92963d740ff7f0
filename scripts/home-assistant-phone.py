"""A phone for scripts/home-assistant-check, through Home Assistant's own HTTP API as the companion app and a
new owner use it (developers.home-assistant.io: "Native App Integration: Connecting to an instance" and
"Authentication API"):

  register HA_URL CONFIG PUSH_URL: onboards the owner, gets an access token, registers a mobile_app phone whose
      push_url is the local relay stand-in (Tests/Servers/push_relay.py); the token is kept in CONFIG/.check-token.
  automate HA_URL CONFIG BLUEPRINT GAP REFRESH: copies the ride blueprint into CONFIG/blueprints (as importing it
      from the file does), makes one automation from it for the demo's bike and that phone, and reloads automations.

Prints what it did; exits 1 when Home Assistant refuses a step."""
import json, pathlib, shutil, sys, time, urllib.parse, urllib.request

PHONE = "Rider phone"


def call(url, body=None, token=None, form=False):
    data = urllib.parse.urlencode(body).encode() if form else (json.dumps(body).encode() if body is not None else None)
    request = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    request.add_header("Content-Type", "application/x-www-form-urlencoded" if form else "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=30) as response:
        text = response.read().decode()
        return json.loads(text) if text.startswith(("{", "[")) else text


def register(base, config, push_url):
    client = base + "/"
    owner = call(base + "/api/onboarding/users", {"client_id": client, "name": "Rider", "username": "rider",
                                                  "password": "ridegate-check", "language": "en"})
    token = call(base + "/auth/token", {"grant_type": "authorization_code", "code": owner["auth_code"], "client_id": client},
                 form=True)["access_token"]
    (config / ".check-token").write_text(token)
    phone = call(base + "/api/mobile_app/registrations", {
        "device_id": "ridegatecheckphone", "app_id": "io.homeassistant.companion.android", "app_name": "Home Assistant",
        "app_version": "2026.11.1-full", "device_name": PHONE, "manufacturer": "Google", "model": "Pixel 9",
        "os_name": "Android", "os_version": "16", "supports_encryption": False,
        "app_data": {"push_url": push_url, "push_token": "ridegatecheck:phone-token"}}, token=token)
    print(f"phone registered: webhook {phone['webhook_id']}")


def automate(base, config, blueprint, gap, refresh):
    token = (config / ".check-token").read_text()
    ids = {}
    for name, key in (("bike", "binary_sensor.ridegate_bike_riding"), ("phone", PHONE)):
        for _ in range(60):
            found = call(base + "/api/template", {"template": f"{{{{ device_id('{key}') }}}}"}, token=token)
            if found and found != "None":
                ids[name] = found
                break
            time.sleep(1)
        else:
            sys.exit(f"error: Home Assistant has no device for {key}")
    target = config / "blueprints" / "automation" / "ridegate"
    target.mkdir(parents=True, exist_ok=True)
    shutil.copy(blueprint, target / "ride-live-activity.yaml")
    automation = {"id": "ridegate_ride_on_the_lock_screen", "alias": "Ride on the lock screen",
                  "use_blueprint": {"path": "ridegate/ride-live-activity.yaml",
                                    "input": {"bike": ids["bike"], "phone": ids["phone"],
                                              "minimum_gap_seconds": gap, "refresh_minutes": refresh}}}
    (config / "automations.yaml").write_text(json.dumps([automation], indent=2) + "\n")  # JSON is YAML
    call(base + "/api/services/automation/reload", {}, token=token)
    state = call(base + "/api/states/automation.ride_on_the_lock_screen", token=token)
    print(f"automation from the blueprint: {state['state']} (bike {ids['bike']}, phone {ids['phone']})")
    if state["state"] != "on":
        sys.exit(1)


if __name__ == "__main__":
    mode, base, config = sys.argv[1], sys.argv[2], pathlib.Path(sys.argv[3])
    if mode == "register":
        register(base, config, sys.argv[4])
    else:
        automate(base, config, sys.argv[4], int(sys.argv[5]), int(sys.argv[6]))
