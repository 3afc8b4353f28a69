"""Decoding speed of one draft in vLLM across the number of speculative tokens k: the speedup over the verifier alone at
each concurrency (batch 1 by default) and the acceptance length, with the package's own sweep (`eagle3_nb.speed`).

One verifier-alone engine serves every k; each k gets its own engine with the draft, and the two arms alternate which
runs first as in `eagle3 evaluate`. Prompts are taken from a held-out set *after* `--skip` of them, so that a k chosen
here is never chosen on the prompts an evaluation reports (the demo reports the first 64 of the default held-out split).

Usage: python bench/speed.py --draft DIR [--verifier DIR] [--k 1,2,3,4,5] [--concurrency 1] [--prompt-set default]
                             [--skip 64] [--prompts 12] [--max-tokens 192] [--dtype float32] [--json OUT]
Prints a table (one row per k and level) and writes the rows as JSON.
"""
import argparse, gc, json, sys
from eagle3_nb.core import ANSWER_TOKENS, machine
from eagle3_nb.embedded import embedded_verifier
from eagle3_nb.prompts import prompt_records
from eagle3_nb.speed import speed_engines, speed_sweep

ints = lambda s: [int(x) for x in s.split(",")]
ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--draft", required=True)
ap.add_argument("--verifier", help="default: the embedded SmolLM2-135M-Instruct")
ap.add_argument("--k", type=ints, default=[1, 2, 3, 4, 5])
ap.add_argument("--concurrency", type=ints, default=[1])
ap.add_argument("--prompt-set", default="default")
ap.add_argument("--skip", type=int, default=64, help="held-out prompts left out first (those an evaluation reports)")
ap.add_argument("--prompts", type=int, default=12)
ap.add_argument("--max-tokens", type=int, default=ANSWER_TOKENS)
ap.add_argument("--dtype", default="float32")
ap.add_argument("--json")
a = ap.parse_args()

v = a.verifier or embedded_verifier()
recs = prompt_records(a.prompt_set, "heldout", a.skip + a.prompts)[a.skip:]
if len(recs) < a.prompts:
    sys.exit(f"{a.prompt_set} has {a.skip + len(recs)} held-out prompts: lower --skip or --prompts")
msgs = [r["messages"] for r in recs]
rows, base = [], None
for k in a.k:   # the verifier-alone engine of the first k serves every k
    eng = speed_engines(v, a.dtype, draft=a.draft, k=k)
    base = base or eng["baseline"]
    sw = speed_sweep({"baseline": base, "eagle3": eng["eagle3"]}, msgs, a.concurrency,
                     [a.prompts] * len(a.concurrency), a.max_tokens)
    for r in sw["levels"]: rows.append({"k": k, **r})
    del eng; gc.collect()
span = f"{a.skip}-{a.skip + a.prompts - 1}"
print(f"\n{machine()}, {a.dtype}, {a.prompt_set} held-out prompts {span}, {a.max_tokens} tokens")
print("| k | concurrency | tokens/s without / with | speedup | acceptance length pooled / per request | per position |"
      " greedy identical |")
print("|---|---|---|---|---|---|---|")
for r in rows:
    acc = r["acceptance"]
    print(f"| {r['k']} | {r['concurrency']} | {r['baseline']['tokens_per_s']:.1f} / {r['eagle3']['tokens_per_s']:.1f} | "
          f"{r['speedup']:.2f}x | {acc['pooled']:.3f} / {acc['per_request']:.3f} | "
          f"{' / '.join(f'{p:.3f}' for p in acc['per_position'])} | {r['greedy_identical']} |")
if a.json:
    with open(a.json, "w") as f: json.dump({"machine": machine(), "args": vars(a), "rows": rows}, f, indent=1)
