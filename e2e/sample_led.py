"""Samples a gpio-sim line's value every 5 ms for N seconds (by the monotonic clock, without forking)
and prints the number of rising edges and the on-pulse lengths in ms: the LED's timeline as a rider sees it."""
import sys
import time

path, seconds = sys.argv[1], float(sys.argv[2])
edges, pulses = 0, []
previous, rose_at = None, None
end = time.monotonic() + seconds
with open(path, "rb", buffering=0) as f:
    while time.monotonic() < end:
        f.seek(0)
        value = f.read(1) == b"1"
        now = time.monotonic()
        if previous is False and value:
            edges += 1
            rose_at = now
        if previous and not value and rose_at is not None:
            pulses.append(round((now - rose_at) * 1000))
        previous = value
        time.sleep(0.005)
print(edges, ",".join(map(str, pulses[:12])))
