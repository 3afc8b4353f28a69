"""The verifier sharded as Kimi-K2.5 is served, on a CPU: the embedded SmolLM2 (9 heads over 3 KV heads) at tensor
parallelism 3 against 1 through `eagle3 regenerate` with its states captured, with no environment variable set by the
user; a size that does not divide the heads refused before any engine starts; one rank's process killed mid-run, then
the same command again. The sharded runs take minutes of CPU: `make test-slow`."""
import json, os, signal, subprocess, sys, time
from pathlib import Path
import pytest, torch

EXE = str(Path(sys.executable).parent/"eagle3")
ENV = {k: v for k, v in os.environ.items() if k != "VLLM_CPU_OMP_THREADS_BIND"}   # the package chooses the binding

def regenerate(out:Path, tp:int, limit:int=4, tokens:int=32, **kw)->subprocess.Popen:
    "`eagle3 regenerate` of the first held-out prompts with their states, at tensor parallelism `tp`, in its own group."
    cmd = [EXE, "regenerate", "--backend", "vllm", "--dtype", "float32", "--prompts", "default", "--split", "heldout",
           "--limit", str(limit), "--max-new-tokens", str(tokens), "--out", str(out/"conv.jsonl"),
           "--states-out", str(out/"hs"), "--tensor-parallel-size", str(tp), "--extract.shard-size", "2",
           "--extract.dtype", "float32"]   # states stored as computed: the comparison sees the sums, not bf16 storage
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV,
                            start_new_session=True, **kw)

def test_a_size_that_does_not_divide_the_heads_is_one_line_before_any_engine(tmp_path):
    t = time.perf_counter()
    p = regenerate(tmp_path, 2)
    out = p.communicate()[0]
    assert p.returncode == 2, out[-2000:]
    assert out.strip().splitlines()[-1] == ("eagle3: error: tensor_parallel_size 2: vLLM shards the verifier's 9 attention "
                                            "heads (3 key/value heads) evenly over the ranks; choose one of 1, 3, 9"), out
    assert time.perf_counter() - t < 60 and "Loading" not in out   # no engine was started

def answers(d:Path)->dict:
    return {r["id"]: r["answer_ids"] for r in map(json.loads, (d/"conv.jsonl").read_text().splitlines())}

@pytest.mark.slow
def test_tp3_equals_tp1(tmp_path):
    for tp in (1, 3):
        p = regenerate(tmp_path/f"tp{tp}", tp)
        out = p.communicate()[0]
        assert p.returncode == 0, out[-3000:]
        if tp == 3: assert "vLLM's CPU workers bound to cores" in out, out[-3000:]   # the binding, said
    a, b = answers(tmp_path/"tp1"), answers(tmp_path/"tp3")
    assert a == b and len(a) == 4                                                    # token-equal answers
    from eagle3_nb.shards import HiddenStates
    h1, h3 = HiddenStates(tmp_path/"tp1"/"hs"), HiddenStates(tmp_path/"tp3"/"hs")
    assert sorted(h1.ids) == sorted(h3.ids)
    for sid in h1.ids:
        s1, s3 = h1[h1.ids.index(sid)], h3[h3.ids.index(sid)]
        assert torch.equal(s1["input_ids"], s3["input_ids"])
        for key in ("aux", "last"):   # per token, within 1e-4 of the vector's length (05c: vLLM against transformers)
            x, y = s3[key].float(), s1[key].float()
            rel = ((x - y).norm(dim=-1) / y.norm(dim=-1).clamp_min(1e-12)).max()
            assert rel < 1e-4, (sid, key, float(rel))

def ranks_of(pid:int)->list[int]:
    "The processes under `pid` (vLLM's CPU workers among them)."
    import psutil
    return [c.pid for c in psutil.Process(pid).children(recursive=True)]

@pytest.mark.slow
def test_kill_a_rank_mid_regeneration_then_run_again(tmp_path):
    p = regenerate(tmp_path, 3, limit=12, tokens=24)
    man = tmp_path/"hs"/"manifest.json"
    while p.poll() is None and not (man.exists() and json.loads(man.read_text()).get("shards")): time.sleep(0.5)
    assert p.poll() is None, "the run ended before a rank could be killed"
    kids = ranks_of(p.pid)
    assert len(kids) >= 3, kids
    os.kill(kids[-1], signal.SIGKILL)                      # one rank's process
    try: p.wait(timeout=300)
    except subprocess.TimeoutExpired: os.killpg(p.pid, signal.SIGKILL); p.wait()   # a hung engine: the group goes
    q = regenerate(tmp_path, 3, limit=12, tokens=24)       # the same command again
    out = q.communicate()[0]
    assert q.returncode == 0, out[-3000:]
    ids = [r["id"] for r in map(json.loads, (tmp_path/"conv.jsonl").read_text().splitlines())]
    assert len(ids) == len(set(ids)) == 12, ids            # every sample once, none lost
    m = json.loads(man.read_text())
    assert sorted(i for s in m["shards"] for i in s["ids"] + s["skipped_ids"]) == sorted(ids)

@pytest.mark.slow
def test_evaluate_at_tp3_reports_the_acceptance_of_tp1(tmp_path):
    "A quickly trained draft (its vocabulary a multiple of 64 x 3: vLLM shards its lm_head too) evaluated at TP 1 and 3."
    p = regenerate(tmp_path/"data", 1, limit=16, tokens=48)
    assert p.wait() == 0, p.stdout.read()[-3000:]
    run = lambda *a: subprocess.run([EXE, *map(str, a)], capture_output=True, text=True, env=ENV)
    t = run("train", "--data", tmp_path/"data"/"hs", "--out", tmp_path/"train", "--draft-vocab-size", 2112,
            "--max-steps", 30, "--batch-size", 4, "--lr", 2e-3, "--log-to", "none")
    assert t.returncode == 0, t.stderr[-3000:]
    ev = {}
    for tp in (1, 3):
        e = run("evaluate", "--draft", tmp_path/"train"/"draft", "--out", tmp_path/f"eval{tp}", "--prompts", 4,
                "--max-tokens", 32, "--concurrency", "1,4", "--tensor-parallel-size", tp)
        assert e.returncode == 0, e.stderr[-3000:]
        ev[tp] = json.loads((tmp_path/f"eval{tp}"/"metrics.json").read_text())
    assert ev[1]["greedy_identical"] and ev[3]["greedy_identical"]
    assert [ev[tp]["vllm"]["per_position"] for tp in (1, 3)][0] == ev[3]["vllm"]["per_position"], ev
    assert ev[1]["vllm"]["mean_acceptance_length"] == ev[3]["vllm"]["mean_acceptance_length"], ev
