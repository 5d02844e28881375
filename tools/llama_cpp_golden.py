"""Golden tensors from llama.cpp itself, for tests/test_gguf_llama_cpp.py (written to tests/data/llama_cpp/).

    python tools/llama_cpp_golden.py LLAMA_CPP_DIR [--out tests/data/llama_cpp]

LLAMA_CPP_DIR is a llama.cpp source tree built for the CPU. The one the data was made with is the
tree vendored in llama-cpp-python's source release (its commit is printed into the data's README):

    pip download --no-deps --no-binary :all: llama-cpp-python==0.3.36 && tar xzf llama_cpp_python-0.3.36.tar.gz
    cd llama_cpp_python-0.3.36/vendor/llama.cpp
    cmake -S . -B build -DGGML_NATIVE=OFF -DLLAMA_CURL=OFF -DCMAKE_BUILD_TYPE=Release
    cmake --build build -j2 --target llama            # about 25 minutes on 2 cores

The script needs torch, transformers and tokenizers (`pip install -e ".[hf,gguf]"`: llama.cpp's
converter needs the same; its own gguf-py is taken from the tree) and a C++ compiler. It

1. makes a tiny random GPT-2 with transformers (32 wide, 4 heads, 2 blocks, GPT-2's real vocabulary
   and merges, taken from the tree's models/ggml-vocab-gpt-2.gguf) and saves it;
2. converts it with the tree's own convert_hf_to_gguf.py (f32), then stores `token_embd` as Q8_0
   with the tree's gguf-py so the file stays small (llama.cpp only gathers rows of it for the
   attention path, which dequantises exactly; attnkit reads the same bytes);
3. compiles tools/llama_cpp_dump.cpp against the build: llama-eval-callback's hook (`cb_eval`) with
   a callback that writes each tensor whole, as float32 with its `ne`, `nb` and view offset
   (llama-eval-callback prints only 3 values at each end of every axis, to 4 decimals:
   common/debug.cpp), and runs it with Flash Attention off on each prompt, with llama.cpp's default
   f16 KV cache and with an f32 one, the last prompt also decoded in chunks; when llama-eval-callback
   is built too, it is run on the same prompts and every value it prints must equal the dump's;
4. writes tiny-gpt2.gguf, golden.npz (every tensor, compressed: the padding slots are zeros) and
   golden.json (prompts, runs, token ids, each tensor's op, ne, nb, view) into --out, with a copy of
   llama.cpp's own GPT-2 tokenizer test (models/ggml-vocab-gpt-2.gguf.inp/.out: texts and ids).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
WIDTH, HEADS, BLOCKS, POSITIONS = 32, 4, 2, 256
N_CTX = 256  # llama.cpp's context: the KV-cache view is then the minimum 256 slots
PROMPTS = ["foo_bar __init__ a__b", "I'm sure they'll say 12345 isn't 2024's", "Café naïve 東京  x\n\ty", "How are you doing today"]
CHUNKED = ("How are you doing today", "2,1,2")  # three decode calls: the cache holds 2, then 3 keys
CACHES = ("f16", "f32")


def gpt2_vocabulary(tree):
    """(tokens, merges) of GPT-2 from the tree's vocabulary-only GGUF."""
    sys.path.insert(0, str(tree / "gguf-py"))
    import gguf

    reader = gguf.GGUFReader(tree / "models" / "ggml-vocab-gpt-2.gguf")
    return (list(reader.get_field("tokenizer.ggml.tokens").contents()),
            list(reader.get_field("tokenizer.ggml.merges").contents()))


