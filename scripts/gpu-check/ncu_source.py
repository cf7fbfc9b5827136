#!/usr/bin/env python3
"""Summarises the source page of an Nsight Compute report, as gpu-check's
ncu-source step exports it (ncu --import R --page source --csv
--print-source cuda,sass, gzipped): per source file and per source line,
the share of the kernel's warp stall samples and of its instructions
executed, and the lanes active per instruction (thread instructions over
warp instructions); the share of the samples the instruction fetch
(stall_no_inst) took; and how much of the kernel's code the instructions
executed come from.

    ncu_source.py ENTRY CSV.gz [LINES]

prints lines that begin "ncu-source ENTRY: ", the LINES hottest source
lines last (default 8). The CSV holds, for each source file, a "File
Path" row, a "Function Name" row, a header row, then a row per source
line (its number first) followed by a row per SASS instruction of that
line (an empty first cell, its address third).
"""

import csv
import gzip
import sys
from collections import defaultdict

SAMPLES = "Warp Stall Sampling (All Samples)"
INSTS = "Instructions Executed"
THREADS = "Thread Instructions Executed"
NO_INST = "stall_no_inst"


def number(row, header, name):
    try:
        return float(row[header.index(name)])
    except (ValueError, IndexError):
        return 0.0


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    entry, path = sys.argv[1], sys.argv[2]
    hottest = int(sys.argv[3]) if len(sys.argv) == 4 else 8
    lines = []  # (file, line, source, samples, insts, threads, no_inst)
    sass = {}  # address: instructions executed
    name, header = "?", None
    with gzip.open(path, "rt", newline="") as f:
        for row in csv.reader(f):
            if not row:
                continue
            if row[0] == "File Path":
                name = row[1].rsplit("/", 1)[-1]
            elif row[0] == "Line No":
                header = row
            elif header is None or row[0] == "Function Name":
                continue
            elif row[0] != "":
                lines.append((name, row[0], row[1].strip(), number(row, header, SAMPLES),
                              number(row, header, INSTS), number(row, header, THREADS),
                              number(row, header, NO_INST)))
            elif len(row) > 3 and row[2].startswith("0x"):
                addr = int(row[2], 16)
                sass[addr] = max(sass.get(addr, 0.0), number(row, header, INSTS))
    samples = sum(l[3] for l in lines)
    insts = sum(l[4] for l in lines)
    threads = sum(l[5] for l in lines)
    if not lines or samples == 0 or insts == 0:
        sys.exit(f"ncu_source.py: no source lines with samples and instructions in {path}")
    head = f"ncu-source {entry}:"
    print(f"{head} {threads / insts:.2f} of 32 lanes active per instruction; "
          f"the instruction fetch (no_inst) {sum(l[6] for l in lines) / samples:.0%} of the stall samples")
    ran = sorted((n for n in sass.values() if n > 0), reverse=True)
    total, acc, n90 = sum(ran), 0.0, 0
    for n90, n in enumerate(ran, 1):
        acc += n
        if acc >= 0.9 * total:
            break
    print(f"{head} code {len(sass) * 16 // 1024} KB, of which {len(ran) * 16 // 1024} KB ran; "
          f"90 % of the instructions executed from the hottest {n90 * 16 // 1024} KB")
    files = defaultdict(lambda: [0.0, 0.0, 0.0])
    for l in lines:
        f = files[l[0]]
        f[0] += l[3]
        f[1] += l[4]
        f[2] += l[5]
    top = sorted(files.items(), key=lambda kv: -kv[1][0])[:6]
    print(f"{head} by file (stall samples, instructions, lanes): " + "; ".join(
        f"{k} {v[0] / samples:.0%}, {v[1] / insts:.0%}, {v[2] / v[1] if v[1] else 0:.1f}" for k, v in top))
    for l in sorted(lines, key=lambda l: -l[3])[:hottest]:
        lanes = l[5] / l[4] if l[4] else 0.0
        print(f"{head} {l[0]}:{l[1]} {l[3] / samples:.1%} of the samples, {l[4] / insts:.1%} of the "
              f"instructions, {lanes:.1f} lanes: {l[2][:80]}")


if __name__ == "__main__":
    main()
