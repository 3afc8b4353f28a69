"""Template vs self-written vs half-and-half prompts at equal CPU time, scored on held-out prompts written by neither.

Each arm: N prompts answered greedily and once sampled (T=0.7), extracted, the demo's draft trained; the self-written
arm pays for writing its prompts with fewer training steps (the mixed arm with half as many). Offline mean acceptance
length at k=3 on the 48 hand-written held-out prompts and on 64 prompts of the shipped held-out split.

Usage: python bench/prompt_sources.py [--prompts 300] [--steps 750] [--work DIR]
"""
import argparse, json, tempfile, time
from dataclasses import replace
from pathlib import Path
from eagle3_nb.derive import derive_draft_config
from eagle3_nb.evaluate import trained_draft
from eagle3_nb.engine import auto_dtype, vllm_env
from eagle3_nb.prompts import default_prompts, prompt_records, sampled_copies
from eagle3_nb.regeneration import RegenConfig, regenerate
from eagle3_nb.producers import read_jsonl_resumable
from eagle3_nb.shards import ExtractConfig
from eagle3_nb.extract import extract
from eagle3_nb.pipeline import PRESETS
from eagle3_nb.self_prompts import self_prompts
from eagle3_nb.objective import offline_acceptance
from eagle3_nb.train import TrainConfig, train
from eagle3_nb.embedded import embedded_verifier

if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompts", type=int, default=300); ap.add_argument("--steps", type=int, default=750)
    ap.add_argument("--work", default=None); a = ap.parse_args()
    vllm_env(); W, V, N, T = Path(a.work or tempfile.mkdtemp()), embedded_verifier(), a.prompts, {}
    W.mkdir(parents=True, exist_ok=True)
    dt = auto_dtype("auto")
    rc, ec = RegenConfig(backend="vllm", dtype=dt, max_new_tokens=192), ExtractConfig(compute_dtype=dt)
    def timed(name, f):
        t0 = time.perf_counter(); r = f(); T[name] = round(time.perf_counter() - t0, 1); print(name, T[name], "s", flush=True)
        return r
    def conv(src, ids): return [r for r in read_jsonl_resumable(W/f"{src}.jsonl") if r["id"] in ids]
    held = {"hand": prompt_records("handwritten", "heldout"), "template": default_prompts("heldout")[:64]}
    for nm, recs in held.items():
        timed(f"regenerate {nm} held-out", lambda: regenerate(recs, V, W/f"{nm}.jsonl", rc))
        timed(f"extract {nm} held-out", lambda: extract(read_jsonl_resumable(W/f"{nm}.jsonl"), V, W/f"hs_{nm}", ec))
    texts = [r["messages"][0]["content"] for r in held["hand"] + default_prompts("heldout")]
    mine = prompt_records(str(timed("write self", lambda: self_prompts(V, N, W/"self_prompts.jsonl", held_out=texts))))
    arms = {"template": default_prompts()[:N], "self": mine[:N]}
    for nm, recs in arms.items():
        timed(f"regenerate {nm}", lambda: regenerate(recs + sampled_copies(recs, 1, 0.7), V, W/f"{nm}.jsonl", rc))
    ids = lambda recs: {x["id"] for r in recs for x in (r, *sampled_copies([r], 1))}
    sets = {"template": conv("template", ids(arms["template"])), "self": conv("self", ids(arms["self"])),
            "mix": conv("template", ids(arms["template"][:N // 2])) + conv("self", ids(arms["self"][:N // 2]))}
    for nm, c in sets.items(): timed(f"extract {nm}", lambda: extract(c, V, W/f"hs_{nm}", ec))
    conf = derive_draft_config(V, draft_vocab_size=8192).config   # the table in 02b was measured with 8,192 draft tokens
    tc = TrainConfig(**PRESETS["demo"]["train"], log_to="none")
    res, step_s = {}, None
    for nm in ("template", "self", "mix"):
        extra = {"template": 0, "self": T["write self"], "mix": T["write self"] / 2}[nm]
        steps = a.steps if step_s is None else a.steps - round(extra / step_s)   # equal time: writing costs steps
        t0 = time.perf_counter()
        r = train(W/f"hs_{nm}", conf, W/f"train_{nm}", replace(tc, epochs=steps * tc.batch_size / len(sets[nm])),
                  progress=False)
        T[f"train {nm}"] = round(time.perf_counter() - t0, 1)
        step_s = step_s or T["train template"] / a.steps
        model = trained_draft(r["draft"])[0].float()
        res[nm] = {"steps": steps, **{f"tau {h}": offline_acceptance(model, W/f"hs_{h}", 3)["mean_acceptance_length"]
                                      for h in held}}
        print(nm, res[nm], flush=True)
    print("\n| prompts | steps | tau, hand-written held-out | tau, template held-out |\n|---|---|---|---|")
    for nm, r in res.items(): print(f"| {nm} | {r['steps']} | {r['tau hand']:.3f} | {r['tau template']:.3f} |")
    print(json.dumps({"seconds": T, "results": res}))
