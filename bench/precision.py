"""bfloat16 vs float32, stage by stage, on this CPU: what `precision auto` decides from one matmul probe, and what each
stage of the demo really gains or loses with bf16 (regeneration and extraction with the embedded verifier, training the
demo's draft). One run, one process; machines move about 10% run to run, so read the ratios, not the third digit.

Usage: python bench/precision.py [--prompts 64] [--max-new-tokens 128] [--steps 30] [--dtypes float32,bfloat16] [--as-avx2]
`--as-avx2` runs the stages as an AVX2-only x86 CPU would: torch's kernels, MKL (MKL_ENABLE_INSTRUCTIONS) and oneDNN at AVX2
(ONEDNN_MAX_CPU_ISA, so bf16 matmuls are emulated) and vLLM's AVX2 kernel library (vLLM picks it by the CPU's flags,
which are read through torch.cpu), as `bench/as_avx2.py` sets them. The core, its clock and its memory stay this machine's.
"""
import argparse, gc, json, sys, tempfile, time
from pathlib import Path

if "--as-avx2" in sys.argv:
    from as_avx2 import as_avx2   # bench/as_avx2.py
    as_avx2()
import torch
from eagle3_nb.derive import derive_draft_config
from eagle3_nb.engine import bf16_speedup, precision_reason, vllm_env
from eagle3_nb.prompts import default_prompts
from eagle3_nb.regeneration import RegenConfig, regenerate
from eagle3_nb.producers import read_jsonl_resumable
from eagle3_nb.shards import ExtractConfig, HiddenStates
from eagle3_nb.extract import extract
from eagle3_nb.pipeline import PRESETS
from eagle3_nb.objective import target_head
from eagle3_nb.train import TrainConfig, collate, fresh_draft, new_run, train_step
from eagle3_nb.embedded import embedded_verifier

def regen_rate(recs, v, out, dtype, n_tok):
    "Output tokens/s of the vLLM regeneration (engine start included, as the demo pays it)."
    t = time.perf_counter(); regenerate(recs, v, out, RegenConfig(backend="vllm", dtype=dtype, max_new_tokens=n_tok))
    gc.collect()
    from transformers import AutoTokenizer
    tok = AutoTokenizer.from_pretrained(v)
    n = sum(len(tok(r["messages"][1]["content"])["input_ids"]) for r in read_jsonl_resumable(out))
    return n / (time.perf_counter() - t)

def extract_rate(conv, v, out, dtype):
    "Tokens/s of the transformers extraction, the verifier's load excluded (what `extract` reports)."
    return extract(conv, v, out, ExtractConfig(compute_dtype=dtype))["tokens_per_s"]

def train_rate(data, steps, prec):
    "Loss tokens/s of the demo's training step (K=2, batch 4), after one warm-up step."
    ds, tc = HiddenStates(data), TrainConfig(**{**PRESETS["demo"]["train"], "precision": prec, "batch_size": 4})
    cfg = derive_draft_config(embedded_verifier(), draft_vocab_size=PRESETS["demo"]["draft_vocab_size"]).config
    model = fresh_draft(cfg, ds, tc)
    th = target_head(ds.head(), torch.arange(cfg.draft_vocab_size) + model.d2t)
    batches = [collate([ds[(4 * i + j) % len(ds)] for j in range(4)]) for i in range(steps + 1)]
    r = new_run(model, cfg, tc, th, ds.manifest["verifier"]["rms_norm_eps"], Path(tempfile.mkdtemp()), steps=steps + 1)
    train_step(r, batches[0])   # warm-up: `train`'s own step (clipping, schedule), as the demo runs it
    t, ntok = time.perf_counter(), 0
    for b in batches[1:]:
        train_step(r, b); ntok += int(b["loss_mask"].sum())
    return ntok / (time.perf_counter() - t)

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts", type=int, default=64); ap.add_argument("--max-new-tokens", type=int, default=128)
    ap.add_argument("--steps", type=int, default=30); ap.add_argument("--dtypes", default="float32,bfloat16")
    ap.add_argument("--as-avx2", action="store_true"); a = ap.parse_args()
    vllm_env(); v, tmp = embedded_verifier(), Path(tempfile.mkdtemp())
    recs, res = default_prompts()[:a.prompts], {}
    print(f"CPU capability {torch.backends.cpu.get_cpu_capability()}, {torch.get_num_threads()} threads; "
          f"precision auto -> {precision_reason('cpu')}", flush=True)
    dtypes = a.dtypes.split(","); first = dtypes[0]   # the same conversations and states for both extractions and trainings
    for dt in dtypes:
        prec = {"float32": "fp32", "bfloat16": "bf16"}[dt]
        res[f"regenerate {dt}"] = regen_rate(recs, v, tmp/f"conv_{dt}.jsonl", dt, a.max_new_tokens)
        res[f"extract {dt}"] = extract_rate(read_jsonl_resumable(tmp/f"conv_{first}.jsonl"), v, tmp/f"hs_{dt}", dt)
        res[f"train {prec}"] = train_rate(tmp/f"hs_{first}", a.steps, prec)
        print({k: round(x, 1) for k, x in res.items()}, flush=True)
    rows = [("regenerate (vLLM, output tok/s)", "regenerate float32", "regenerate bfloat16"),
            ("extract (transformers, tok/s)", "extract float32", "extract bfloat16"),
            ("train (demo draft, loss tok/s)", "train fp32", "train bf16")]
    print("\n| stage | float32 | bfloat16 | bf16 / fp32 |\n|---|---|---|---|")
    cell = lambda k: f"{res[k]:.0f}" if k in res else "-"
    for name, f, b in rows:
        print(f"| {name} | {cell(f)} | {cell(b)} | {f'{res[b] / res[f]:.2f}x' if f in res and b in res else '-'} |")
    print(f"| probe: one draft-MLP matmul | | | {bf16_speedup():.2f}x |")
    print(json.dumps({"capability": torch.backends.cpu.get_cpu_capability(), "rates": res, "probe": bf16_speedup()}))
