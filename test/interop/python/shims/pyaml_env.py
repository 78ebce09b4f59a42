"""A stand-in for the `pyaml-env` package, which Debian does not ship.

`parse_config` reads YAML (a path or text), replacing `${VAR}` and `${VAR:default}` in values
tagged `!ENV` from the environment, as the SDK's runner reads its story files.
"""
import os
import re

import yaml

_VAR = re.compile(r"\$\{([^}^{:]+)(?::([^}]*))?\}")


def parse_config(path=None, data=None, tag="!ENV", default_value="N/A", loader=yaml.SafeLoader, encoding="utf-8", **_):
    class _Loader(loader):
        pass

    def env(load, node):
        text = load.construct_scalar(node)
        return _VAR.sub(lambda m: os.environ.get(m.group(1), m.group(2) if m.group(2) is not None else default_value), text)

    _Loader.add_constructor(tag, env)
    if path is not None:
        with open(path, encoding=encoding) as f:
            return yaml.load(f, Loader=_Loader)
    return yaml.load(data, Loader=_Loader)
