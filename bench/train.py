"""Training throughput, peak memory, and the cost of each extra training-time-test step, side by side in one run.

Uses an extraction directory (default: the demo's runs/demo/hidden_states).
Usage: python bench/train.py [--data runs/demo/hidden_states] [--steps 5]
"""
import argparse, json, resource, time
import torch
from eagle3_nb.derive import derive_draft_config
from eagle3_nb.extract import HiddenStates
from eagle3_nb.train import TrainConfig, _collate, build_draft, ttt_loss
from eagle3_nb.verifier import embedded_verifier

if __name__ == "__main__":
    ap = argparse.ArgumentParser(); ap.add_argument("--data", default="runs/demo/hidden_states"); ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=4); a = ap.parse_args()
    ds = HiddenStates(a.data); head = ds.head(); eps = ds.manifest["verifier"]["rms_norm_eps"]
    cfg = derive_draft_config(embedded_verifier(), draft_vocab_size=8192).config
    batches = [_collate([ds[j] for j in range(i * a.batch_size, (i + 1) * a.batch_size)]) for i in range(a.steps)]
    res = {}
    for K in (1, 2, 3, 4):
        tc = TrainConfig(ttt_steps=K, batch_size=a.batch_size)
        model = build_draft(cfg, ds, tc); ids = torch.arange(8192) + model.d2t
        opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
        ttt_loss(model, batches[0], head, ids, tc, eps)[0].backward()  # warm-up
        t, ntok = time.perf_counter(), 0
        for b in batches:
            loss = ttt_loss(model, b, head, ids, tc, eps)[0]; opt.zero_grad(); loss.backward(); opt.step(); ntok += int(b["loss_mask"].sum())
        res[K] = ntok / (time.perf_counter() - t)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"loss_tokens_per_s_by_ttt_steps": res, "peak_rss_mib": round(peak)}, indent=1))
    print("cost of each extra TTT step (time per token relative to K=1): " + ", ".join(f"K={k}: {res[1] / v:.2f}x" for k, v in res.items()))
