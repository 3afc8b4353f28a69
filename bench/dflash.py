"""A DFlash draft trained on a run's extracted states, then served by vLLM: acceptance (vLLM's and offline) and speed.

Trains `eagle3_nb.dflash.train_dflash` on RUN/hidden_states (the states `eagle3 run` extracted at the aux layers the
draft reads), exports it to OUT/draft, and evaluates it with `eagle3_nb.evaluate.evaluate_draft` on the run's held-out
prompts (the ones `eagle3 run` reports on) at each k: greedy identity, vLLM's acceptance, the offline estimate on
the same answers, and the speedup at batch 1. One row a k for the measurements page.

Usage: python bench/dflash.py --run runs/demo --out runs/dflash [--block-size 8] [--layers 1] [--epochs 4]
                              [--k 3,7] [--prompts 16] [--json OUT]
"""
import argparse, json, time
from pathlib import Path
from eagle3_nb.core import machine, read_json
from eagle3_nb.dflash import dflash_config, train_dflash
from eagle3_nb.embedded import embedded_verifier
from eagle3_nb.evaluate import evaluate_draft
from eagle3_nb.prompts import prompt_records
from eagle3_nb.shards import HiddenStates
from eagle3_nb.verifier import load_tokenizer

ints = lambda s: [int(x) for x in s.split(",")]
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--run", required=True, help="an `eagle3 run` directory (its hidden_states and run_config.json)")
ap.add_argument("--out", required=True)
ap.add_argument("--block-size", type=int, default=8)
ap.add_argument("--layers", type=int, default=1)
ap.add_argument("--epochs", type=float, default=4.0)
ap.add_argument("--batch-size", type=int, default=8)
ap.add_argument("--lr", type=float, default=6e-4)
ap.add_argument("--anchors", type=int, default=16)
ap.add_argument("--k", type=ints, default=[3, 7])
ap.add_argument("--prompts", type=int, default=16, help="held-out prompts served (the run's first ones)")
ap.add_argument("--json")
a = ap.parse_args()

run, out = Path(a.run), Path(a.out)
rc = read_json(run/"run_config.json")
v = rc.get("verifier") or str(embedded_verifier())
data = HiddenStates(run/"hidden_states")
cfg = dflash_config(v, a.block_size, a.layers, data.manifest["aux_layer_ids"], tokenizer=load_tokenizer(v),
                    draft_vocab_size=rc.get("draft_vocab_size"))
t0 = time.perf_counter()
if not (out/"draft"/"model.safetensors").exists():
    train_dflash(data, cfg, data.head(), out/"draft", epochs=a.epochs, batch_size=a.batch_size, lr=a.lr,
                 anchors=a.anchors)
secs = time.perf_counter() - t0
recs = prompt_records(rc.get("eval_source") or "default", "heldout", a.prompts)
rows = []
for k in a.k:
    ev = evaluate_draft(v, out/"draft", [r["messages"][0]["content"] for r in recs], None, out/f"eval-k{k}", k=k,
                        max_tokens=rc.get("eval_max_tokens") or 192, concurrency=[1])
    lv = ev["speed"]["levels"][0]
    rows.append({"block_size": a.block_size, "layers": a.layers, "k": k, "train_s": round(secs),
                 "tau_vllm": ev["vllm"]["mean_acceptance_length"], "tau_offline": ev["offline"]["mean_acceptance_length"],
                 "per_position": ev["vllm"]["per_position"], "greedy_identical": ev["greedy_identical"],
                 "speedup_c1": lv["speedup"], "tokens_per_s": {x: lv[x]["tokens_per_s"] for x in ("baseline", "eagle3")}})
    r = rows[-1]
    print(f"block {a.block_size}, {a.layers} layer(s), k={k}: tau vLLM {r['tau_vllm']:.3f} / offline "
          f"{r['tau_offline']:.3f}, greedy identical {r['greedy_identical']}, {r['speedup_c1']:.2f}x at batch 1 "
          f"({r['tokens_per_s']['baseline']:.1f} -> {r['tokens_per_s']['eagle3']:.1f} tok/s), train {secs:.0f} s")
print(machine())
if a.json: Path(a.json).write_text(json.dumps({"machine": machine(), "rows": rows}, indent=1))
