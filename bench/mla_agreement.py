"""vLLM against transformers on one verifier: the log-probability each gives every prompt token of 6 held-out prompts.

Prints one JSON line: the mean and largest |difference| against transformers in float32, the same for transformers in
bf16 (the rounding a bf16 engine may show), and whether the first answer token agrees.

Usage: python bench/mla_agreement.py VERIFIER_DIR DTYPE [BACKEND] [VLLM_ARGS_JSON]
  BACKEND: a vLLM attention backend to force (CPU_MLA serves an MLA verifier in float32 on any CPU);
  VLLM_ARGS_JSON: more vllm.LLM arguments, e.g. '{"compilation_config": {"custom_ops": ["+rotary_embedding"]}}' to
  serve an MLA verifier with vLLM's CPU rotary kernel although `cpu_rope_agrees` found it wrong.
"""
import json, statistics, sys
from pathlib import Path
import torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from eagle3_nb.engine import EngineConfig, vllm_engine
from eagle3_nb.prompts import default_prompts

def main(path:str, dtype:str, backend:str|None=None, args:str|None=None):
    from vllm import SamplingParams, TokensPrompt
    tok = AutoTokenizer.from_pretrained(path)
    ids = [tok.apply_chat_template(r["messages"], add_generation_prompt=True, tokenize=True, return_dict=True)["input_ids"]
           for r in default_prompts("heldout")[:6]]
    extra = ({"attention_config": {"backend": backend}} if backend else {}) | json.loads(args or "{}")
    llm = vllm_engine(path, dtype, EngineConfig(max_model_len=512), extra=extra or None)
    outs = llm.generate([TokensPrompt(prompt_token_ids=i) for i in ids],
                        SamplingParams(max_tokens=1, prompt_logprobs=1, temperature=0), use_tqdm=False)
    hf = {dt: AutoModelForCausalLM.from_pretrained(path, dtype=dt).eval() for dt in (torch.float32, torch.bfloat16)}
    d32, dbf, first = [], [], 0
    for i, o in zip(ids, outs):
        with torch.no_grad():
            lp = {dt: torch.log_softmax(m(torch.tensor([i])).logits[0].float(), -1) for dt, m in hf.items()}
        for t in range(1, len(i)):
            ref = lp[torch.float32][t - 1, i[t]].item()
            d32.append(abs(o.prompt_logprobs[t][i[t]].logprob - ref)); dbf.append(abs(lp[torch.bfloat16][t - 1, i[t]].item() - ref))
        first += o.outputs[0].token_ids[0] == lp[torch.float32][-1].argmax().item()
    print(json.dumps(dict(verifier=Path(path).name, dtype=dtype, backend=backend, args=args, tokens=len(d32),
                          vllm_vs_hf32_mean=statistics.mean(d32), vllm_vs_hf32_max=max(d32),
                          hf_bf16_vs_hf32_mean=statistics.mean(dbf), first_token_same=f"{first}/{len(ids)}")))

if __name__ == "__main__": main(*sys.argv[1:])
