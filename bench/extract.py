"""Extraction throughput and storage, in one run: the `transformers` and vLLM backends (float32 and bfloat16 compute),
against the naive way (one forward with output_hidden_states=True, every hidden state and the logits saved in float32).

Bytes per token are compared with the minimum a draft needs: 3 aux layers + the last hidden state in bf16 (4 x H x 2),
the token id (8) and the loss-mask byte (1). "wall" tokens/s include loading the verifier (vLLM: starting the engine),
"steady" ones do not.
Then online training (a producer process extracting under a disk bound while the trainer consumes and deletes shards)
against offline extract-then-train on the same data and data order, for two epochs: wall time and peak shard bytes.
Last, answers and hidden states in one vLLM session (`regenerate_and_extract`) against `regenerate` then `extract`
(both in vLLM, bfloat16), each with its own engine start.
Usage: python bench/extract.py [--samples 64] [--backends transformers,vllm] [--online-samples 64] [--one-engine 64]
"""
import argparse, json, tempfile, time
from pathlib import Path
import torch
from eagle3_nb.prompts import default_prompts
from eagle3_nb.shards import ExtractConfig, tokenize_conversation
from eagle3_nb.extract import extract
from eagle3_nb.embedded import embedded_verifier, load_verifier

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
        torch.save({"hidden_states": [h.float() for h in o.hidden_states], "logits": o.logits.float(),
                    "input_ids": ids, "loss_mask": mask}, out/f"{i}.pt")
        ntok += len(ids); nbytes += (out/f"{i}.pt").stat().st_size
    return ntok, nbytes

def per_token_minimum(H, n_aux=3): return (n_aux + 1) * H * 2 + 8 + 1

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=64)
    ap.add_argument("--backends", default="transformers,vllm")
    ap.add_argument("--online-samples", type=int, default=64, help="0: skip the online/offline comparison")
    ap.add_argument("--one-engine", type=int, default=64, help="prompts of the one-session comparison (0: skip)")
    a = ap.parse_args()
    vdir, recs = embedded_verifier(), conversations(a.samples)
    H = load_verifier(vdir)[0].config.hidden_size   # also warms the file cache for every run below
    cpu = torch.backends.cpu.get_cpu_capability()
    rows = {}
    with tempfile.TemporaryDirectory() as d:
        d = Path(d); (d/"naive").mkdir()
        t = time.perf_counter(); ntok, nbytes = naive(recs, vdir, d/"naive")
        rows["naive (float32, all layers + logits)"] = {"tokens_per_s": ntok / (time.perf_counter() - t), "bytes_per_token": nbytes / ntok}
        for backend in a.backends.split(","):
            for cd in ("float32", "bfloat16"):
                t = time.perf_counter()
                s = extract(recs, vdir, d/f"{backend}-{cd}", ExtractConfig(backend=backend, compute_dtype=cd, shard_size=64))
                rows[f"{backend}, {cd} compute"] = {"tokens_per_s": s["tokens"] / (time.perf_counter() - t),
                                                    "steady_tokens_per_s": s["tokens_per_s"], "bytes_per_token": s["bytes_per_token"]}
    least = per_token_minimum(H)
    print(json.dumps({"cpu_capability": cpu, "samples": a.samples, "tokens": ntok, "hidden_size": H,
                      "minimum_bytes_per_token": least, "rows": rows}, indent=1))
    base = rows["transformers, float32 compute"]["tokens_per_s"] if "transformers" in a.backends else None
    print(f"\n{'extractor':38} {'wall tok/s':>10} {'x tf fp32':>9} {'steady tok/s':>12} {'bytes/token':>11} {'x minimum':>9}  ({cpu})")
    for k, r in rows.items():
        ratio = f"{r['tokens_per_s'] / base:.2f}" if base else "-"
        steady = f"{r['steady_tokens_per_s']:.0f}" if "steady_tokens_per_s" in r else "-"
        print(f"{k:38} {r['tokens_per_s']:10.0f} {ratio:>9} {steady:>12} {r['bytes_per_token']:11.0f} {r['bytes_per_token'] / least:9.2f}")
    for name, h in (("Llama-3.1-8B", 4096), ("Kimi-K2.5", 7168)):
        b = per_token_minimum(h)
        print(f"{name} (H={h}): {b} bytes/token = {b / 1024:.1f} KiB; 100M tokens = {b * 1e8 / 1e12:.2f} TB")

    if a.online_samples:
        from eagle3_nb.derive import derive_draft_config
        from eagle3_nb.online import train_online
        from eagle3_nb.train import TrainConfig, train
        recs = conversations(a.online_samples)
        config = derive_draft_config(vdir, draft_vocab_size=2048).config
        tc = TrainConfig(epochs=2, batch_size=4, shuffle="shard", log_to="none")
        tc = TrainConfig(**{**tc.__dict__, "precision": "bf16" if tc.bf16 else "fp32"})   # one decision for both runs
        xc = ExtractConfig(shard_size=8)
        with tempfile.TemporaryDirectory() as d:
            d = Path(d); conv = d/"conv.jsonl"
            conv.write_text("".join(json.dumps(r) + "\n" for r in recs))
            t = time.perf_counter()
            s = extract(conv, vdir, d/"hs", xc)
            off = train(d/"hs", config, d/"offline", tc, progress=False)
            t_off = time.perf_counter() - t
            shard = max(f.stat().st_size for f in (d/"hs").glob("shard_*"))
            t = time.perf_counter()
            on = train_online(conv, vdir, config, d/"online", 3 * shard / 2**30, xc, tc, progress=False)
            t_on = time.perf_counter() - t
        n = 2 * s["tokens"]   # tokens trained on in two epochs
        print(f"\nonline vs offline, {a.online_samples} conversations x 2 epochs ({n} tokens trained, precision {tc.precision}):")
        print(f"  offline extract + train: {t_off:6.1f} s, {n / t_off:6.0f} tok/s; all {s['bytes'] / 2**20:.1f} MiB of shards on disk")
        print(f"  online (bound 3 shards): {t_on:6.1f} s, {n / t_on:6.0f} tok/s ({t_off / t_on:.2f}x offline); peak "
              f"{on['disk_high_water'] / 2**20:.1f} MiB of shards on disk ({on['disk_high_water'] / s['bytes']:.0%} of offline)")

    if a.one_engine:
        from eagle3_nb.regeneration import RegenConfig, regenerate
        from eagle3_nb.vllm_extract import regenerate_and_extract
        prompts, rc = default_prompts()[:a.one_engine], RegenConfig(backend="vllm", dtype="bfloat16", max_new_tokens=128)
        xc = ExtractConfig(backend="vllm", compute_dtype="bfloat16")
        with tempfile.TemporaryDirectory() as d:
            d = Path(d)
            t = time.perf_counter()
            s = extract(regenerate(prompts, vdir, d/"two.jsonl", rc), vdir, d/"two", xc)
            t_two = time.perf_counter() - t
            t = time.perf_counter()
            s1 = regenerate_and_extract(prompts, vdir, d/"one.jsonl", d/"one", rc, xc)
            t_one = time.perf_counter() - t
        print(f"\nanswers + hidden states of {a.one_engine} prompts (128 new tokens, vLLM, bfloat16):")
        print(f"  regenerate, then extract (two engine starts): {t_two:6.1f} s, {s['tokens']} tokens stored")
        print(f"  regenerate_and_extract (one session):        {t_one:6.1f} s, {s1['tokens']} tokens stored "
              f"({t_two / t_one:.2f}x the speed)")
