"""Plays an NMEA capture to a GPS consumer, one epoch at a time (default: one a second, the capture's own pace).

    feed_gps.py CAPTURE --pty LINK       a new pty, its device linked at LINK (the end-to-end VM)
    feed_gps.py CAPTURE --socket PATH    a unix socket, such as qemu's chardev behind a guest UART (package VM)

On a socket, what the guest writes to its UART is read and counted (its first bytes on stderr): a real GPS
takes whatever comes down its line, but qemu's serial device waits for a socket's reader, holding the whole
virtual machine, once the socket's buffer is full.
"""
import argparse
import os
import pty
import socket
import sys
import threading
import time
import tty


def epochs(capture):
    """The capture cut where the GGA/RMC time changes: what a receiver sends in one burst."""
    epoch, previous = [], None
    for line in open(capture, "rb").read().splitlines(keepends=True):
        stamp = line.split(b",")[1] if line.startswith((b"$GPGGA", b"$GPRMC")) else None
        if stamp and previous and stamp != previous:
            yield b"".join(epoch)
            epoch = []
        previous = stamp or previous
        epoch.append(line)
    yield b"".join(epoch)


def pty_writer(link):
    controller, device = pty.openpty()
    tty.setraw(device)
    tty.setraw(controller)
    if os.path.lexists(link):
        os.unlink(link)
    os.symlink(os.ttyname(device), link)
    return lambda data: os.write(controller, data)


def drain(peer):
    """Reads what the guest sends down the line until it goes away; says how much, and how it began."""
    total = 0
    try:
        while data := peer.recv(4096):
            if not total:
                print(f"feed_gps: the guest writes to its UART, first: {data[:200]!r}", file=sys.stderr, flush=True)
            total += len(data)
    except OSError:
        pass
    if total:
        print(f"feed_gps: the guest wrote {total} bytes to its UART in all", file=sys.stderr, flush=True)


def socket_writer(path):
    for _ in range(600):  # qemu creates the socket a moment after it starts
        try:
            peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            peer.connect(path)
            threading.Thread(target=drain, args=(peer,), daemon=True).start()
            return peer.sendall
        except OSError:
            time.sleep(0.1)
    sys.exit(f"feed_gps: nothing listening at {path}")


parser = argparse.ArgumentParser()
parser.add_argument("capture")
target = parser.add_mutually_exclusive_group(required=True)
target.add_argument("--pty", metavar="LINK")
target.add_argument("--socket", metavar="PATH")
parser.add_argument("--rate", type=float, default=1.0, help="epochs a second")
args = parser.parse_args()
write = pty_writer(args.pty) if args.pty else socket_writer(args.socket)
try:
    for data in epochs(args.capture):
        write(data)
        time.sleep(1 / args.rate)
except OSError:
    pass  # the consumer went away (the VM powered off)