def make_hf_model(folder, tokens, merges, seed=0):
    """A random GPT-2 saved by transformers, with weights large enough for peaked attention."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(seed)
    config = GPT2Config(vocab_size=len(tokens), n_positions=POSITIONS, n_embd=WIDTH, n_layer=BLOCKS, n_head=HEADS)
    model = GPT2LMHeadModel(config)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith(("ln_1.weight", "ln_2.weight", "ln_f.weight")):
                p.copy_(1 + 0.2 * torch.randn_like(p))
            else:
                p.copy_((0.5 if "wte" in name or "wpe" in name else 0.3) * torch.randn_like(p))
    model.save_pretrained(folder)
    saved = json.loads((folder / "config.json").read_text())
    saved["n_ctx"] = POSITIONS  # transformers 5 no longer writes it; llama.cpp's converter reads it
    (folder / "config.json").write_text(json.dumps(saved, indent=2))
    (folder / "vocab.json").write_text(json.dumps({t: k for k, t in enumerate(tokens)}, ensure_ascii=False))
    (folder / "merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")


def convert(tree, hf_folder, out_file):
    """convert_hf_to_gguf.py (f32), then token_embd re-stored as Q8_0."""
    raw = out_file.with_suffix(".f32.gguf")
    env = {**os.environ, "PYTHONPATH": str(tree / "gguf-py")}
    subprocess.run([sys.executable, str(tree / "convert_hf_to_gguf.py"), str(hf_folder), "--outtype", "f32",
                    "--outfile", str(raw)], check=True, env=env)
    import gguf
    from gguf.quants import quantize

    reader = gguf.GGUFReader(raw)
    writer = gguf.GGUFWriter(str(out_file), reader.get_field("general.architecture").contents())
    for field in reader.fields.values():
        if field.name == "general.architecture" or field.name.startswith("GGUF."):
            continue
        kind = field.types[0]
        writer.add_key_value(field.name, field.contents(), kind,
                             sub_type=field.types[-1] if kind == gguf.GGUFValueType.ARRAY else None)
    q8 = gguf.GGMLQuantizationType.Q8_0
    for t in reader.tensors:
        values = np.asarray(t.data).reshape(tuple(reversed([int(n) for n in t.shape])))
        if t.name == "token_embd.weight":
            packed = quantize(values, q8)
            writer.add_tensor(t.name, packed, raw_shape=packed.shape, raw_dtype=q8)
        else:
            writer.add_tensor(t.name, values)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    raw.unlink()


def build_dumper(tree, work):
    binary = work / "llama-cpp-dump"
    lib = tree / "build" / "bin"
    subprocess.run(["g++", "-O2", "-std=c++17", str(REPO / "tools" / "llama_cpp_dump.cpp"), "-o", str(binary),
                    f"-I{tree / 'include'}", f"-I{tree / 'ggml' / 'include'}", f"-L{lib}",
                    "-lllama", "-lggml", "-lggml-base", f"-Wl,-rpath,{lib}"], check=True)
    return binary


def read_dump(prefix):
    """[(record, values)] of one dump: record = its index line's fields, values float32 [ne reversed]."""
    flat = np.fromfile(f"{prefix}.f32", dtype=np.float32)
    rows = []
    for line in Path(f"{prefix}.tsv").read_text().splitlines():
        call, name, op, *numbers, view_src, view_offs, start = line.split("\t")
        ne, nb = [int(n) for n in numbers[:4]], [int(n) for n in numbers[4:]]
        count = int(np.prod(ne))
        values = flat[int(start): int(start) + count].reshape(tuple(reversed(ne)))
        rows.append(({"call": int(call), "name": name, "op": op, "ne": ne, "nb": nb,
                      "view_src": None if view_src == "-" else view_src, "view_offs": int(view_offs)}, values))
    return rows


def printed_by_eval_callback(text):
    """{name: [(ne, values printed)]} from llama-eval-callback's output (common/debug.cpp's format:
    a header line per tensor, then nested brackets where each axis longer than 6 shows its first and
    last 3 entries, "..." between)."""
    found, name, ne, numbers = {}, None, None, []
    for line in text.splitlines():
        header = re.match(r"common_debug_cb_eval:\s+(.+?) = \(\w+\).* = \{([\d, ]+)\}$", line)
        if header:
            name, ne, numbers = header[1], [int(n) for n in header[2].split(",")], []
        elif name and line.strip().startswith("sum ="):
            found.setdefault(name, []).append((ne, np.array(numbers)))
            name = None
        elif name:
            numbers += [float(v) for v in re.findall(r"-?\d+\.\d+|-?nan|-?inf", line)]
    return found


