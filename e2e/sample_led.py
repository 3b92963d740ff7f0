"""Samples a gpio-sim line's value every 5 ms for N seconds (by the monotonic clock, without forking) and
prints the LED's timeline as a rider reads it, on one line:
  <rising edges> <on-pulse lengths in ms, comma-separated> <blinks per complete burst, comma-separated>
A burst is a run of pulses separated by short gaps; a gap over 1 s ends it. Only bursts seen whole (a long
gap before and after, inside the window) are counted, so a window that starts mid-burst cannot miscount."""
import sys
import time

path, seconds = sys.argv[1], float(sys.argv[2])
edges, pulses = 0, []
previous, rose_at, fell_at = None, None, None
bursts, current, seen_long_gap = [], 0, False
end = time.monotonic() + seconds
with open(path, "rb", buffering=0) as f:
    while time.monotonic() < end:
        f.seek(0)
        value = f.read(1) == b"1"
        now = time.monotonic()
        if previous is False and value:
            edges += 1
            if fell_at is not None and now - fell_at > 1.0:
                if seen_long_gap and current:
                    bursts.append(current)
                seen_long_gap, current = True, 0
            rose_at = now
        if previous and not value and rose_at is not None:
            pulses.append(round((now - rose_at) * 1000))
            current += 1
            fell_at = now
        previous = value
        time.sleep(0.005)
    # A burst that ended with a long gap still inside the window is complete too.
    if seen_long_gap and current and fell_at is not None and time.monotonic() - fell_at > 1.0:
        bursts.append(current)
print(edges, ",".join(map(str, pulses[:16])) or "-", ",".join(map(str, bursts)) or "-")
