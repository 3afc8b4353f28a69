"""Kimi-K2.5's own wrapper (`KimiK25ForConditionalGeneration`: a DeepSeek-V3 text model in `text_config` beside a vision
tower) served by vLLM on a CPU in float32, with and without an EAGLE-3 draft trained on its text model.

The wrapper is built around `mla_writer()` (the text model's weights are the writer's, so a draft trained on the writer
is a draft for the wrapper), with a 1-layer vision tower that text prompts never reach. Three things stand between
vLLM 0.32 and this wrapper on a CPU, each handled here and nowhere in the package:
1. vLLM builds Kimi-K2.5's image processor even for text (its config asks the processor whether the model is
   multimodal): the checkpoint carries a `preprocessor_config.json` (`media_proc_cfg`, as Kimi-K2.5 ships one), and
   vLLM's own `language_model_only=True` keeps the vision tower out of the engine;
2. that processor imports numba, and vLLM's CPU platform then scans every loaded module for Triton kernels to replace,
   reading `vars(obj).get(...)` of every object: a numba wrapper's `__dict__` is no dict, and the scan raises
   `AttributeError: '_lib_fn_wrapper' object has no attribute 'get'` (vllm/triton_utils/dispatcher.py); the bench
   hands that scan a `vars` that answers {} for such objects;
3. transformers 5.19's `Kimi_K25ForConditionalGeneration.save_pretrained` writes the text model's layers as
   `language_model.model.blocks.N`, which vLLM does not read: the weights are written here as vLLM reads them
   (`language_model.model.layers.N`, `language_model.lm_head`).

Usage: python bench/kimi_k25_wrapper.py OUT_DIR DRAFT_DIR [N_PROMPTS] [MAX_TOKENS]
Prints one JSON line: greedy answers identical with vs without the draft, the acceptance, the first answer.
"""
import builtins, json, shutil, sys
from pathlib import Path
from safetensors.torch import load_file, save_file

MEDIA = {"patch_size": 14, "merge_kernel_size": 2, "in_patch_limit": 16384, "patch_limit_on_one_side": 512,
         "fixed_output_tokens": None, "temporal_merge_kernel_size": 4, "in_patch_limit_each_frame": 4096,
         "in_patch_limit_video": 40000, "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5]}


def build(out: Path, text: Path):
    "The wrapper's config (transformers' own Kimi_K25Config), the text model's weights as vLLM reads them, its tokenizer."
    from transformers import AutoConfig
    from transformers.models.kimi_k25 import Kimi_K25Config
    tiny_tower = dict(num_hidden_layers=1, hidden_size=64, num_attention_heads=2, intermediate_size=128, mm_hidden_size=64)
    cfg = Kimi_K25Config(text_config=AutoConfig.from_pretrained(text).to_dict(), vision_config=tiny_tower).to_dict()
    out.mkdir(parents=True, exist_ok=True)
    cfg |= {"architectures": ["KimiK25ForConditionalGeneration"],   # vLLM's name, and a field Kimi-K2.5's own config has
            "media_placeholder_token_id": cfg["image_token_id"]}     # (vLLM's EAGLE-3 proposer reads it)
    (out/"config.json").write_text(json.dumps(cfg, indent=1))
    (out/"preprocessor_config.json").write_text(json.dumps({"media_proc_cfg": MEDIA}))
    weights = {}
    for f in sorted(text.glob("*.safetensors")): weights.update(load_file(f))
    save_file({f"language_model.{k}": v for k, v in weights.items()}, str(out/"model.safetensors"), metadata={"format": "pt"})
    for f in ("tokenizer.json", "tokenizer_config.json", "chat_template.jinja", "generation_config.json"):
        shutil.copy(text/f, out/f)


def tolerate_foreign_dicts():
    "vLLM's CPU Triton-kernel scan, handed a `vars` that reads {} where an object's __dict__ is no dict (item 2 above)."
    import vllm.triton_utils.dispatcher as scan
    def _vars(obj):
        d = builtins.vars(obj)
        return d if isinstance(d, dict) else {}
    scan.vars = _vars


if __name__ == "__main__":
    from vllm import SamplingParams
    from eagle3_nb.testing.distill import mla_writer
    from eagle3_nb.engine import EngineConfig, vllm_engine
    from eagle3_nb.evaluate import spec_metrics
    from eagle3_nb.prompts import prompt_records
    out, draft = Path(sys.argv[1]), sys.argv[2]
    n, T = (int(sys.argv[3]) if len(sys.argv) > 3 else 16), (int(sys.argv[4]) if len(sys.argv) > 4 else 96)
    if not (out/"model.safetensors").exists(): build(out, mla_writer())
    tolerate_foreign_dicts()
    chats, greedy = [r["messages"] for r in prompt_records("default", "heldout", n)], SamplingParams(temperature=0, max_tokens=T)
    engine, extra = EngineConfig(max_model_len=1024), {"language_model_only": True}
    llm = vllm_engine(out, "float32", engine, extra=extra)
    plain = llm.chat(chats, greedy, use_tqdm=False); del llm
    llm = vllm_engine(out, "float32", engine, extra=extra, draft=draft, k=3)
    spec = llm.chat(chats, greedy, use_tqdm=False)
    same = sum(a.outputs[0].token_ids == b.outputs[0].token_ids for a, b in zip(plain, spec))
    print(json.dumps({"wrapper": "KimiK25ForConditionalGeneration", "draft": draft, "dtype": "float32", "prompts": n,
                      "with_vs_without_identical": same, "tau": spec_metrics(llm.get_metrics())["mean_acceptance_length"],
                      "first_answer": plain[0].outputs[0].text[:200]}))
