"""Greedy text of one vLLM engine for 16 held-out prompts, decoded in one batch and one at a time.

Prints one JSON line: how many answers are identical and, for each prompt, the first token where they differ.

Usage: python bench/batch_invariance.py VERIFIER_DIR DTYPE [VLLM_ARGS_JSON]
  e.g. '{"attention_config": {"backend": "CPU_MLA"}}' to serve an MLA verifier in float32 on vLLM's reference kernel.
"""
import sys, json
from vllm import SamplingParams
from eagle3_nb.engine import vllm_engine, EngineConfig
from eagle3_nb.evaluate import first_difference
from eagle3_nb.prompts import default_prompts
w, dt = sys.argv[1], sys.argv[2]
extra = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
llm = vllm_engine(w, dt, EngineConfig(max_model_len=1024), extra=extra)
greedy = SamplingParams(temperature=0, max_tokens=64)
chats = [r["messages"] for r in default_prompts("heldout")[:16]]
batched = [list(o.outputs[0].token_ids) for o in llm.chat(chats, greedy, use_tqdm=False)]
alone = [list(llm.chat([c], greedy, use_tqdm=False)[0].outputs[0].token_ids) for c in chats]
first = [first_difference(x, y) for x, y in zip(batched, alone)]
print(json.dumps({"verifier": w.split("/")[-1], "dtype": dt, "extra": extra, "identical": sum(f is None for f in first), "first_difference": first}))
