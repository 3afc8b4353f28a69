"""vLLM's CPU attention in 16-token KV blocks (declared by eagle3_nb's vLLM plugin) against its default blocks, with an
EAGLE-3 draft: the same greedy tokens, log-probabilities and acceptance?

Prints one JSON line per block size and one with the comparison.

Usage: python bench/block16.py VERIFIER_DIR DRAFT_DIR [DTYPE] [N_PROMPTS]
"""
import json, sys
from vllm import SamplingParams
from eagle3_nb.engine import EngineConfig, vllm_engine
from eagle3_nb.evaluate import spec_metrics
from eagle3_nb.prompts import default_prompts

verifier, draft = sys.argv[1], sys.argv[2]
dtype, n = (sys.argv[3] if len(sys.argv) > 3 else "float32"), int(sys.argv[4]) if len(sys.argv) > 4 else 16
chats = [r["messages"] for r in default_prompts("heldout")[:n]]
greedy = SamplingParams(temperature=0, max_tokens=96, logprobs=1)
runs = {}
for block in (16, None):   # None: vLLM's own choice (128 on a CPU)
    llm = vllm_engine(verifier, dtype, EngineConfig(max_model_len=1024), draft=draft, k=3,
                      extra={"block_size": block} if block else None)
    outs = llm.chat(chats, greedy, use_tqdm=False)
    runs[block] = {"ids": [list(o.outputs[0].token_ids) for o in outs],
                   "lp": [[next(iter(d.values())).logprob for d in o.outputs[0].logprobs[:8]] for o in outs],
                   "tau": spec_metrics(llm.get_metrics())["mean_acceptance_length"]}
    print(json.dumps({"block_size": block or "default", "tau": runs[block]["tau"]}), flush=True)
    del llm
a, b = runs[16], runs[None]
same = sum(x == y for x, y in zip(a["ids"], b["ids"]))
dlp = max(abs(x - y) for p, q in zip(a["lp"], b["lp"]) for x, y in zip(p, q))
print(json.dumps({"verifier": verifier.rstrip("/").split("/")[-1], "dtype": dtype, "prompts": n, "identical": same,
                  "tau_16": a["tau"], "tau_default": b["tau"], "max_first8_logprob_diff": dlp}))
