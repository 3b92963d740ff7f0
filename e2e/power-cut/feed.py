"""The power-cut test's GPS: a receiver riding north at 6 m/s, dated now, one epoch a second, written into the
VM's UART through qemu's chardev socket. Each epoch's time is printed (and flushed) once written, so the host
knows the last fix the gateway was sent before the power was cut.

    feed.py SOCKET START_NORTH_M [--stand-after S]     prints "FED <unix time> <north metres>" per epoch

With --stand-after, the bike stops after S epochs and stands there (speed 0, the same position) from then on.
"""
import argparse
import functools
import socket
import sys
import time

DEG = 111_195.0


def checksum(body):
    return "%02X" % functools.reduce(lambda a, c: a ^ ord(c), body, 0)


def sentence(body):
    return "$%s*%s\r\n" % (body, checksum(body))


def epoch(now, north, knots):
    t = time.gmtime(now)
    clock = time.strftime("%H%M%S", t) + ".00"
    date = time.strftime("%d%m%y", t)
    lat = 40 + north / DEG
    lat_text = "%02d%08.5f" % (int(lat), (lat - int(lat)) * 60)
    lon_text = "10500.00000"
    rmc = "GPRMC,%s,A,%s,N,%s,W,%.2f,0.0,%s,,,A" % (clock, lat_text, lon_text, knots, date)
    gga = "GPGGA,%s,%s,N,%s,W,1,09,0.9,1600.0,M,-17.0,M,," % (clock, lat_text, lon_text)
    return (sentence(rmc) + sentence(gga)).encode()


def connect(path):
    for _ in range(600):  # qemu makes the socket a moment after it starts
        try:
            peer = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            peer.connect(path)
            return peer
        except OSError:
            time.sleep(0.1)
    sys.exit("feed: nothing listening at " + path)


arguments = argparse.ArgumentParser()
arguments.add_argument("socket")
arguments.add_argument("north", type=float)
arguments.add_argument("--stand-after", type=int, default=None)
options = arguments.parse_args()
peer = connect(options.socket)
north = options.north
second = int(time.time()) + 1
epochs = 0
while True:
    time.sleep(max(0, second - time.time()))
    moving = options.stand_after is None or epochs < options.stand_after
    if moving:
        north += 6
    try:
        peer.sendall(epoch(second, north, 11.66 if moving else 0.0))  # 6 m/s in knots
    except OSError:
        break  # the VM is gone: the power was cut
    print("FED %d %.0f" % (second, north), flush=True)
    second += 1
    epochs += 1
