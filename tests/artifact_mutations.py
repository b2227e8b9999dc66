"""Malformed variants of MLIR bytecode artifacts (StableHLO portable
artifacts), drawn from a seeded generator: random bytes, sections that
declare huge lengths, huge counts and sizes in the varints inside sections,
splices of two artifacts, and bit flips. The walker knows only the file's
outer structure (magic, version, producer, sections), enough to aim a
mutation at a length or count instead of at random bytes.

MLIR bytecode varints: the number of trailing zero bits of the first byte
says how many bytes follow (a first byte of 0: eight bytes follow), and the
value is the little-endian whole shifted right past that marker.
"""

from __future__ import annotations

import dataclasses

import numpy as np

MAGIC = b"ML\xefR"
_PAD = 0xCB  # alignment padding byte


def encode_varint(v: int) -> bytes:
    for n in range(1, 9):
        if v < 1 << (7 * n):
            return ((v << n) | (1 << (n - 1))).to_bytes(n, "little")
    return b"\x00" + v.to_bytes(8, "little")


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    first = data[pos]
    if first == 0:
        return int.from_bytes(data[pos + 1:pos + 9], "little"), pos + 9
    n = (first & -first).bit_length()  # 1 + trailing zeros
    return int.from_bytes(data[pos:pos + n], "little") >> n, pos + n


@dataclasses.dataclass
class Section:
    id: int
    body: bytes
    align: int | None  # the alignment the header asks for, if any


def parse(data: bytes) -> tuple[bytes, list[Section]]:
    """Splits a well-formed file into its header (magic, version, producer)
    and its top-level sections."""
    assert data.startswith(MAGIC)
    _, pos = read_varint(data, len(MAGIC))
    pos = data.index(b"\0", pos) + 1
    header, sections = data[:pos], []
    while pos < len(data):
        idb = data[pos]
        length, pos = read_varint(data, pos + 1)
        align = None
        if idb & 0x80:
            align, pos = read_varint(data, pos)
            while pos % align:
                pos += 1
        sections.append(Section(idb & 0x7F, data[pos:pos + length], align))
        pos += length
    return header, sections


def serialize(header: bytes, sections: list[Section], lengths: dict[int, int] | None = None) -> bytes:
    """The inverse of parse; `lengths` overrides the declared length of the
    sections at those indexes (the body stays as it is)."""
    out = bytearray(header)
    for i, s in enumerate(sections):
        out.append(s.id | (0x80 if s.align else 0))
        out += encode_varint((lengths or {}).get(i, len(s.body)))
        if s.align:
            out += encode_varint(s.align)
            while len(out) % s.align:
                out.append(_PAD)
        out += s.body
    return bytes(out)


# Declared sizes past anything real: 2^64-1, 2^63, 4 GiB, the largest int32,
# and a few values just past the data or a thousand times it.
def _huge(rng: np.random.Generator, near: int) -> int:
    return [(1 << 64) - 1, 1 << 63, 1 << 32, (1 << 31) - 1, near + 1, near + 8, near * 1000 + 1][
        int(rng.integers(7))]


# Each mutator: (generator, the artifact to start from, all artifacts) -> bytes.


def random_bytes(rng, base, bases) -> bytes:
    """Random bytes, alone, after the magic, or after base's whole header."""
    body = bytes(rng.integers(0, 256, int(rng.integers(0, 2048)), dtype=np.uint8))
    return [body, MAGIC + body, parse(base)[0] + body][int(rng.integers(3))]


def huge_section_length(rng, base, bases) -> bytes:
    header, sections = parse(base)
    i = int(rng.integers(len(sections)))
    return serialize(header, sections, {i: _huge(rng, len(sections[i].body))})


def huge_varint(rng, base, bases) -> bytes:
    """A varint inside a section replaced by a huge value, the section's
    length kept consistent: half the time the section's first varint (a
    count in most sections), else one at a random offset."""
    header, sections = parse(base)
    s = sections[int(rng.integers(len(sections)))]
    if not s.body:
        return serialize(header, sections)
    pos = 0 if rng.integers(2) else int(rng.integers(len(s.body)))
    _, end = read_varint(s.body + bytes(9), pos)
    s.body = s.body[:pos] + encode_varint(_huge(rng, len(s.body))) + s.body[min(end, len(s.body)):]
    return serialize(header, sections)


def splice(rng, base, bases) -> bytes:
    """The head of base and the tail of another artifact, cut anywhere; or
    base with a section taken from another, or sections dropped, duplicated
    or swapped."""
    a, b = base, bases[int(rng.integers(len(bases)))]
    how = int(rng.integers(3))
    if how == 0:
        return a[:int(rng.integers(len(a) + 1))] + b[int(rng.integers(len(b) + 1)):]
    header, sa = parse(a)
    _, sb = parse(b)
    if how == 1:
        donor = sb[int(rng.integers(len(sb)))]
        same = [i for i, s in enumerate(sa) if s.id == donor.id] or [int(rng.integers(len(sa)))]
        sa[same[int(rng.integers(len(same)))]] = donor
    else:
        i, j = (int(v) for v in rng.integers(len(sa), size=2))
        [lambda: sa.pop(i), lambda: sa.insert(j, sa[i]), lambda: sa.__setitem__(slice(None), _swap(sa, i, j))][
            int(rng.integers(3))]()
    return serialize(header, sa)


def _swap(seq, i, j):
    seq = list(seq)
    seq[i], seq[j] = seq[j], seq[i]
    return seq


def bit_flips(rng, base, bases) -> bytes:
    b = bytearray(base)
    for pos in rng.integers(len(MAGIC), len(b), int(rng.integers(1, 4))):
        b[pos] ^= 1 << int(rng.integers(8))
    return bytes(b)


MUTATORS = {f.__name__: f for f in (random_bytes, huge_section_length, huge_varint, splice, bit_flips)}


def corpus(seed: int, bases: list[bytes], per_mutator: dict[str, int]) -> list[tuple[str, int, bytes]]:
    """(mutator, index of the base it started from, bytes) for each case;
    case k of a mutator draws everything from the generator seeded with
    (seed, k, the mutator's name), so a case can be rebuilt alone."""
    out = []
    for name, count in per_mutator.items():
        for k in range(count):
            rng = np.random.default_rng([seed, k, *name.encode()])
            base = int(rng.integers(len(bases)))
            out.append((name, base, MUTATORS[name](rng, bases[base], bases)))
    return out
