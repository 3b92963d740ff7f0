#!/usr/bin/env python3
"""The end-to-end test's BLE sensors: three Bumble devices, each behind a Bumble controller of its own, all
linked to the controller the Linux kernel sees through /dev/vhci (hci0). Each follows a script, timed from
its own first connection, so the test knows what the gateway must report:

  Heart-rate strap HR-Strap (standard Heart Rate Service), F1:F2:F3:F4:F5:F6
    0-30 s 100 bpm (zone 1 with max_hr 190), 30-60 s 160 bpm (zone 4), 60-75 s gone, then 130 bpm
  Power meter Power-Meter (Cycling Power 0x1818: power and crank data), E1:E2:E3:E4:E5:E6
    0-30 s 200 W (power zone 3 with ftp 250), 30-60 s 340 W (zone 6: 37 W past its edge, clear of the 20 W margin), 60-75 s gone, then 150 W; 90 rpm
  Speed/cadence sensor CSC-Sensor (Cycling Speed and Cadence 0x1816: wheel and crank), D1:D2:D3:D4:D5:D6
    8 m/s on a 2105 mm wheel, 85 rpm, always there

"Gone" means the link is dropped and advertising stops (out of range). The power zones are not the
heart-rate zones, so the LED shows which one it follows. Every notification is logged (`STRAP_SENT
bpm=N`, `POWER_SENT watts=N`, `CSC_SENT`) so the guest's checks can compare.

Pinned to bumble==0.0.236: the three workarounds below patch that version's internals.
"""
import asyncio
import struct
import time

from bumble import gatt, hci
from bumble.controller import Controller
from bumble.core import UUID, PhysicalTransport
from bumble.device import Device
from bumble.hci import Address
from bumble.host import Host
from bumble.link import LocalLink
from bumble.profiles.heart_rate_service import HeartRateService
from bumble.transport import open_transport
from bumble.transport.common import AsyncPipeSink

# Workaround 1 (bumble 0.0.236): LocalLink sends LE data from the sending controller's *random*
# address, but Linux connects with its public one, so the sensor drops every packet from the kernel.
# Deliver from the address the connection was made with.
_send_acl = LocalLink.send_acl_data


def send_acl_from_connection_address(self, sender, destination, transport, data):
    if transport == PhysicalTransport.LE:
        connection = sender.le_connections.get(destination)
        receiver = self.find_le_controller(destination)
        if connection is not None and receiver is not None:
            source = connection.self_address
            asyncio.get_running_loop().call_soon(lambda: receiver.on_link_acl_data(source, transport, data))
            return
    return _send_acl(self, sender, destination, transport, data)


LocalLink.send_acl_data = send_acl_from_connection_address


def advertisement(name, service_uuid):
    name = name.encode()
    return bytes([2, 0x01, 0x06, 3, 0x03, service_uuid & 0xFF, service_uuid >> 8, len(name) + 1, 0x09]) + name


def readable(uuid, value):
    return gatt.Characteristic(UUID.from_16_bits(uuid), gatt.Characteristic.Properties.READ,
                               gatt.Characteristic.Permissions.READABLE, value)


def notifying(uuid):
    return gatt.Characteristic(UUID.from_16_bits(uuid), gatt.Characteristic.Properties.NOTIFY,
                               gatt.Characteristic.Permissions(0), b"")


class Counter:
    """A cumulative revolution counter and the time of its last whole revolution, as a sensor keeps them."""

    def __init__(self, ticks_per_second):
        self.ticks_per_second = ticks_per_second
        self.revolutions = 0.0
        self.last_event = 0.0
        self.now = None

    def advance(self, per_second, now):
        # By the time that really passed: under emulation a tick is often well over its nominal second.
        dt, self.now = (now - self.now if self.now is not None else 0.0), now
        if per_second <= 0 or dt <= 0:
            return
        before = int(self.revolutions)
        self.revolutions += per_second * dt
        if int(self.revolutions) > before:
            self.last_event = now - (self.revolutions - int(self.revolutions)) / per_second

    def event_time(self):
        return int(self.last_event * self.ticks_per_second) & 0xFFFF


class Sensor:
    """One scripted device: `schedule(elapsed)` gives (value, present); `measurement(value, now)` the bytes."""

    def __init__(self, tag, device, characteristic, advertising, schedule, measurement):
        self.tag, self.device, self.characteristic = tag, device, characteristic
        self.advertising, self.schedule, self.measurement = advertising, schedule, measurement
        self.first_connection = None
        self.present = True
        device.on("connection", self.connected)
        device.on("disconnection", lambda *a: print(f"{tag}_DISCONNECTED", flush=True))

    def connected(self, connection):
        print(f"{self.tag}_CONNECTED {connection.peer_address}", flush=True)
        if self.first_connection is None:
            self.first_connection = time.monotonic()

    async def start(self):
        await self.device.power_on()
        await self.device.start_advertising(advertising_data=self.advertising, auto_restart=True)

    async def tick(self):
        elapsed = time.monotonic() - self.first_connection if self.first_connection else 0
        value, wanted = self.schedule(elapsed)
        if self.present and not wanted:
            print(f"{self.tag}_GOING_AWAY", flush=True)
            await self.device.stop_advertising()
            for connection in list(self.device.connections.values()):
                try:
                    await connection.disconnect()
                except Exception as error:  # the link may already be gone
                    print(f"{self.tag}_DISCONNECT_ERROR {error!r}", flush=True)
        elif wanted and not self.present:
            print(f"{self.tag}_BACK", flush=True)
            await self.device.start_advertising(advertising_data=self.advertising, auto_restart=True)
        self.present = wanted
        if not self.present:
            return
        try:
            payload, logged = self.measurement(value, elapsed)
            await self.device.notify_subscribers(self.characteristic, value=payload)
            if self.device.connections:
                print(f"{self.tag}_SENT {logged}", flush=True)
        except Exception as error:
            print(f"{self.tag}_NOTIFY_ERROR {error!r}", flush=True)


