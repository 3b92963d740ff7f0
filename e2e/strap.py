#!/usr/bin/env python3
"""The end-to-end test's heart-rate strap: a Bumble device running the standard Heart Rate Service
behind a second Bumble controller, linked to the controller the Linux kernel sees through /dev/vhci
(hci0). It follows a script, so the test knows what the gateway must report:

    (seconds from the first connection)
    0-30 s    100 bpm  (zone 1 with max_hr 190)
    30-60 s   160 bpm  (zone 4)
    60-75 s   gone: the link is dropped and advertising stops (out of range)
    75 s on   130 bpm  (zone 2), advertising again

Every notification is logged as `STRAP_SENT bpm=N` so the guest's checks can compare.

Pinned to bumble==0.0.236: the three workarounds below patch that version's internals.
"""
import asyncio
import sys
import time

from bumble import hci
from bumble.controller import Controller
from bumble.core import PhysicalTransport
from bumble.device import Device
from bumble.hci import Address
from bumble.host import Host
from bumble.link import LocalLink
from bumble.profiles.heart_rate_service import HeartRateService
from bumble.transport import open_transport
from bumble.transport.common import AsyncPipeSink

ADDRESS = "F1:F2:F3:F4:F5:F6"  # random static

# Workaround 1 (bumble 0.0.236): LocalLink sends LE data from the sending controller's *random*
# address, but Linux connects with its public one, so the strap drops every packet from the kernel.
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


def schedule(elapsed):
    """(bpm, present) for a moment of the script."""
    if elapsed < 30:
        return 100, True
    if elapsed < 60:
        return 160, True
    if elapsed < 75:
        return 0, False
    return 130, True


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

    strap_controller = Controller("strap", link=link, public_address="C1:00:00:00:00:02")
    device = Device(name="HR-Strap", address=Address(ADDRESS), host=Host(strap_controller, AsyncPipeSink(strap_controller)))
    bpm = [100]
    service = HeartRateService(
        read_heart_rate_measurement=lambda _c: HeartRateService.HeartRateMeasurement(
            heart_rate=bpm[0], sensor_contact_detected=True, energy_expended=None, rr_intervals=[60 / max(bpm[0], 1)]),
        body_sensor_location=HeartRateService.BodySensorLocation.CHEST)
    device.add_service(service)
    name = b"HR-Strap"
    advertisement = bytes([2, 0x01, 0x06, 3, 0x03, 0x0D, 0x18, len(name) + 1, 0x09]) + name
    # The script's clock starts at the first connection, not at power-on: on a loaded machine the gateway
    # may take a while to connect, and the zone-1 phase must still be whole when the guest samples the LED.
    first_connection = []

    def connected(connection):
        print(f"STRAP_CONNECTED {connection.peer_address}", flush=True)
        if not first_connection:
            first_connection.append(time.monotonic())

    device.on("connection", connected)
    device.on("disconnection", lambda *a: print("STRAP_DISCONNECTED", flush=True))
    await device.power_on()
    await device.start_advertising(advertising_data=advertisement, auto_restart=True)
    print("STRAP_READY", flush=True)

    present = True
    while True:
        await asyncio.sleep(1.0)
        value, wanted = schedule(time.monotonic() - first_connection[0] if first_connection else 0)
        if present and not wanted:
            print("STRAP_GOING_AWAY", flush=True)
            await device.stop_advertising()
            for connection in list(device.connections.values()):
                try:
                    await connection.disconnect()
                except Exception as error:  # the link may already be gone
                    print(f"STRAP_DISCONNECT_ERROR {error!r}", flush=True)
        elif wanted and not present:
            print("STRAP_BACK", flush=True)
            await device.start_advertising(advertising_data=advertisement, auto_restart=True)
        present = wanted
        if present:
            bpm[0] = value
            try:
                await device.notify_subscribers(service.heart_rate_measurement_characteristic)
                if device.connections:
                    print(f"STRAP_SENT bpm={value}", flush=True)
            except Exception as error:
                print(f"STRAP_NOTIFY_ERROR {error!r}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
