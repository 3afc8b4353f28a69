"""Any `eagle3` command as an AVX2-only x86 CPU would run it: torch's kernels (ATEN_CPU_CAPABILITY), MKL
(MKL_ENABLE_INSTRUCTIONS) and oneDNN (ONEDNN_MAX_CPU_ISA, so bf16 matmuls are emulated) held to AVX2, and vLLM's AVX2
kernel library (vLLM picks it by the CPU's flags, which it reads through torch.cpu: patched here). The core, its clock and
its memory stay this machine's, so it estimates an AVX2-only CPU of this clock; it is not one.

Usage: python bench/as_avx2.py demo --run-dir runs/demo-avx2   (an `eagle3` subcommand and its flags)
"""
import os, sys

AVX2_ENV = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"}

def as_avx2():
    "This process as an AVX2-only CPU: re-run with the environment set (it must be before torch loads), then patch torch.cpu."
    if any(os.environ.get(k) != v for k, v in AVX2_ENV.items()):
        os.execve(sys.executable, [sys.executable] + sys.argv, {**os.environ, **AVX2_ENV})
    import torch
    for name in ("_is_avx512_supported", "_is_avx512_vnni_supported", "_is_avx512_bf16_supported", "_is_amx_tile_supported"):
        setattr(torch.cpu, name, lambda: False)

if __name__ == "__main__":
    as_avx2()
    import torch
    print(f"kernels held to AVX2: get_cpu_capability() = {torch.backends.cpu.get_cpu_capability()}", flush=True)
    from eagle3_nb.cli import main
    sys.exit(main(sys.argv[1:]))
