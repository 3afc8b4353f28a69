"""Training at scale: one optimiser step of eagle3_nb's own training step (`train.train_step`) at named dims on synthetic
states, per sample length and TTT depth: peak memory over the model and data, tokens/s, model FLOPs per token counted
from the shapes, and their share of this device's peak measured by a matmul of the same dtype (MFU).

Usage: python bench/scale.py --dims demo --tokens 2048,16384 --ttt-steps 3 [--scale 4] [--attention llama|mla]
                             [--device cpu|cuda] [--dtype fp32|bf16] [--steps 2] [--json FILE]
                             [--activation-checkpointing] [--loss-kernel auto|chunked|liger]
                             [--peer-python .venv-peer/bin/python] [--alternate ROUNDS]
Each (tokens, TTT steps) runs in a fresh process, so each peak is its own; `--alternate` times the lengths again in
turn in one process, so that their tokens/s ratio is taken at one machine speed. The figures name the dims, dtype, device and
the CPU's capability; a sample of T tokens is one packed row (the loss scores 95% of it, as an answer after a prompt).
"""
import argparse, json, os, resource, subprocess, sys, tempfile, time
from pathlib import Path
import torch
from eagle3_nb.core import device_sync

# name: (verifier config in the package's fixtures, draft vocabulary, default draft attention)
DIMS = {"demo": ("SmolLM2-135M-Instruct.json", 4096, "llama"),
        "llama-3.1-8b": ("Llama-3.1-8B-Instruct.json", 32000, "llama"),
        "kimi-k2.5": ("Kimi-K2.5.json", 32000, "mla")}
WIDTHS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_key_value_heads", "q_lora_rank", "kv_lora_rank")

