"""Speculative decoding is lossless: greedy text of a verifier with and without its EAGLE-3 draft, and with the draft
decoded in one batch and one prompt at a time, on held-out prompts.

Prints one JSON line: how many answers are identical in each comparison, the acceptance, and the first differing token
of each prompt that differs.

Usage: python bench/greedy_identity.py VERIFIER_DIR DRAFT_DIR [DTYPE] [N_PROMPTS] [MAX_TOKENS]
"""
import json, sys
from vllm import SamplingParams
from eagle3_nb.engine import EngineConfig, vllm_engine
from eagle3_nb.evaluate import first_difference, spec_metrics
from eagle3_nb.prompts import prompt_records

verifier, draft = sys.argv[1], sys.argv[2]
dtype = sys.argv[3] if len(sys.argv) > 3 else "float32"
n, T = (int(sys.argv[4]) if len(sys.argv) > 4 else 16), (int(sys.argv[5]) if len(sys.argv) > 5 else 96)
chats = [r["messages"] for r in prompt_records("default", "heldout", n)]
greedy = SamplingParams(temperature=0, max_tokens=T)

llm = vllm_engine(verifier, dtype, EngineConfig(max_model_len=1024))
plain = [list(o.outputs[0].token_ids) for o in llm.chat(chats, greedy, use_tqdm=False)]
del llm
llm = vllm_engine(verifier, dtype, EngineConfig(max_model_len=1024), draft=draft, k=3)
batched = [list(o.outputs[0].token_ids) for o in llm.chat(chats, greedy, use_tqdm=False)]
tau = spec_metrics(llm.get_metrics())["mean_acceptance_length"]
alone = [list(llm.chat([c], greedy, use_tqdm=False)[0].outputs[0].token_ids) for c in chats]
with_vs_without = [first_difference(a, b) for a, b in zip(batched, plain)]
batched_vs_alone = [first_difference(a, b) for a, b in zip(batched, alone)]
print(json.dumps({"verifier": verifier.rstrip("/").split("/")[-1], "draft": draft, "dtype": dtype, "prompts": n,
                  "tau_batched": tau, "with_vs_without_identical": sum(d is None for d in with_vs_without),
                  "batched_vs_alone_identical": sum(d is None for d in batched_vs_alone),
                  "first_difference_with_vs_without": with_vs_without, "first_difference_batched_vs_alone": batched_vs_alone}))
