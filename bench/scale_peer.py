"""speculators 0.9.0's EAGLE-3 training step beside `bench/scale.py`: its own `Eagle3DraftModel.forward` (loss
included) and the step its trainer takes (backward, clipping at 1.0, AdamW), on the batch `scale.py` builds (one packed
row of T tokens, the first 5% unscored), at the same draft config. Runs in speculators' own virtualenv (`make
bench-scale-peer`); the package never imports speculators.

What speculators does differently, by its design (not changed here): its lm_head is frozen (copied from the verifier),
it scores every position of every step (eagle3_nb: only the rows a step can score), and its attention is a dense
(T, (K+1) T) mask through SDPA on a CPU (`--draft-attn-impl sdpa`; FlexAttention's backward does not run on a CPU),
FlexAttention with a block mask on a GPU. Its fused loss is a Triton kernel (CUDA); on a CPU the eager one runs.

Usage (one measurement, in this process): python bench/scale_peer.py CONFIG.json TOKENS TTT fp32|bf16 cpu|cuda
prints RESULT{...}: tokens_per_s, peak_memory_bytes (over the model and data, as scale.py measures it), or error.
"""
import json, os, resource, sys, time
from importlib.metadata import version
import torch

def rss()->int:
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def main(path:str, T:int, K:int, dtype:str, dev:str)->dict:
    from transformers import LlamaConfig
    from speculators.config import SpeculatorsConfig, VerifierConfig
    from speculators.losses.utils import resolve_loss_config
    from speculators.models.eagle3.config import Eagle3SpeculatorConfig
    from speculators.models.eagle3.core import Eagle3DraftModel
    from speculators.proposals.greedy import GreedyTokenProposalConfig
    d = json.loads(open(path).read())
    layer = LlamaConfig(num_hidden_layers=1, **{k: d[k] for k in ("hidden_size", "intermediate_size", "num_attention_heads", "head_dim",
                                             "num_key_value_heads", "vocab_size", "rms_norm_eps", "rope_parameters",
                                             "max_position_embeddings", "hidden_act") if k in d})
    layer._attn_implementation = "sdpa" if dev == "cpu" else "simple_flex_attention"
    Vd, H, V = d["draft_vocab_size"], layer.hidden_size, layer.vocab_size
    cfg = Eagle3SpeculatorConfig(
        transformer_layer_config=layer, draft_vocab_size=Vd, norm_before_residual=False,
        eagle_aux_hidden_state_layer_ids=[0, 1, 2],
        speculators_config=SpeculatorsConfig(algorithm="eagle3", default_proposal_method="greedy",
                                             proposal_methods=[GreedyTokenProposalConfig(speculative_tokens=K)],
                                             verifier=VerifierConfig(name_or_path=None, architectures=[])))
    g = torch.Generator().manual_seed(0)
    before = rss() if dev == "cpu" else torch.cuda.memory_allocated()
    model = Eagle3DraftModel(cfg)
    t2d = torch.zeros(V, dtype=torch.bool); t2d[:Vd] = True
    model.load_vocab_mappings(t2d, torch.zeros(Vd, dtype=torch.long))
    with torch.no_grad():   # speculators copies these from the verifier; random here, as scale.py's
        for w in (model.embed_tokens.weight, model.lm_head.weight, model.verifier_lm_head.weight):
            w.copy_(torch.randn(w.shape, generator=g) * 0.02)
    model.to(dev)
    mask = torch.ones(1, T, dtype=torch.bool); mask[:, : T // 20] = False
    batch = {"hidden_states": torch.randn(1, T, 3 * H, generator=g).bfloat16(), "input_ids": torch.randint(0, V, (1, T), generator=g),
             "document_ids": torch.zeros(1, T, dtype=torch.long), "loss_mask": mask, "position_ids": torch.arange(T)[None],
             "verifier_last_hidden_states": torch.randn(1, T, H, generator=g).bfloat16()}
    batch = {k: v.to(dev) for k, v in batch.items()}
    if dtype == "fp32": batch = {k: v.float() if v.is_floating_point() else v for k, v in batch.items()}
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=1e-4)
    kw = dict(ttt_steps=K, ttt_step_loss_decay=1.0, loss_config=resolve_loss_config("kl_div", "eager"))
    sync = torch.cuda.synchronize if dev == "cuda" else (lambda: None)
    def step():
        with torch.autocast(dev, dtype=torch.bfloat16, enabled=dtype == "bf16"):
            _, loss, _ = model(**batch, **kw)
        opt.zero_grad(); loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return float(loss.detach())
    if dev == "cuda": torch.cuda.reset_peak_memory_stats()
    base = rss() if dev == "cpu" else torch.cuda.memory_allocated()
    step(); sync()                                                   # warm-up
    t = time.perf_counter(); loss = step(); sync(); secs = time.perf_counter() - t
    top = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 if dev == "cpu" else torch.cuda.max_memory_allocated()
    return {"tokens": T, "ttt_steps": K, "dtype": dtype, "tokens_per_s": T / secs, "seconds_per_step": secs,
            "peak_memory_bytes": int(top - base), "model_and_data_bytes": int(base - before), "loss": loss,
            "speculators": version("speculators"), "attention": layer._attn_implementation}

if __name__ == "__main__":
    path, T, K, dtype, dev = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5]
    try: out = main(path, T, K, dtype, dev)
    except Exception as e: out = {"tokens": T, "ttt_steps": K, "error": f"{type(e).__name__}: {str(e)[:200]}"}
    print("RESULT" + json.dumps(out), flush=True)
