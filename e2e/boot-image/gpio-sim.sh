#!/bin/sh
# Runs inside the booted image (scripts/boot-image), from the test seed's bootcmd: early in every boot. The
# image's kernel (Debian's arm64) has no gpio-sim: the module built for it comes on the FAT partition with the
# test. A simulated chip whose line 17 is named GPIO17, as on a Pi's header, so the image's own configuration
# (line_name = "GPIO17") finds it; its value's path is left in /run/boot-test-led for check.sh.
set -eu
d=/boot/firmware/boot-test
[ ! -f $d/irq_sim.ko ] || [ -d /sys/module/irq_sim ] || insmod $d/irq_sim.ko
[ -d /sys/module/gpio_sim ] || insmod $d/gpio-sim.ko
C=/sys/kernel/config/gpio-sim/pi
if [ ! -d $C ]; then
    mkdir $C $C/bank0
    echo 28 > $C/bank0/num_lines
    mkdir $C/bank0/line17
    echo GPIO17 > $C/bank0/line17/name
    echo 1 > $C/live
fi
echo "/sys/devices/platform/$(cat $C/dev_name)/$(cat $C/bank0/chip_name)/sim_gpio17/value" > /run/boot-test-led
udevadm settle || true
# The service may have started before the chip existed.
systemctl --no-block try-restart ridegate.service
