"""Extraction throughput and storage: eagle3_nb's extractor (float32 and bfloat16 compute) vs the naive way, side by side in one run.

naive = one forward with output_hidden_states=True (all 31 hidden states) and logits, everything saved in
float32 with torch.save. Ours = hooks on the 3 aux layers + the final norm, base model only, bf16 safetensors.
Usage: python bench/extract.py [--samples 32]
"""
import argparse, json, tempfile, time
from pathlib import Path
import torch
from eagle3_nb.extract import ExtractConfig, default_prompts, extract, tokenize_conversation
from eagle3_nb.verifier import embedded_verifier, load_verifier

def conversations(n):
    "Prompts with a fixed ~120-token answer (the benchmark measures the extractor, not generation)."
    answer = " ".join(["The answer explains the idea step by step, with an example and a short summary."] * 8)
    return [{"id": p["id"], "messages": p["messages"] + [{"role": "assistant", "content": answer}]} for p in default_prompts()[:n]]

def naive(recs, vdir, out):
    model, tok = load_verifier(vdir)
    ntok, nbytes = 0, 0
    for i, r in enumerate(recs):
        ids, mask = tokenize_conversation(tok, r["messages"])
        with torch.no_grad(): o = model(input_ids=torch.tensor([ids]), output_hidden_states=True)
        torch.save({"hidden_states": [h.float() for h in o.hidden_states], "logits": o.logits.float(), "input_ids": ids, "loss_mask": mask}, out/f"{i}.pt")
        ntok += len(ids); nbytes += (out/f"{i}.pt").stat().st_size
    return ntok, nbytes

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--samples", type=int, default=32); a = ap.parse_args()
    vdir, recs = embedded_verifier(), conversations(a.samples)
    load_verifier(vdir)  # warm the file cache for both
    with tempfile.TemporaryDirectory() as d:
        d = Path(d); (d/"naive").mkdir()
        t = time.perf_counter(); ntok, nbytes = naive(recs, vdir, d/"naive"); tn = time.perf_counter() - t
        t = time.perf_counter(); s = extract(recs, vdir, d/"ours", ExtractConfig(shard_size=16, batch_size=8)); to = time.perf_counter() - t
        t = time.perf_counter(); extract(recs, vdir, d/"ours_bf16", ExtractConfig(shard_size=16, batch_size=8, compute_dtype="bfloat16")); tb = time.perf_counter() - t
    r = {"samples": a.samples, "tokens": ntok, "naive": {"tokens_per_s": ntok / tn, "bytes_per_token": nbytes / ntok},
         "ours": {"tokens_per_s": s["tokens"] / to, "bytes_per_token": s["bytes_per_token"]}, "ours_bf16_compute": {"tokens_per_s": s["tokens"] / tb}}
    r["speedup"] = r["ours"]["tokens_per_s"] / r["naive"]["tokens_per_s"]
    r["storage_ratio"] = r["naive"]["bytes_per_token"] / r["ours"]["bytes_per_token"]
    print(json.dumps(r, indent=1))
    print(f"ours is {r['speedup']:.2f}x faster (tokens/s, model load included) and stores {r['storage_ratio']:.1f}x fewer bytes per token")
    print(f"bfloat16 compute vs float32 compute (ours): {r['ours_bf16_compute']['tokens_per_s'] / r['ours']['tokens_per_s']:.2f}x the tokens/s")
