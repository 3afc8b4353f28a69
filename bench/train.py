"""Training throughput of `train.train_step` (the step `train` takes), peak memory, the cost of each extra
training-time-test step, bf16 autocast vs fp32, and batches grouped by length vs in data order on this CPU, side by side
in one run.

Uses an extraction directory (default: the demo's runs/demo/hidden_states).
Usage: python bench/train.py [--data runs/demo/hidden_states] [--steps 5]
"""
import argparse, json, resource, tempfile, time
from pathlib import Path
import torch
from eagle3_nb.derive import derive_draft_config
from eagle3_nb.shards import HiddenStates
from eagle3_nb.objective import target_head
from eagle3_nb.train import TrainConfig, collate, fresh_draft, new_run, train_step
from eagle3_nb.embedded import embedded_verifier

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--data", default="runs/demo/hidden_states"); ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=4); a = ap.parse_args()
    ds = HiddenStates(a.data); head = ds.head(); eps = ds.manifest["verifier"]["rms_norm_eps"]
    cfg = derive_draft_config(embedded_verifier(), draft_vocab_size=8192).config
    pool, lens = list(range(a.steps * a.batch_size)), ds.lengths()
    grouped = sorted(pool, key=lens.__getitem__)   # the same samples, batched by length (what group_by_length does within its windows)
    as_batches = lambda order: [collate([ds[j] for j in order[i:i + a.batch_size]]) for i in range(0, len(order), a.batch_size)]
    plain, by_len = as_batches(pool), as_batches(grouped)
    res = {}
    for K, prec, batches, tag in ((1, "fp32", plain, ""), (2, "fp32", plain, ""), (3, "fp32", plain, ""), (4, "fp32", plain, ""),
                                  (3, "bf16", plain, ""), (3, "bf16", by_len, " grouped")):
        tc = TrainConfig(ttt_steps=K, batch_size=a.batch_size, precision=prec)
        model = fresh_draft(cfg, ds, tc)
        th = target_head(head, torch.arange(cfg.draft_vocab_size) + model.d2t)   # as `train` does
        r = new_run(model, cfg, tc, th, eps, Path(tempfile.mkdtemp()), steps=len(batches) + 1)   # `train`'s step and optimiser
        train_step(r, batches[0])   # warm-up
        t, ntok = time.perf_counter(), 0
        for b in batches:
            train_step(r, b); ntok += int(b["loss_mask"].sum())
        res[f"K={K} {prec}{tag}"] = ntok / (time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"loss_tokens_per_s": res, "peak_rss_mib": round(peak)}, indent=1))
    print("cost of each extra TTT step (time per token relative to K=1, fp32): " + ", ".join(f"K={k}: {res['K=1 fp32'] / res[f'K={k} fp32']:.2f}x" for k in (1, 2, 3, 4)))
    print(f"bf16 autocast vs fp32 at K=3: {res['K=3 bf16'] / res['K=3 fp32']:.2f}x the tokens/s")
    print(f"batches grouped by length vs in data order (K=3 bf16, same samples): {res['K=3 bf16 grouped'] / res['K=3 bf16']:.2f}x the tokens/s")