def shown_indices(n):
    return list(range(n)) if n <= 6 else [0, 1, 2, n - 3, n - 2, n - 1]


def check_against_eval_callback(tree, model, prompt, cache, dumped):
    """Run llama-eval-callback (if built) on the same prompt: its printed values must be the dump's,
    to its 4 printed decimals. Returns how many values were compared, or None without the tool."""
    tool = tree / "build" / "bin" / "llama-eval-callback"
    if not tool.exists():
        return None
    done = subprocess.run([str(tool), "-m", str(model), "-p", prompt, "--flash-attn", "off", "-c", str(N_CTX),
                           "-t", "1", "-ctk", cache, "-ctv", cache], capture_output=True, text=True, check=True)
    printed = printed_by_eval_callback(done.stdout + done.stderr)
    compared = 0
    for record, values in dumped:
        if record["call"] or record["name"] not in printed:
            continue
        ne, numbers = printed[record["name"]][0]
        assert ne == record["ne"], (record["name"], ne, record["ne"])
        corner = values[np.ix_(*[shown_indices(n) for n in reversed(ne)])].reshape(-1)
        assert np.allclose(corner, numbers, rtol=0, atol=5.1e-5), record["name"]
        compared += len(numbers)
    return compared


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("llama_cpp", type=Path, help="a llama.cpp source tree with a CPU build in build/")
    parser.add_argument("--out", type=Path, default=REPO / "tests" / "data" / "llama_cpp")
    args = parser.parse_args()
    tree = args.llama_cpp.resolve()
    args.out.mkdir(parents=True, exist_ok=True)
    commit = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        tokens, merges = gpt2_vocabulary(tree)
        make_hf_model(work / "hf", tokens, merges)
        model = args.out / "tiny-gpt2.gguf"
        convert(tree, work / "hf", model)
        dumper = build_dumper(tree, work)
        runs, arrays = [], {}
        plan = [(p, cache, "all") for p in PROMPTS for cache in CACHES] + [(CHUNKED[0], c, CHUNKED[1]) for c in CACHES]
        for k, (prompt, cache, chunks) in enumerate(plan):
            done = subprocess.run([str(dumper), str(model), str(work / f"run{k}"), cache, chunks, prompt],
                                  capture_output=True, text=True, check=True)
            ids = [int(t) for line in done.stdout.splitlines() if line.startswith("tokens:") for t in line.split()[1:]]
            tensors = []
            for j, (record, values) in enumerate(read_dump(work / f"run{k}")):
                key = f"run{k}/{j}"
                arrays[key] = values
                tensors.append({**record, "key": key})
            runs.append({"prompt": prompt, "cache": cache, "chunks": chunks, "tokens": ids, "tensors": tensors})
            if chunks == "all":
                compared = check_against_eval_callback(tree, model, prompt, cache, read_dump(work / f"run{k}"))
                print(f"{prompt!r} ({cache} cache): " + ("llama-eval-callback not built" if compared is None else
                      f"{compared} values printed by llama-eval-callback, all equal to the dump's"))
    np.savez_compressed(args.out / "golden.npz", **arrays)
    for suffix in (".inp", ".out"):  # llama.cpp's own tokenizer test texts and ids for GPT-2 (tests/test-tokenizer-0)
        shutil.copy(tree / "models" / f"ggml-vocab-gpt-2.gguf{suffix}", args.out / f"ggml-vocab-gpt-2{suffix}")
    meta = {"llama_cpp_commit": commit, "n_ctx": N_CTX, "flash_attn": "off", "runs": runs}
    (args.out / "golden.json").write_text(json.dumps(meta, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {model}, golden.npz, golden.json ({len(runs)} runs) from llama.cpp {commit}")


if __name__ == "__main__":
    main()
