"""The kit's YAML data files (manifest, cases), read with libyaml's parser when PyYAML has it:
the pure-Python parser takes 0.2 s for the case files, a large share of every `pytest exercises`."""
import yaml

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # the same safe constructor, a C parser


def read_yaml(path):
    """The data of the YAML file `path` (safe types only: dicts, lists, strings, numbers)."""
    return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