def scaled(cfg:dict, n:int)->dict:
    "The verifier config with its widths (hidden, intermediate, heads, MLA ranks) divided by `n`; head sizes kept."
    tc = cfg.get("text_config") or cfg
    tc = {**tc, **{k: tc[k] // n for k in WIDTHS if tc.get(k)}}
    return {**cfg, "text_config": tc} if "text_config" in cfg else tc

def step_flops(config, T:int, K:int, recompute:bool=False)->float:
    """Model FLOPs per token of one training step (forward 2x, backward 4x the matmuls; targets forward only; no
    recompute), or with `recompute` the FLOPs the fused attention kernels do: their backward computes the scores again."""
    from eagle3_nb.model import Eagle3Draft, mla_draft
    H, Vd = config.hidden_size, config.draft_vocab_size
    Ht = getattr(config, "target_hidden_size", None) or H
    with torch.device("meta"): m = Eagle3Draft(config)
    layer = sum(p.numel() for n, p in m.midlayer.named_parameters() if p.dim() == 2)
    h = config.num_attention_heads
    dqk, dv = ((config.qk_nope_head_dim + config.qk_rope_head_dim, config.v_head_dim) if mla_draft(config)
               else (config.head_dim, config.head_dim))
    fc = m.fc.weight.numel()
    prefix = (T + 1) / 2                          # step-0 keys a query attends, on average (and k of its own at step k)
    per_step = lambda k: (6 * layer + 6 * H * Vd + 2 * Ht * Vd + 6 * h * (dqk + dv) * (prefix + k)
                          + 2 * h * dqk * prefix * recompute)
    return 6 * fc + sum(per_step(k) for k in range(K))

def peak_flops(device:str, dtype:torch.dtype)->float:
    "This device's matmul FLOP/s in `dtype`: the best of a few square products."
    n = 8192 if device == "cuda" else 2048
    a, b = torch.randn(n, n, device=device, dtype=dtype), torch.randn(n, n, device=device, dtype=dtype)
    best = 0.0
    for _ in range(5):
        device_sync(device); t = time.perf_counter(); a @ b
        device_sync(device)
        best = max(best, 2 * n ** 3 / (time.perf_counter() - t))
    return best

def rss()->int:
    with open("/proc/self/statm") as f: return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")

def draft_config(a):
    "The draft config the package derives for the dims' verifier (widths divided by `a.scale`) and draft attention."
    from eagle3_nb.reference import fixture, load_config
    from eagle3_nb.derive import derive_draft_config
    name, vocab, kind = DIMS[a.dims]
    return derive_draft_config(scaled(load_config(fixture(f"verifiers/{name}")), a.scale), draft_vocab_size=vocab,
                               draft_attention=a.attention or kind).config

def peer(a, T:int, K:int)->dict:
    "speculators 0.9.0's training step on the same batch and draft config (`bench/scale_peer.py`, its own virtualenv)."
    cfg = Path(tempfile.mkdtemp())/"draft_config.json"
    cfg.write_text(json.dumps(draft_config(a).to_dict()))
    p = subprocess.run([a.peer_python, str(Path(__file__).with_name("scale_peer.py")), str(cfg), str(T), str(K), a.dtype,
                        a.device], capture_output=True, text=True)
    got = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
    return json.loads(got[-1][6:]) if got else {"error": f"exit {p.returncode} (killed: out of memory?)"}

def setup(a, config, T:int)->tuple:
    "(run, batch) of the package's training step (`train.new_run`) on one synthetic sample of `T` tokens."
    from eagle3_nb.model import Eagle3Draft
    from eagle3_nb.train import TrainConfig, new_run
    dev, g = a.device, torch.Generator().manual_seed(0)
    H, V, Vd = config.hidden_size, config.vocab_size, config.draft_vocab_size
    Ht = getattr(config, "target_hidden_size", None) or H
    tc = TrainConfig(ttt_steps=a.ttt_steps, device=dev, precision=a.dtype, log_to="none",
                     activation_checkpointing=a.activation_checkpointing, loss_kernel=a.loss_kernel)
    model = Eagle3Draft(config, embed=(torch.randn(V, H, generator=g) * 0.02).bfloat16()).to(dev)   # frozen, as stored
    head = {"norm.weight": torch.ones(Ht, device=dev), "lm_head.weight": torch.randn(Vd, Ht, generator=g).to(dev) * 0.05}
    mask = torch.ones(1, T, dtype=torch.long); mask[:, : T // 20] = 0           # a prompt, then the answer scored
    batch = {"input_ids": torch.randint(0, V, (1, T), generator=g), "loss_mask": mask,
             "aux": (torch.randn(1, T, 3, Ht, generator=g)).bfloat16(), "last": torch.randn(1, T, Ht, generator=g).bfloat16()}
    batch = {k: v.to(dev) for k, v in batch.items()}
    return new_run(model, config, tc, head, 1e-6, Path(tempfile.mkdtemp()), steps=1000), batch   # `train`'s optimiser

def one(a)->dict:
    "One (dims, tokens, TTT steps) measurement, in this process."
    from eagle3_nb.core import machine
    from eagle3_nb.train import train_step
    config = draft_config(a)
    T, dev, bf16 = a.tokens, a.device, a.dtype == "bf16"
    H, Vd = config.hidden_size, config.draft_vocab_size
    if dev == "cuda": torch.cuda.reset_peak_memory_stats()
    before = rss() if dev == "cpu" else torch.cuda.memory_allocated()
    r, batch = setup(a, config, T)
    base = rss() if dev == "cpu" else torch.cuda.memory_allocated()
    train_step(r, batch); device_sync(dev)                                        # warm-up (kernels, allocator)
    t = time.perf_counter()
    for _ in range(a.steps): train_step(r, batch)
    device_sync(dev)
    secs = (time.perf_counter() - t) / a.steps
    top = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 if dev == "cpu" else torch.cuda.max_memory_allocated()
    peak = top - base
    fpt, pk = step_flops(config, T, a.ttt_steps), peak_flops(dev, torch.bfloat16 if bf16 else torch.float32)
    return {"dims": a.dims, "attention": a.attention or DIMS[a.dims][2], "scale": a.scale, "hidden_size": H,
            "num_attention_heads": config.num_attention_heads, "draft_vocab_size": Vd, "tokens": T,
            "ttt_steps": a.ttt_steps, "dtype": a.dtype, "activation_checkpointing": a.activation_checkpointing,
            "loss_kernel": r.loss_kernel, "later_attention": "explicit" if T <= r.explicit_below else "fused",
            "device": machine(dev), "peak_memory_bytes": int(peak),
            "model_and_data_bytes": int(base - before), "tokens_per_s": T / secs, "seconds_per_step": secs,
            "flops_per_token": fpt, "peak_flops": pk, "mfu": fpt * T / secs / pk, "loss": r.hist[-1]["loss"]}

def alternate(a, lengths:list, rounds:int)->dict:
    """Seconds per step of each length, timed in turn in this one process, `rounds` times, the median of each: the
    lengths share the machine's speed, which on a shared machine drifts between processes by tens of percent."""
    import statistics
    from eagle3_nb.train import train_step
    config = draft_config(a)
    runs = {T: setup(a, config, T) for T in lengths}
    for r, batch in runs.values(): train_step(r, batch)                              # warm-up
    secs = {T: [] for T in lengths}
    for _ in range(rounds):
        for T, (r, batch) in runs.items():
            device_sync(a.device); t = time.perf_counter(); train_step(r, batch); device_sync(a.device)
            secs[T].append(time.perf_counter() - t)
    return {T: statistics.median(s) for T, s in secs.items()}

def row(x:dict)->str:
    "One result as a markdown table row."
    lead = f"| {x['dims']} /{x.get('scale', 1)} | {x.get('attention')} | {x['tokens']:,} | {x['ttt_steps']} |"
    if "error" in x: return f"{lead} {x['error']} |"
    kind = (x["dtype"] + (" ckpt" if x.get("activation_checkpointing") else "")
            + (" liger" if x.get("loss_kernel") == "liger" else "")
            + (" explicit" if x.get("later_attention") == "explicit" else ""))   # steps k >= 1 without the fused kernel
    sp = x.get("speculators")
    spec = ("" if sp is None else f" {sp['error']} |" if "error" in sp else
            f" {sp['peak_memory_bytes'] / 2**20:,.0f} MiB, {sp['tokens_per_s']:,.0f} tok/s |")
    return (f"{lead} {kind} | {x['peak_memory_bytes'] / 2**20:,.0f} MiB | {x['tokens_per_s']:,.0f} | "
            f"{x['flops_per_token'] / 1e9:.2f} | {x['mfu']:.1%} |{spec}")

def table(rows:list)->str:
    head = "| dims / scale | attention | tokens | TTT | dtype | peak memory | tokens/s | GFLOP/token | MFU |"
    n = 9 + any("speculators" in x for x in rows)
    head += " speculators 0.9.0 (same step) |" if n > 9 else ""
    return "\n".join([head, "|---" * n + "|"] + [row(x) for x in rows])

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", choices=list(DIMS), default="demo")
    ap.add_argument("--scale", type=int, default=1, help="divide the widths by N (a CPU at Kimi-K2.5's dims: 4)")
    ap.add_argument("--attention", choices=["llama", "mla"], default=None, help="the draft's attention; default: the dims'")
    ap.add_argument("--tokens", default="2048,8192", help="sample lengths, comma-separated")
    ap.add_argument("--ttt-steps", default="3", help="TTT depths, comma-separated")
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    ap.add_argument("--dtype", choices=["fp32", "bf16"], default=None, help="default: bf16 on a GPU, fp32 on a CPU")
    ap.add_argument("--activation-checkpointing", action="store_true", help="the draft layer recomputed in backward")
    ap.add_argument("--loss-kernel", choices=["auto", "chunked", "liger"], default="auto",
                    help="the loss's kernel (auto: on CUDA with liger-kernel, the faster of the two)")
    ap.add_argument("--steps", type=int, default=2, help="timed steps after one warm-up step")
    ap.add_argument("--json", default=None, help="write the list of results here")
    ap.add_argument("--peer-python", default=None, help="speculators' virtualenv's python: its step beside (Llama drafts)")
    ap.add_argument("--alternate", type=int, default=0, metavar="ROUNDS",
                    help="also time the lengths in turn in one process, ROUNDS steps each (median): their tokens/s "
                         "ratio under one machine speed (the peaks still come from a process per length)")
    ap.add_argument("--one", type=int, nargs=2, default=None, help=argparse.SUPPRESS)   # (tokens, ttt): this process
    ap.add_argument("--alternate-one", type=int, default=None, help=argparse.SUPPRESS)  # (ttt): this process
    a = ap.parse_args()
    a.dtype = a.dtype or ("bf16" if a.device == "cuda" else "fp32")
    if a.one:
        a.tokens, a.ttt_steps = a.one
        print("RESULT" + json.dumps(one(a)), flush=True)
        sys.exit(0)
    if a.alternate_one:
        a.ttt_steps = a.alternate_one
        print("RESULT" + json.dumps(alternate(a, list(map(int, a.tokens.split(","))), a.alternate)), flush=True)
        sys.exit(0)
    def child(*extra)->tuple:
        "This script in a fresh process with the shared options and `extra`: (its RESULT, None) or (None, its error)."
        argv = [sys.executable, __file__, "--dims", a.dims, "--scale", str(a.scale), "--device", a.device,
                "--dtype", a.dtype, "--steps", str(a.steps), "--loss-kernel", a.loss_kernel, *extra]
        argv += ["--attention", a.attention] if a.attention else []
        argv += ["--activation-checkpointing"] if a.activation_checkpointing else []
        p = subprocess.run(argv, capture_output=True, text=True)
        got = [l for l in p.stdout.splitlines() if l.startswith("RESULT")]
        return (json.loads(got[-1][6:]), None) if got else (None, (p.stderr.strip().splitlines() or
                                                                   [f"exit {p.returncode}"])[-1][:160])
    rows, notes = [], []
    for K in map(int, a.ttt_steps.split(",")):
        for T in map(int, a.tokens.split(",")):
            got, err = child("--one", str(T), str(K))
            rows.append(got or {"dims": a.dims, "attention": a.attention, "tokens": T, "ttt_steps": K, "error": err})
            if a.peer_python and (a.attention or DIMS[a.dims][2]) == "llama":   # speculators 0.9.0 has no MLA draft
                rows[-1]["speculators"] = peer(a, T, K)
            print(row(rows[-1]), flush=True)
        if a.alternate:
            secs, err = child("--tokens", a.tokens, "--alternate", str(a.alternate), "--alternate-one", str(K))
            tps = {int(T): int(T) / s for T, s in (secs or {}).items()}
            for x in rows[-len(tps):] if tps else []: x["tokens_per_s_alternating"] = tps[x["tokens"]]
            said, lens = err or "; ".join(f"{T:,} tokens {v:,.0f} tokens/s" for T, v in tps.items()), list(tps)
            if len(lens) > 1:   # the ratio the FLOPs allow: the same FLOP rate at both lengths
                cfg = draft_config(a)
                bound = lambda rc: step_flops(cfg, lens[0], K, rc) / step_flops(cfg, lens[-1], K, rc)
                said += (f"; {lens[-1]:,} / {lens[0]:,}: {tps[lens[-1]] / tps[lens[0]]:.2f}x (at one FLOP rate: "
                         f"{bound(False):.2f}x by model FLOPs, {bound(True):.2f}x by the kernels' with the scores recomputed)")
            notes.append(f"TTT {K}, the lengths in turn in one process ({a.alternate} rounds, median): {said}")
            print(notes[-1], flush=True)
    print(f"\n{rows[0].get('device', a.device)}\n\n{table(rows)}" + "".join(f"\n\n{n}" for n in notes))
    if a.json: Path(a.json).write_text(json.dumps(rows, indent=1))
