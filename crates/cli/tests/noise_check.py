"""Checks `--noise-scale` on three recordings of one drive of examples/sensor_rig.world.xml
(K = 0, 1, 2), read with mcap + mcap-ros2-support:

- every topic that carries no noise is byte-identical in the three;
- the 2D laser's and the VLP-16's range errors have robust sigmas K times the world's
  (0.01 m and 0.005 m);
- the IMU's and the GNSS's errors at K = 2 are exactly twice those at K = 1 (same draws);
- at K = 0 the wheel odometry is the exact odometry.

usage: noise_check.py K0.mcap K1.mcap K2.mcap
"""
import math
import struct
import sys

import numpy as np
from mcap.reader import make_reader
from mcap_ros2.decoder import DecoderFactory

NOISY = {"/r1/scan", "/r1/vlp16_points", "/r1/imu", "/r1/gps", "/r1/wheel_odom",
         "/r1/rgbd_depth/image_raw", "/r1/rgbd_points"}


def read(path):
    raw, decoded = {}, {}
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for _, channel, message, msg in reader.iter_decoded_messages():
            raw.setdefault(channel.topic, []).append(bytes(message.data))
            if channel.topic in NOISY or channel.topic == "/r1/odom":
                decoded.setdefault(channel.topic, []).append(msg)
    return raw, decoded


runs = [read(p) for p in sys.argv[1:4]]
raws = [r[0] for r in runs]
assert raws[0].keys() == raws[1].keys() == raws[2].keys()
for topic in raws[0]:
    counts = [len(r[topic]) for r in raws]
    assert counts[0] == counts[1] == counts[2], (topic, counts)
    if topic not in NOISY:
        assert raws[0][topic] == raws[1][topic] == raws[2][topic], f"{topic} changed with the noise"
noisy_changed = [t for t in NOISY if t in raws[0] and raws[0][t] != raws[1][t]]
assert set(noisy_changed) >= NOISY - {"/r1/rgbd_depth/image_raw"}, noisy_changed


def robust_sigma(values):
    values = np.asarray(values)
    return 1.4826 * np.median(np.abs(values - np.median(values)))


def close(sigma, expected, what, tolerance=0.05):
    assert abs(sigma - expected) <= tolerance * expected, f"{what}: sigma {sigma} vs {expected}"


# Laser: ranges K times as far from the noiseless ones (the angle noise, 0.01 degrees, moves a
# ray's hit on the walls by well under a millimetre).
scans = [np.array([r for m in run[1]["/r1/scan"] for r in m.ranges]) for run in runs]
finite = np.isfinite(scans[0]) & np.isfinite(scans[1]) & np.isfinite(scans[2])
for k in (1, 2):
    close(robust_sigma(scans[k][finite] - scans[0][finite]), 0.01 * k, f"laser at K={k}")


def cloud_ranges(msg):
    points = np.frombuffer(bytes(msg.data), dtype=np.float32).reshape(-1, 7)
    return np.linalg.norm(points[:, :3].astype(np.float64), axis=1), bytes(msg.data)


for i, (m0, m1, m2) in enumerate(zip(*(run[1]["/r1/vlp16_points"] for run in runs))):
    assert m0.width == m1.width == m2.width, "a point's validity does not depend on the noise here"
diffs = {1: [], 2: []}
for m0, m1, m2 in zip(*(run[1]["/r1/vlp16_points"] for run in runs)):
    r0, r1, r2 = cloud_ranges(m0)[0], cloud_ranges(m1)[0], cloud_ranges(m2)[0]
    diffs[1].extend(r1 - r0)
    diffs[2].extend(r2 - r0)
    # labels and instances (bytes 18..20 and 24..28 of each 28-byte point) are the noiseless ones
    b0, b2 = np.frombuffer(bytes(m0.data), np.uint8).reshape(-1, 28), np.frombuffer(bytes(m2.data), np.uint8).reshape(-1, 28)
    assert (b0[:, 16:20] == b2[:, 16:20]).all() and (b0[:, 24:28] == b2[:, 24:28]).all()
for k in (1, 2):
    close(robust_sigma(diffs[k]), 0.005 * k, f"VLP-16 at K={k}")


def imu_values(msg):
    return [msg.angular_velocity.x, msg.angular_velocity.y, msg.angular_velocity.z,
            msg.linear_acceleration.x, msg.linear_acceleration.y, msg.linear_acceleration.z]


imu = [np.array([imu_values(m) for m in run[1]["/r1/imu"]]) for run in runs]
e1, e2 = imu[1] - imu[0], imu[2] - imu[0]
assert np.abs(e1).max() > 1e-4
assert np.allclose(e2, 2 * e1, rtol=1e-6, atol=1e-9), np.abs(e2 - 2 * e1).max()
# 120 draws: a robust sigma within 20 %
close(robust_sigma(e1[:, 3:].ravel()), 0.017, "accelerometer at K=1", 0.2)

gps = [np.array([[m.latitude, m.longitude, m.altitude] for m in run[1]["/r1/gps"]]) for run in runs]
g1, g2 = gps[1] - gps[0], gps[2] - gps[0]
assert np.abs(g1[:, 2]).max() > 0.1
# in metres (lat/lon to a local ENU's north and east): the conversion is linear to 0.1 mm here
metres = np.array([111_320.0, 111_320.0 * math.cos(math.radians(gps[0][0, 0])), 1.0])
assert np.abs((g2 - 2 * g1) * metres).max() < 1e-4, np.abs((g2 - 2 * g1) * metres).max()


def planar(msg):
    p, q = msg.pose.pose.position, msg.pose.pose.orientation
    return p.x, p.y, math.atan2(2 * (q.w * q.z + q.x * q.y), 1 - 2 * (q.y * q.y + q.z * q.z))


exact = [planar(m) for m in runs[0][1]["/r1/odom"]]
wheel0 = [planar(m) for m in runs[0][1]["/r1/wheel_odom"]]
wheel1 = [planar(m) for m in runs[1][1]["/r1/wheel_odom"]]
assert max(abs(a - b) for e, w in zip(exact, wheel0) for a, b in zip(e, w)) < 1e-9, "noiseless odometry"
travelled = math.hypot(exact[-1][0] - exact[0][0], exact[-1][1] - exact[0][1])
assert travelled > 1.0, travelled
assert math.hypot(wheel1[-1][0] - exact[-1][0], wheel1[-1][1] - exact[-1][1]) > 1e-4, "noisy odometry"
print(f"noise scales: {len(scans[0])} laser ranges, {len(diffs[1])} lidar points, {len(imu[0])} IMU samples")
