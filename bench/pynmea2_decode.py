"""The pynmea2 peer for scripts/bench: parse every line of an NMEA file, as ridegate nmea does."""
import sys

import pynmea2

ok = bad = 0
with open(sys.argv[1], "rb") as f:
    for raw in f:
        try:
            msg = pynmea2.parse(raw.decode("ascii", "replace").strip(), check=True)
            _ = getattr(msg, "latitude", None)
            ok += 1
        except Exception:
            bad += 1
print(f"{ok} parsed, {bad} rejected", file=sys.stderr)
