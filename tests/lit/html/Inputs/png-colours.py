#!/usr/bin/env python3
"""Fails when a PNG screenshot is blank: too few distinct colours.

    png-colours.py FILE.png --min-colours N [--min-share-non-background S]

Decodes the PNG with the standard library only (zlib; 8-bit greyscale, RGB
or RGBA, non-interlaced, as Chromium writes them), counts the distinct pixel
colours and the share of pixels that differ from the most common one (the
background). Prints both; exits 1 when there are fewer than N colours or
the non-background share is under S (default 0.02).
"""
import argparse
import struct
import sys
import zlib
from collections import Counter


def pixels(path):
    data = open(path, "rb").read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        sys.exit("png-colours: %s: not a PNG" % path)
    pos, idat, head = 8, [], None
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
        pos += 12 + length
    width, height, depth, colour, _, _, interlace = head
    channels = {0: 1, 2: 3, 4: 2, 6: 4}.get(colour)
    if depth != 8 or channels is None or interlace:
        sys.exit("png-colours: %s: unsupported PNG (depth %d, colour %d)"
                 % (path, depth, colour))
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    prev = bytearray(stride)
    rows = []
    for y in range(height):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = prev[i]
            ul = prev[i - channels] if i >= channels else 0
            if f == 1:
                line[i] = (line[i] + left) & 255
            elif f == 2:
                line[i] = (line[i] + up) & 255
            elif f == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif f == 4:
                p = left + up - ul
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - ul)
                pred = left if pa <= pb and pa <= pc else up if pb <= pc else ul
                line[i] = (line[i] + pred) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, channels, rows


ap = argparse.ArgumentParser()
ap.add_argument("png")
ap.add_argument("--min-colours", type=int, required=True)
ap.add_argument("--min-share-non-background", type=float, default=0.02)
a = ap.parse_args()
width, height, channels, rows = pixels(a.png)
count = Counter()
for row in rows:
    for x in range(0, len(row), channels):
        count[row[x:x + channels]] += 1
total = width * height
share = 1 - count.most_common(1)[0][1] / total
print("png-colours: %dx%d, %d colours, %.1f %% not background"
      % (width, height, len(count), 100 * share))
if len(count) < a.min_colours or share < a.min_share_non_background:
    print("png-colours: %s looks blank" % a.png)
    sys.exit(1)
