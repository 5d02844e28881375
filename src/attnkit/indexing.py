"""A tiny, safe parser for the index expressions used in case files: "O[1, :3]", "[..., :2, :]"."""
import re

_PICK = re.compile(r"^\s*(\w+)?\s*(\[.*\])?\s*$")
_SLICE_PART = re.compile(r"^\s*(-?\d+)?\s*(?::\s*(-?\d+)?\s*(?::\s*(-?\d+)?\s*)?)?$")


def parse_index(text):
    """Return the numpy index for "[1, :3]" / "[..., -1]" (ints, slices and ... only)."""
    text = text.strip()
    if not (text.startswith("[") and text.endswith("]")):
        raise ValueError(f"an index must look like [1, :3], got {text!r}")
    parts = []
    for raw in text[1:-1].split(","):
        raw = raw.strip()
        if raw == "...":
            parts.append(Ellipsis)
            continue
        match = _SLICE_PART.match(raw)
        if not raw or not match:
            raise ValueError(f"cannot read index part {raw!r} in {text!r}")
        if ":" in raw:
            start, stop, step = (int(g) if g is not None else None for g in match.groups())
            parts.append(slice(start, stop, step))
        else:
            parts.append(int(match.group(1)))
    return tuple(parts)


def parse_pick(text):
    """Split "O[1, :3]" into ("O", index) and "P" into ("P", ()); the name may be omitted."""
    match = _PICK.match(text)
    if not match:
        raise ValueError(f"a pick must look like O[1, :3], got {text!r}")
    name, index = match.groups()
    return name, (parse_index(index) if index else ())
