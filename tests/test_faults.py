"""`eagle3 run` killed with SIGKILL (its whole process group, vLLM included) at points in every stage, then run again to
the end: each answer is stored once, the shards hold exactly the stored answers, a summary is written, no process is
left. Training, the stage that is deterministic on given data, is then killed right after a checkpoint and resumed: the
draft equals, tensor for tensor, the one an uninterrupted run trains. Minutes of CPU: runs with `make test-slow`
(EAGLE3_TEST_FLAGS=slow)."""
import json, os, random, signal, subprocess, sys, time
from pathlib import Path
import pytest, torch
from safetensors.torch import load_file
from eagle3_nb.core import load_checkpoint

EXE = str(Path(sys.executable).parent/"eagle3")
ARGS = ["run", "--preset", "cpu", "--device", "cpu", "--prompts", "16", "--eval-prompts", "4", "--max-new-tokens", "48",
        "--train.epochs", "2"]
STAGES = ["preflight", "regenerate", "train", "evaluate"]   # the headers `run` prints: `=== NAME: ...`

def start(run_dir:Path)->subprocess.Popen:
    "`eagle3 run` in a process group of its own (vLLM runs inside it), its output read line by line."
    return subprocess.Popen([EXE, *ARGS, "--run-dir", str(run_dir)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)

def kill_in(p:subprocess.Popen, stage:str, delay:float)->bool:
    "SIGKILL `p`'s group `delay` s after it prints stage `stage`'s header; False where it ended first."
    for line in p.stdout:
        if line.startswith(f"=== {stage}"):
            time.sleep(delay)
            os.killpg(p.pid, signal.SIGKILL); p.wait()
            return True
    p.wait()
    return False

def gone(pgid:int)->bool:
    try: os.killpg(pgid, 0)
    except ProcessLookupError: return True
    return False

@pytest.mark.slow
def test_kill_9_anywhere_then_run_again(tmp_path):
    rng, kills, groups = random.Random(0), [], []
    for stage in STAGES * 3:                                  # 12 kills, 3 in each stage, at seeded points
        p = start(tmp_path); groups.append(p.pid)
        delay = rng.uniform(0, 6)
        if kill_in(p, stage, delay): kills.append((stage, round(delay, 1)))
    assert len(kills) >= 10, kills
    assert all(gone(g) for g in groups), "a killed run left processes behind"
    p = start(tmp_path); out = p.communicate()[0]
    assert p.returncode == 0, out[-3000:]
    recs = [json.loads(l) for l in (tmp_path/"conversations.jsonl").read_text().splitlines()]
    ids = [r["id"] for r in recs]
    assert len(ids) == len(set(ids)) == 32, (len(ids), len(set(ids)))     # 16 prompts x (greedy + sampled), each once
    man = json.loads((tmp_path/"hidden_states"/"manifest.json").read_text())
    stored = [i for s in man["shards"] for i in s["ids"] + s["skipped_ids"]]
    assert sorted(stored) == sorted(ids), "the shards and the stored answers differ"
    s = json.loads((tmp_path/"summary.json").read_text())
    assert s["verify"]["errors"] == 0 and s["vllm"]["mean_acceptance_length"] >= 1.0
    print("kills:", kills)
    resumed, whole = train_killed_and_resumed(tmp_path), train_cli(tmp_path, tmp_path/"uninterrupted")
    subprocess.run(whole, check=True, capture_output=True)
    a, b = (load_file(str(d/"draft"/"model.safetensors")) for d in (tmp_path/"resumed", tmp_path/"uninterrupted"))
    assert sorted(a) == sorted(b) and all(torch.equal(a[k], b[k]) for k in a), "the resumed draft differs"
    print("train killed at step", resumed, "of", len(json.loads((tmp_path/"resumed"/"history.json").read_text())))

def train_cli(run:Path, out:Path)->list:
    "`eagle3 train` on the run's hidden states with the run's training settings, a checkpoint every 2 steps."
    t = json.loads((run/"run_config.json").read_text())["train"] | {"ckpt_every": 2, "log_to": "none", "epochs": 1.0}
    (run/"train.json").write_text(json.dumps(t))
    return [EXE, "train", "--config", str(run/"train.json"), "--data", str(run/"hidden_states"), "--out", str(out)]

def train_killed_and_resumed(run:Path)->int:
    "Kill `eagle3 train` as soon as its first checkpoint is on disk, then run it again to the end; the step killed at."
    out = run/"resumed"; cmd = train_cli(run, out)
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    while not (out/"checkpoint.pt").exists() and p.poll() is None: time.sleep(0.02)
    os.killpg(p.pid, signal.SIGKILL); p.wait()
    assert not (out/"draft").exists(), "training ended before the kill"
    step = load_checkpoint(out/"checkpoint.pt")["step"]
    subprocess.run(cmd, check=True, capture_output=True)
    return step
