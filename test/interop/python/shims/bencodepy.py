"""A stand-in for the `bencode.py` package (module `bencodepy`), which Debian does not ship.

Only `encode` is provided: DataTrails' SCITT samples bencode an event's v3 fields to recompute
its leaf, and nothing else. Dict keys are sorted as bytes, as BitTorrent's encoding requires.
"""


def _bytes(value):
    return value.encode("utf-8") if isinstance(value, str) else bytes(value)


def encode(value):
    if isinstance(value, bool):
        raise TypeError("bencode has no booleans")
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, (str, bytes, bytearray)):
        raw = _bytes(value)
        return b"%d:%s" % (len(raw), raw)
    if isinstance(value, (list, tuple)):
        return b"l" + b"".join(encode(v) for v in value) + b"e"
    if isinstance(value, dict):
        items = sorted((_bytes(k), v) for k, v in value.items())
        return b"d" + b"".join(encode(k) + encode(v) for k, v in items) + b"e"
    raise TypeError(f"cannot bencode {type(value).__name__}")
