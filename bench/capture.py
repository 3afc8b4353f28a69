"""Answers plus their hidden states, three ways, on the same prompts: `regenerate` then `extract` (a second pass with
`transformers`), and `regenerate_and_extract` capturing while vLLM decodes (`DecodeCapture`) or through vLLM's
`extract_hidden_states` method and KV connector. Wall time of each, engine starts included.

Usage: python bench/capture.py [--prompts 256] [--dtype auto] [--max-new-tokens 192] [--ways separate,decode,connector]
"""
import argparse, shutil, tempfile, time
from pathlib import Path
from eagle3_nb.engine import auto_dtype
from eagle3_nb.prompts import default_prompts
from eagle3_nb.regeneration import RegenConfig, regenerate
from eagle3_nb.shards import ExtractConfig
from eagle3_nb.extract import extract
from eagle3_nb.embedded import embedded_verifier
from eagle3_nb.vllm_extract import regenerate_and_extract

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--prompts", type=int, default=256)
p.add_argument("--dtype", default="auto", help="bfloat16, float32 or auto (bfloat16 where it is fast here)")
p.add_argument("--max-new-tokens", type=int, default=192)
p.add_argument("--ways", default="separate,decode,connector", help="comma-separated, run in this order")
a = p.parse_args()
recs, dtype, v = default_prompts("train")[:a.prompts], auto_dtype(a.dtype), embedded_verifier()
rcfg = RegenConfig(backend="vllm", dtype=dtype, max_new_tokens=a.max_new_tokens)
ecfg = ExtractConfig(dtype="bfloat16", compute_dtype=dtype)
tmp = Path(tempfile.mkdtemp())
for way in a.ways.split(","):
    d = tmp/way; t = time.perf_counter()
    if way == "separate":
        regenerate(recs, v, d/"conv.jsonl", rcfg); t1 = time.perf_counter() - t
        r = extract(d/"conv.jsonl", v, d/"hs", ecfg); split = f" (regenerate {t1:.1f} s, extract {time.perf_counter() - t - t1:.1f} s)"
    else:
        r, split = regenerate_and_extract(recs, v, d/"conv.jsonl", d/"hs", rcfg, ecfg, capture=way), ""
    print(f"{way:9s}: {time.perf_counter() - t:6.1f} s{split}; {r['samples']} samples, {r['tokens']} tokens", flush=True)
    shutil.rmtree(d)
