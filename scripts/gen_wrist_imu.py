#!/usr/bin/env python3
"""Generates examples/wrist_imu.csv: a simulated wrist-worn IMU orientation trace (no real person's data).

Model: 60 s at 50 Hz of someone walking, then pausing and reaching. The wrist's orientation is the
intrinsic yaw-pitch-roll (Z, Y, X) rotation with
  yaw   = slow heading drift (random walk, 2 deg/sqrt(s)) + 15 deg arm swing at the 0.9 Hz stride,
  pitch = 35 deg arm swing at 0.9 Hz while walking (t < 40 s), a 60 deg reach between 45 and 50 s,
  roll  = 10 deg forearm twist at 1.8 Hz + sensor jitter (0.5 deg white noise).
Columns: t_s (seconds), w, x, y, z (unit quaternion, scalar first, w >= 0), 9 decimals.
Pure Python, seeded: rerunning it reproduces the file byte for byte.
"""
import math
import random

random.seed(20261121)
RATE, SECONDS = 50, 60
rows = []
heading = 0.0
for i in range(RATE * SECONDS):
    t = i / RATE
    heading += random.gauss(0.0, 2.0 / math.sqrt(RATE))
    walking = 1.0 if t < 40 else max(0.0, 1.0 - (t - 40) / 2)
    reach = 60.0 * max(0.0, math.sin(math.pi * (t - 45) / 5)) if 45 <= t <= 50 else 0.0
    yaw = heading + 15.0 * walking * math.sin(2 * math.pi * 0.9 * t)
    pitch = 35.0 * walking * math.sin(2 * math.pi * 0.9 * t + 0.4) + reach
    roll = 10.0 * math.sin(2 * math.pi * 1.8 * t) + random.gauss(0.0, 0.5)
    # Intrinsic ZYX: q = qz(yaw) * qy(pitch) * qx(roll).
    cy, sy = math.cos(math.radians(yaw) / 2), math.sin(math.radians(yaw) / 2)
    cp, sp = math.cos(math.radians(pitch) / 2), math.sin(math.radians(pitch) / 2)
    cr, sr = math.cos(math.radians(roll) / 2), math.sin(math.radians(roll) / 2)
    w = cy * cp * cr + sy * sp * sr
    x = cy * cp * sr - sy * sp * cr
    y = cy * sp * cr + sy * cp * sr
    z = sy * cp * cr - cy * sp * sr
    if w < 0:
        w, x, y, z = -w, -x, -y, -z
    rows.append(f"{t:.2f},{w:.9f},{x:.9f},{y:.9f},{z:.9f}")

with open("examples/wrist_imu.csv", "w") as f:
    f.write("t_s,w,x,y,z\n")
    f.write("\n".join(rows) + "\n")
