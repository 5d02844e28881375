"""RoPE computed by llama.cpp's ggml, for tests/test_rope_engines.py (written to tests/data/llama_cpp/rope.json).

    python tools/llama_cpp_rope_golden.py LLAMA_CPP_DIR [--out tests/data/llama_cpp/rope.json]

LLAMA_CPP_DIR is a llama.cpp source tree built for the CPU, as tools/llama_cpp_golden.py says (its
`llama` target builds the ggml libraries this needs). The script compiles tools/llama_cpp_rope.c
against the build and runs ggml_rope_ext on random rows laid out as llama.cpp's Qcur, ne = {d_head,
n_head, T}, in both of its plain modes: GGML_ROPE_TYPE_NORMAL (0), which turns the pairs (2i, 2i+1),
and GGML_ROPE_TYPE_NEOX (2), which turns (i, i + d_head/2), every dimension rotated (n_dims =
d_head), no scaling (freq_scale 1, ext_factor 0, attn_factor 1). In the commit's ggml-cpu/ops.cpp,
ggml_rope_cache_init gives pair i the angle p · theta_scale**i with theta_scale = freq_base ** (-2 / n_dims),
and rotate_pairs turns (x0, x1) into (x0 cos - x1 sin, x0 sin + x1 cos), x1 at offset 1 (NORMAL) or
n_dims / 2 (NEOX).
"""
import argparse
import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parent.parent
D_HEAD, N_HEAD = 8, 2
POSITIONS = (0, 1, 2, 7, 30, 100)  # float32 angles stay within ~1e-5 of float64's up to here
MODES = {"adjacent": 0, "half": 2}  # GGML_ROPE_TYPE_NORMAL, GGML_ROPE_TYPE_NEOX
BASES = (10000.0, 500000.0)  # Llama 2's and Llama 3's


def build(tree, work):
    binary, lib = work / "llama-cpp-rope", tree / "build" / "bin"
    subprocess.run(["cc", "-O2", str(REPO / "tools" / "llama_cpp_rope.c"), "-o", str(binary),
                    f"-I{tree / 'ggml' / 'include'}", f"-L{lib}", "-lggml", "-lggml-base", "-lggml-cpu",
                    f"-Wl,-rpath,{lib}"], check=True)
    return binary


def ggml_rope(binary, x, positions, mode, base):
    """ggml's RoPE of x float32 [T, n_head, d_head] at int positions [T]: float32 [T, n_head, d_head]."""
    T, n_head, d_head = x.shape
    given = (np.array([d_head, n_head, T, mode], np.int32).tobytes() + np.float32(base).tobytes()
             + np.asarray(positions, np.int32).tobytes() + np.ascontiguousarray(x, np.float32).tobytes())
    done = subprocess.run([str(binary)], input=given, capture_output=True, check=True)
    return np.frombuffer(done.stdout, np.float32).reshape(x.shape)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("llama_cpp", type=Path, help="a llama.cpp source tree with a CPU build in build/")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "llama_cpp" / "rope.json")
    args = parser.parse_args()
    tree = args.llama_cpp.resolve()
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    x = np.random.default_rng(1200).standard_normal((len(POSITIONS), N_HEAD, D_HEAD)).astype(np.float32)
    with tempfile.TemporaryDirectory() as scratch:
        binary = build(tree, Path(scratch))
        runs = [{"pairing": pairing, "mode": mode, "base": base,
                 "x_rot": ggml_rope(binary, x, POSITIONS, mode, base).tolist()}
                for pairing, mode in MODES.items() for base in BASES]
    data = {"llama_cpp_commit": commit, "layout": "[T, n_head, d_head] (ne = {d_head, n_head, T})",
            "positions": list(POSITIONS), "x": x.tolist(), "runs": runs}
    args.out.write_text(json.dumps(data) + "\n", encoding="utf-8")
    print(f"wrote {args.out}: {len(runs)} runs from llama.cpp {commit}")


if __name__ == "__main__":
    main()
