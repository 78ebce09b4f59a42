"""A stand-in for the `flatten-dict` package, which Debian does not ship.

The DataTrails SDK merges nested dicts with `flatten` and `unflatten` (tuple keys, or dotted ones
with reducer/splitter "dot"); that is all this provides.
"""


def _joined(reducer, parent, key):
    if reducer == "dot":
        return key if parent is None else f"{parent}.{key}"
    return (key,) if parent is None else parent + (key,)


def flatten(d, reducer="tuple"):
    out = {}

    def walk(node, parent):
        for k, v in node.items():
            key = _joined(reducer, parent, k)
            if isinstance(v, dict) and v:
                walk(v, key)
            else:
                out[key] = v

    walk(d, None)
    return out


def unflatten(d, splitter="tuple"):
    out = {}
    for key, v in d.items():
        parts = key.split(".") if splitter == "dot" else key
        node = out
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = v
    return out