def scripted(first, second, after):
    def schedule(elapsed):
        if elapsed < 30:
            return first, True
        if elapsed < 60:
            return second, True
        if elapsed < 75:
            return 0, False
        return after, True
    return schedule


def device(link, name, address, controller_address):
    controller = Controller(name, link=link, public_address=controller_address)
    return Device(name=name, address=Address(address), host=Host(controller, AsyncPipeSink(controller)))


def strap(link):
    dev = device(link, "HR-Strap", "F1:F2:F3:F4:F5:F6", "C1:00:00:00:00:02")
    bpm = [100]
    service = HeartRateService(
        read_heart_rate_measurement=lambda _c: HeartRateService.HeartRateMeasurement(
            heart_rate=bpm[0], sensor_contact_detected=True, energy_expended=None, rr_intervals=[60 / max(bpm[0], 1)]),
        body_sensor_location=HeartRateService.BodySensorLocation.CHEST)
    dev.add_service(service)

    def measurement(value, _elapsed):
        bpm[0] = value
        return None, f"bpm={value}"  # None: the service reads the value through its callback

    return Sensor("STRAP", dev, service.heart_rate_measurement_characteristic, advertisement("HR-Strap", 0x180D),
                  scripted(100, 160, 130), measurement)


def power_meter(link):
    dev = device(link, "Power-Meter", "E1:E2:E3:E4:E5:E6", "C1:00:00:00:00:03")
    measurement_characteristic = notifying(0x2A63)
    dev.add_service(gatt.Service(gatt.GATT_CYCLING_POWER_SERVICE, [
        measurement_characteristic,
        readable(0x2A65, struct.pack("<I", 0x08)),  # Cycling Power Feature: crank revolution data
        readable(0x2A5D, bytes([5])),               # Sensor Location: left crank
    ]))
    crank = Counter(1024)

    def measurement(watts, elapsed):
        crank.advance(90 / 60, elapsed)
        # Flags 0x0020: crank revolution data present.
        return struct.pack("<HhHH", 0x0020, watts, int(crank.revolutions) & 0xFFFF, crank.event_time()), f"watts={watts}"

    return Sensor("POWER", dev, measurement_characteristic, advertisement("Power-Meter", 0x1818),
                  scripted(200, 340, 150), measurement)


def speed_cadence_sensor(link):
    dev = device(link, "CSC-Sensor", "D1:D2:D3:D4:D5:D6", "C1:00:00:00:00:04")
    measurement_characteristic = notifying(0x2A5B)
    dev.add_service(gatt.Service(gatt.GATT_CYCLING_SPEED_AND_CADENCE_SERVICE, [
        measurement_characteristic,
        readable(0x2A5C, struct.pack("<H", 0x0003)),  # CSC Feature: wheel and crank revolution data
        readable(0x2A5D, bytes([12])),                # Sensor Location: rear wheel
    ]))
    wheel, crank = Counter(1024), Counter(1024)

    def measurement(_value, elapsed):
        wheel.advance(8 / 2.105, elapsed)
        crank.advance(85 / 60, elapsed)
        payload = struct.pack("<BIHHH", 0x03, int(wheel.revolutions) & 0xFFFFFFFF, wheel.event_time(),
                              int(crank.revolutions) & 0xFFFF, crank.event_time())
        return payload, f"wheel={int(wheel.revolutions)} crank={int(crank.revolutions)}"

    return Sensor("CSC", dev, measurement_characteristic, advertisement("CSC-Sensor", 0x1816),
                  lambda _elapsed: (0, True), measurement)


async def main():
    link = LocalLink()
    transport = await open_transport("vhci")
    kernel_side = Controller("kernel", host_source=transport.source, host_sink=transport.sink, link=link,
                             public_address="C0:00:00:00:00:01")
    # Workaround 2: bumble claims LL Privacy but never sends the Enhanced Connection Complete Linux then
    # waits for (a 20 s stall per connection). Workaround 3: it sends extended advertising reports even to
    # a host that scans with legacy commands. Hide both features from the kernel.
    kernel_side.le_features &= ~hci.LeFeatureMask.LL_PRIVACY
    kernel_side.le_features &= ~hci.LeFeatureMask.LE_EXTENDED_ADVERTISING

    sensors = [strap(link), power_meter(link), speed_cadence_sensor(link)]
    for sensor in sensors:
        await sensor.start()
    print("SENSORS_READY", flush=True)
    while True:
        await asyncio.sleep(1.0)
        for sensor in sensors:
            await sensor.tick()


if __name__ == "__main__":
    asyncio.run(main())
