"""How many prompts one vLLM `chat` call should take during regeneration: the same prompts in chunks of different sizes,
one engine, output tokens/s. A chunk is also the unit of resume (answers are written when its call returns).

Usage: python bench/regen_chunk.py [--prompts 512] [--chunks 128,512,256] [--dtype bfloat16] [--max-new-tokens 192]
"""
import argparse, time
from eagle3_nb.engine import auto_dtype, vllm_engine
from eagle3_nb.prompts import default_prompts
from eagle3_nb.regeneration import RegenConfig, first_turn, sampling_params
from eagle3_nb.embedded import embedded_verifier

p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
p.add_argument("--prompts", type=int, default=512)
p.add_argument("--chunks", default="128,512,256", help="comma-separated chunk sizes, run in this order")
p.add_argument("--dtype", default="auto", help="bfloat16, float32 or auto (bfloat16 where it is fast here)")
p.add_argument("--max-new-tokens", type=int, default=192)
a = p.parse_args()
recs, dtype = default_prompts("train")[:a.prompts], auto_dtype(a.dtype)
cfg = RegenConfig(backend="vllm", dtype=dtype, max_new_tokens=a.max_new_tokens)
t = time.perf_counter(); llm = vllm_engine(embedded_verifier(), dtype)
print(f"engine start {time.perf_counter() - t:.1f} s ({dtype})")
for c in (int(x) for x in a.chunks.split(",")):
    t, toks = time.perf_counter(), 0
    for i in range(0, len(recs), c):
        b = recs[i:i + c]
        outs = llm.chat([first_turn(r["messages"]) for r in b], sampling_params(b, cfg), use_tqdm=False)
        toks += sum(len(o.outputs[0].token_ids) for o in outs)
    dt = time.perf_counter() - t
    print(f"chunk {c:4d}: {dt:6.1f} s, {toks} output tokens, {toks / dt:.0f} tokens/s", flush=True)
