#!/usr/bin/env python3
"""pfm-rmse2.py A B: the mean squared difference of two PFM images of one
size, over every channel of every pixel (scripts/adaptive-noise.sh and
scripts/point-lights-noise.sh; no numpy needed)."""
import struct
import sys


def pfm(path):
    with open(path, "rb") as f:
        assert f.readline().strip() == b"PF", path + ": not a colour PFM"
        w, h = map(int, f.readline().split())
        scale = float(f.readline())
        data = f.read()
    fmt = ("<" if scale < 0 else ">") + "%df" % (3 * w * h)
    return struct.unpack(fmt, data[: 12 * w * h])


a, b = pfm(sys.argv[1]), pfm(sys.argv[2])
assert len(a) == len(b), "the images differ in size"
print("%.6g" % (sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)))
