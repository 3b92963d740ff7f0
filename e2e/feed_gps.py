"""Plays an NMEA capture into a pty at the capture's own pace (one epoch per second) and links the pty's
device to the name the udev rules give a receiver."""
import os
import pty
import sys
import time
import tty

capture, name = sys.argv[1], sys.argv[2]
controller, device = pty.openpty()
tty.setraw(device)
tty.setraw(controller)
if os.path.lexists(name):
    os.unlink(name)
os.symlink(os.ttyname(device), name)
lines = open(capture, "rb").read().splitlines(keepends=True)
epoch = []
previous = None
for line in lines:
    stamp = line.split(b",")[1] if line.startswith((b"$GPGGA", b"$GPRMC")) else None
    if stamp and previous and stamp != previous:
        os.write(controller, b"".join(epoch))
        epoch = []
        time.sleep(1.0)
    previous = stamp or previous
    epoch.append(line)
os.write(controller, b"".join(epoch))
