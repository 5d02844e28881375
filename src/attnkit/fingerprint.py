"""A hash of what the kit computes its answers from: the cases (public and hidden), the manifest (the
points included), the solutions, the kit's own code and the learner runtime's (the judge, the points
rule, the diagnoses, the words of the feedback) and numpy's version. What is stored from them (the
results store) is used again only while the hash is the same. `made_of` hashes less, for what is made from
the cases by a few modules only (the leak check's secrets): two checkouts that differ elsewhere share it."""
import ast
import hashlib
import importlib.util
import json
import os
import tempfile
from pathlib import Path

import numpy as np

import attnkit_runtime
from attnkit_runtime.kept_inputs import cache_folder
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


_ROOTS = {__name__.partition(".")[0]: PACKAGE_DIR, attnkit_runtime.__name__: Path(attnkit_runtime.__file__).parent}
_STATEMENTS = "module-imports-1"  # the cache folder of the modules' import statements


def module_files(module):
    """The files (Paths) of the kit's module `module` ("attnkit.release.leaks"), of the packages holding it,
    and of every module of the kit and the learner runtime these import, directly or not (read from their
    import statements, not run; each file's statements are kept in the cache folder by the hash of its
    text, since parsing the files is most of the walk's time)."""
    kept = _kept_statements()
    used, files, todo = {}, set(), [module]
    while todo:
        name = todo.pop()
        found = _source(name)
        if found is None or found[0] in files:
            continue
        path, is_package = found
        files.add(path)
        package = name if is_package else name.rpartition(".")[0]
        todo += [package] if package else []
        source = path.read_bytes()
        digest = hashlib.sha256(source).hexdigest()
        used[digest] = kept[digest] if digest in kept else _import_statements(ast.parse(source))
        todo += _imported(used[digest], package)
    if used != kept:
        _keep_statements(used)
    return files


def _source(name):
    """(the file, whether it is a package's __init__.py) of `name` if it is a module of the kit (not a name
    inside one), else None: found in the kit's folders, not imported (importlib's find_spec imports the
    packages holding a module, and the kit's weigh more than the walk)."""
    top, *parts = name.split(".")
    folder = _ROOTS.get(top)
    if folder is None:
        return None
    for part in parts[:-1]:
        folder = folder / part
        if not (folder / "__init__.py").is_file():
            return None
    if not parts:
        return folder / "__init__.py", True
    if (folder / parts[-1] / "__init__.py").is_file():
        return folder / parts[-1] / "__init__.py", True
    module = folder / f"{parts[-1]}.py"
    return (module, False) if module.is_file() else None


def _import_statements(tree):
    """[level, module, names] of each import statement of `tree` (`import x, y`: 0, None, [x, y])."""
    return [[0, None, [alias.name for alias in node.names]] if isinstance(node, ast.Import) else
            [node.level, node.module, [alias.name for alias in node.names]]
            for node in ast.walk(tree) if isinstance(node, (ast.Import, ast.ImportFrom))]


def _imported(statements, package):
    """The names of the modules the import `statements` may import (`from x import y`: x, and x.y in case y
    is a module), relative ones resolved in `package`."""
    names = []
    for level, module, imported in statements:
        if module is None and not level:
            names += imported
            continue
        base = importlib.util.resolve_name("." * level + (module or ""), package) if level else module
        names += [base, *(f"{base}.{name}" for name in imported)]
    return names


def _statements_file():
    return cache_folder(_STATEMENTS) / "statements.json"


def _kept_statements():
    """{hash of a module's text: its _import_statements} as the last walk kept them ({} if none can be read)."""
    try:
        kept = json.loads(_statements_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return kept if isinstance(kept, dict) else {}


def _keep_statements(statements):
    """Keep `statements` (this walk's, so that the file holds only the modules' present texts); a cache
    folder that cannot be written leaves the walk only slower."""
    path = _statements_file()
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as out:
            json.dump(statements, out)
        os.replace(out.name, path)
    except OSError:
        pass
