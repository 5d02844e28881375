"""A hash of what the kit computes its answers from: the cases (public and hidden), the manifest (the
points included), the solutions, the kit's own code and the learner runtime's (the judge, the points
rule, the diagnoses, the words of the feedback) and numpy's version. What is stored from them (the
results store) is used again only while the hash is the same. `made_of` hashes less, for what is made from
the cases by a few modules only (the leak check's secrets): two checkouts that differ elsewhere share it."""
import ast
import hashlib
import importlib.util
from pathlib import Path

import numpy as np

import attnkit_runtime
from .paths import CASES_DIR, DATA_DIR, HIDDEN_CASES_DIR, PACKAGE_DIR, SOLUTIONS_DIR


def kit_fingerprint(salt, solutions_dir=SOLUTIONS_DIR):
    """16 hex digits of that hash, and of `salt` (what the stored thing is: a track, a format's name)."""
    code = [*sorted(PACKAGE_DIR.rglob("*.py")), *sorted(Path(attnkit_runtime.__file__).parent.rglob("*.py"))]
    return _digest(salt, solutions_dir, code)


def made_of(salt, module, solutions_dir=SOLUTIONS_DIR):
    """16 hex digits of the hash of the cases, the manifest, the solutions, numpy's version, `salt` and the
    files of the kit's module `module` and of every module of the kit it imports, directly or not."""
    return _digest(salt, solutions_dir, sorted(module_files(module)))


def _digest(salt, solutions_dir, code):
    digest = hashlib.sha256(f"{salt}\0{np.__version__}\0".encode())
    files = [*sorted(CASES_DIR.glob("*.yaml")), *sorted(HIDDEN_CASES_DIR.glob("*.yaml")),
             DATA_DIR / "manifest.yaml", *sorted(Path(solutions_dir).glob("*.py")), *code]
    for path in files:
        digest.update(str(path.relative_to(path.parents[1])).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


_KIT_PACKAGES = (__name__.partition(".")[0], attnkit_runtime.__name__)


def module_files(module):
    """The files (Paths) of the kit's module `module` ("attnkit.release.leaks"), of the packages holding it,
    and of every module of the kit and the learner runtime these import, directly or not (read from their
    import statements, not run)."""
    files, todo = set(), [module]
    while todo:
        name = todo.pop()
        spec = _spec(name)
        if spec is None or not spec.origin or Path(spec.origin) in files:
            continue
        files.add(Path(spec.origin))
        package = name if spec.submodule_search_locations is not None else name.rpartition(".")[0]
        todo += [package] if package else []
        todo += _imported(ast.parse(Path(spec.origin).read_bytes()), package)
    return files


def _spec(name):
    """The module spec of `name` if it is a module of the kit (not a name inside one), else None."""
    if name.partition(".")[0] not in _KIT_PACKAGES:
        return None
    try:
        return importlib.util.find_spec(name)
    except ModuleNotFoundError:  # "x.y" where x is a module, not a package
        return None


def _imported(tree, package):
    """The names of the modules the statements of `tree` may import (`from x import y`: x, and x.y in case y
    is a module), relative ones resolved in `package`."""
    names = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), package) if node.level \
                else node.module
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    return names
