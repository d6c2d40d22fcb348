#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_gpuregs (tests/fuzz/corpus/gpuregs) in the command encoding that
fuzz_gpuregs.c documents. Regenerate: python3 tests/fuzz/make_gpuregs_seeds.py"""
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "gpuregs")


def hdr(op, dw, flags=0):
    return op | (dw << 8) | (flags << 16)


def push(c, dws):
    return bytes([2 | (c << 3), len(dws)]) + b"".join(struct.pack("<I", d & 0xFFFFFFFF) for d in dws)


def addr(c, kind, off):  # kind even: system scratch buffer, odd: device memory
    return bytes([3 | (c << 3), kind]) + struct.pack("<H", off)


def bell(c):
    return bytes([5 | (c << 3)])


def run(n):
    return bytes([4]) + struct.pack("<H", n)


def wr(off, v, w=4):
    return bytes([0]) + struct.pack("<HBI", off, w, v)


def rd(off, w=4):
    return bytes([1]) + struct.pack("<HB", off, w)


CH = lambda c, reg: 0x1000 + c * 0x40 + reg  # noqa: E731  GPU_CH_REG

SEEDS = {
    # fence with a system-memory write: header, ADDR (system scratch), VALUE
    "fence_sysmem": push(0, [hdr(5, 5, 0x2)]) + addr(0, 0, 0x100) + push(0, [42, 0]) + bell(0) + run(100),
    # copy 256 bytes system -> device, then device -> system
    "copy_sys_dev": push(0, [hdr(2, 7, 0x2)]) + addr(0, 0, 0) + addr(0, 1, 0x1000) + push(0, [256, 0])
    + push(0, [hdr(2, 7, 0x4)]) + addr(0, 1, 0x1000) + addr(0, 0, 0x2000) + push(0, [256, 0]) + bell(0) + run(1000),
    # a 2-D copy and a 4-byte memset on channel 1
    "copy2d_memset": push(1, [hdr(3, 9, 0x2)]) + addr(1, 0, 0) + push(1, [64]) + addr(1, 1, 0) + push(1, [128, 32, 4])
    + push(1, [hdr(4, 8, 2 << 3)]) + addr(1, 1, 0x800) + push(1, [0xDEADBEEF, 0, 16, 0, 1]) + bell(1) + run(1000),
    # a semaphore wait released by a fence on the other channel, an interrupt packet, NOPs
    "sem_wait_fence": push(0, [hdr(6, 5, 0)]) + addr(0, 0, 0x40) + push(0, [1, 0]) + bell(0)
    + push(1, [hdr(5, 5, 0x2)]) + addr(1, 0, 0x40) + push(1, [1, 0, hdr(7, 1), hdr(0, 3), 0, 0]) + bell(1) + run(2000),
    # a launch whose image is not there (LAUNCH_IMAGE / DEVMEM_FAULT paths)
    "launch_no_image": push(0, [hdr(1, 19)]) + addr(0, 1, 0) + push(0, [0, 1, 1, 1, 32, 1, 1, 0, 0, 16, 0])
    + addr(0, 0, 0x300) + push(0, [0, 0, 7]) + bell(0) + run(5000),
    # register pokes: widths, read-only and unmapped offsets, reserved bits, channel 5 set-up
    "registers": wr(0x10C, 0x12345678) + rd(0x10C) + rd(0x10C, 2) + wr(0x000, 1) + wr(0x7FF0, 3) + rd(0x9000)
    + wr(0x100, 0xFFFFFFFF) + wr(CH(5, 0x08), 4096) + wr(CH(5, 0x14), 1) + wr(0x108, 5) + wr(0x10E, 1, 2)
    + rd(0x300) + rd(0x304) + wr(0x300, 0x3F) + wr(0x200, 3),
    # an unknown opcode and a packet shorter than its opcode needs
    "bad_packets": push(0, [0xFF | (1 << 8), hdr(2, 3, 0), 1]) + bell(0) + run(100) + push(1, [hdr(5, 5, 0xF0)]) + bell(1),
}

if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
