"""PFM reading and writing and a plain PNG writer, with numpy only.

Images are (h, w, 3) float32 arrays with row 0 the TOP of the picture (as
trace's PNGs and the masks here); PFM files store the bottom row first
(the format's rule, which trace's .pfm output and render.py follow), so
read_pfm flips.
"""

import struct
import zlib

import numpy as np


def read_pfm(path):
    with open(path, "rb") as f:
        kind = f.readline().strip()
        if kind not in (b"PF", b"Pf"):
            raise ValueError("%s: not a PFM file" % path)
        w, h = (int(x) for x in f.readline().split())
        sc = float(f.readline())
        data = np.frombuffer(f.read(), dtype="<f4" if sc < 0 else ">f4")
    ch = 3 if kind == b"PF" else 1
    img = data[: w * h * ch].reshape(h, w, ch).astype(np.float32)
    if ch == 1:
        img = np.repeat(img, 3, axis=2)
    return img[::-1].copy()  # top row first


def write_pfm(path, img):
    h, w, _ = img.shape
    with open(path, "wb") as f:
        f.write(b"PF\n%d %d\n-1.0\n" % (w, h))
        f.write(np.ascontiguousarray(img[::-1], dtype="<f4").tobytes())


def to_srgb8(img, exposure=0.0):
    """Linear radiance -> 8-bit sRGB (x 2^exposure, clamped), for looking."""
    x = np.clip(img * (2.0 ** exposure), 0, 1)
    s = np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)
    return (np.clip(s, 0, 1) * 255 + 0.5).astype(np.uint8)


def write_png(path, rgb8):
    """rgb8: (h, w, 3) uint8, row 0 the top."""
    h, w, _ = rgb8.shape
    raw = b"".join(b"\x00" + rgb8[y].tobytes() for y in range(h))

    def chunk(tag, data):
        c = struct.pack(">I", len(data)) + tag + data
        return c + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)


def upscale(rgb8, k):
    """Nearest-neighbour enlargement by an integer factor k."""
    return np.repeat(np.repeat(rgb8, k, axis=0), k, axis=1)
