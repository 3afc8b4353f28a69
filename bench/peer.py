"""eagle3_nb and speculators 0.9.0 head to head: the same answers, the same hidden states, the same draft size,
vocabulary, aux layers, training-time-test steps and number of optimiser steps; both drafts served by vLLM on the same
held-out prompts (the project's own held-out split and the 48 hand-written prompts).

1. `eagle3 run` with the demo's settings (answers, hidden states, eagle3_nb's draft) into RUN/eagle3;
2. its hidden states converted to speculators' format (`peer_data.py`, checked tensor for tensor by speculators' own
   dataset class) and the draft vocabulary eagle3_nb trained with (its d2t/t2d);
3. `speculators train` (`peer_train.py`, in speculators' virtualenv) for as many optimiser steps, each packing as many
   tokens as one of eagle3_nb's batches holds on average, with eagle3_nb's learning rate;
4. both drafts in vLLM (float32, k=3, greedy), one engine per draft and prompt set.

Prints a table and writes RUN/result.json. `make bench-peer` builds speculators' virtualenv (.venv-peer) and runs this.
Usage: python bench/peer.py [--run-dir runs/peer] [--prompts 600] [--eval-prompts 64] [--peer-python .venv-peer/bin/python]
"""
import argparse, json, subprocess, sys, time
from pathlib import Path
from eagle3_nb.core import read_json, write_json
from eagle3_nb.embedded import embedded_verifier
from eagle3_nb.evaluate import vllm_generate
from eagle3_nb.pipeline import run, run_config
from eagle3_nb.prompts import prompt_records
from eagle3_nb.shards import HiddenStates

HERE = Path(__file__).resolve().parent


def peer(python: str, script: str, *args, log: Path | None = None) -> str:
    "Run one of the bench's speculators scripts in speculators' virtualenv; its stdout (stderr to `log`)."
    with open(log or "/dev/null", "w") as err:
        p = subprocess.run([python, str(HERE/script), *map(str, args)], stdout=subprocess.PIPE, stderr=err, text=True)
    if p.returncode: sys.exit(f"{script} failed (exit {p.returncode}); its log: {log}")
    return p.stdout


def newest_checkpoint(save: Path) -> Path:
    "speculators' last saved checkpoint (numbered directories holding config.json)."
    done = sorted((d for d in save.iterdir() if d.name.isdigit() and (d/"config.json").exists()), key=lambda d: int(d.name))
    if not done: sys.exit(f"speculators saved no checkpoint in {save}")
    return done[-1]


def acceptance(verifier: Path, draft: Path, prompts: list, max_tokens: int) -> dict:
    m = vllm_generate(verifier, prompts, draft=draft, k=3, max_tokens=max_tokens, dtype="float32")
    return {"mean_acceptance_length": m["mean_acceptance_length"], "per_position": m["per_position"]}


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run-dir", default="runs/peer"); ap.add_argument("--prompts", type=int, default=600)
    ap.add_argument("--eval-prompts", type=int, default=64); ap.add_argument("--peer-python", default=".venv-peer/bin/python")
    a = ap.parse_args()
    root, verifier = Path(a.run_dir), embedded_verifier()
    cfg = run_config("demo", prompts=a.prompts, eval_prompts=a.eval_prompts)
    run(cfg, root/"eagle3")                                                   # 1. data and eagle3_nb's draft
    hs, draft = root/"eagle3"/"hidden_states", root/"eagle3"/"train"/"draft"
    hist = json.loads((root/"eagle3"/"train"/"history.json").read_text())   # a row per step, with its wall seconds
    if "seconds" not in hist[-1]: sys.exit(f"{root}/eagle3/train predates timed history rows: remove it and run again")
    steps, batch, our_secs = len(hist), cfg.train.batch_size, hist[-1]["seconds"]
    ds = HiddenStates(hs); lens = ds.lengths()
    tokens_per_step = round(batch * sum(lens) / len(lens))
    data, save = root/"speculators"/"data", root/"speculators"/"train"
    check = json.loads(peer(a.peer_python, "peer_data.py", hs, draft, data, log=root/"peer_data.log"))   # 2.
    print(f"converted: {check['samples']} samples, {check['tokens']} tokens, largest difference read back by "
          f"speculators: {check['max_abs_difference']}", flush=True)
    assert check["max_abs_difference"] == 0.0, check
    aux = ds.manifest["aux_layer_ids"]
    t0 = time.perf_counter()                                                   # 3.
    if not (save/"done.json").exists():
        peer(a.peer_python, "peer_train.py", "--speculator-type", "eagle3", "--verifier-name-or-path", verifier,
             "--data-path", data, "--save-path", save, "--d2t-path", data/"d2t.npy", "--t2d-path", data/"t2d.npy",
             "--num-layers", 1, "--target-layer-ids", *aux, "--ttt-steps", cfg.train.ttt_steps, "--lr", cfg.train.lr,
             "--max-steps", steps, "--epochs", 1000, "--total-seq-len", tokens_per_step,
             "--train-data-ratio", 0.99,   # speculators always holds some samples out for validation: 1% here
             "--draft-attn-impl", "sdpa", "--loss-implementation", "eager", "--on-missing", "raise",
             "--num-workers", 1, "--log-freq", 20, "--seed", cfg.train.seed, log=root/"peer_train.log")
        write_json(save/"done.json", {"seconds": time.perf_counter() - t0})
    peer_secs, peer_draft = read_json(save/"done.json")["seconds"], newest_checkpoint(save)
    sets = {"held-out": [r["messages"][0]["content"] for r in prompt_records("default", "heldout", a.eval_prompts)],
            "hand-written": [r["messages"][0]["content"] for r in prompt_records("handwritten", "heldout")]}
    res = {"steps": steps, "tokens_per_step": tokens_per_step, "aux_layer_ids": aux, "ttt_steps": cfg.train.ttt_steps,
           "draft_vocab_size": cfg.draft_vocab_size, "conversion": check,
           "train_seconds": {"eagle3_nb": our_secs, "speculators": peer_secs}, "acceptance": {}}
    for name, prompts in sets.items():                                         # 4.
        res["acceptance"][name] = {who: acceptance(verifier, d, prompts, cfg.eval_max_tokens or cfg.max_new_tokens)
                                   for who, d in (("eagle3_nb", draft), ("speculators", peer_draft))}
    write_json(root/"result.json", res)
    print(f"\n{steps} optimiser steps of ~{tokens_per_step} tokens each; training seconds: eagle3_nb {our_secs:.0f} "
          f"({our_secs / steps:.2f} s/step), speculators {peer_secs:.0f} ({peer_secs / steps:.2f} s/step, with its start-up)")
    print("| prompts | trainer | tau | per position | tau - 1 ratio (eagle3_nb / speculators) |\n|---|---|---|---|---|")
    for name, r in res["acceptance"].items():
        e, p = (r[w]["mean_acceptance_length"] for w in ("eagle3_nb", "speculators"))
        for who in ("eagle3_nb", "speculators"):
            x = r[who]
            print(f"| {name} ({len(sets[name])}) | {who} | {x['mean_acceptance_length']:.3f} | "
                  f"{' / '.join(f'{v:.2f}' for v in x['per_position'])} | {(e - 1) / max(p - 1, 1e-9):.2f} |")
