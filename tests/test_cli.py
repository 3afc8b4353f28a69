"""The `eagle3` command line: the console script and `python -m eagle3_nb.cli` run as a user runs them, from a shell; every
other test calls the same `main` in this process (one start-up of torch and transformers, ~7 s each, instead of ~25)."""
import json, subprocess, sys
from types import SimpleNamespace
import pytest
from pathlib import Path
from eagle3_nb.reference import fixture

EXE = str(Path(sys.executable).parent/"eagle3")

def shell(*args):
    "`eagle3 ARGS` in a new process."
    return subprocess.run([EXE, *map(str, args)], capture_output=True, text=True)

@pytest.fixture
def run(capfd):
    "`eagle3 ARGS` through the console script's `main`, in this process: exit code, and what reached stdout and stderr."
    from eagle3_nb.cli import main
    def call(*args):
        capfd.readouterr()
        try: rc = main([str(a) for a in args])
        except SystemExit as e: rc = e.code   # argparse: --help, usage errors
        out, err = capfd.readouterr()
        return SimpleNamespace(returncode=rc, stdout=out, stderr=err)
    return call

def test_help_lists_subcommands():
    r = shell("--help")
    assert r.returncode == 0 and all(c in r.stdout for c in ("inspect", "derive", "demo"))

def test_inspect_json_reference(run):
    r = run("inspect", fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3"), "--json")
    j = json.loads(r.stdout)
    assert r.returncode == 0
    assert j["config"]["head_dim"] == 128 and j["config"]["num_attention_heads"] == 64
    assert j["tensors"]["midlayer.self_attn.q_proj.weight"] == {"shape": [8192, 14336], "dtype": "BF16"}
    assert len(j["tensors"]) == 15

def test_inspect_bare_config_file_warns_config_only(tmp_path, run):
    cfg = tmp_path/"config.json"
    cfg.write_text(fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3/config.json").read_text())
    r = run("inspect", cfg, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["tensors"] is None
    assert "could not be checked" in r.stderr

def test_derive_bare_config_with_reference(run):
    r = run("derive", "--verifier", fixture("verifiers/Kimi-K2.5.json"), "--reference", fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3"), "--json")
    j = json.loads(r.stdout)
    assert r.returncode == 0
    assert (j["config"]["head_dim"], j["config"]["aux_layer_ids"], j["config"]["draft_vocab_size"]) == (128, [2, 30, 58], 32000)
    assert j["tensors"]["fc.weight"]["shape"] == [7168, 21504]
    assert j["draft_config"]["architectures"] == ["LlamaForCausalLMEagle3"]

def test_derive_out_writes_loadable_config(tmp_path, run):
    r = run("derive", "--verifier", fixture("verifiers/Qwen3-32B.json"), "--out", tmp_path/"d")
    assert r.returncode == 0, r.stderr
    cfg = json.loads((tmp_path/"d"/"config.json").read_text())
    assert cfg["head_dim"] == 128 and cfg["hidden_size"] == 5120 and cfg["norm_before_residual"] is False

def test_errors_are_one_line_and_nonzero(tmp_path, run):
    bad = tmp_path/"config.json"; bad.write_text("{not json")
    for args in (("inspect", "/no/such/dir"), ("inspect", bad), ("derive", "--verifier", bad),
                 ("derive", "--verifier", fixture("verifiers/Kimi-K2-Instruct.json"), "--aux-layer-ids", "2,30,61"),
                 ("inspect", fixture("verifiers/Qwen3-8B.json"))):
        r = run(*args)
        assert r.returncode != 0, args
        assert r.stderr.startswith("eagle3: error:") and r.stderr.strip().count("\n") == 0, (args, r.stderr)
        assert "Traceback" not in r.stderr
    r = shell("inspect", "/no/such/dir")   # and from a shell: nothing printed at start-up adds a line
    assert r.returncode == 2 and r.stderr.startswith("eagle3: error:") and r.stderr.strip().count("\n") == 0, r.stderr

def test_inspect_broken_checkpoint_reports_problem(tmp_path, run):
    src = fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3")
    (tmp_path/"config.json").write_text((src/"config.json").read_text())
    t = json.loads((src/"tensors.json").read_text()); t["midlayer.self_attn.q_proj.weight"]["shape"] = [7168, 14336]
    (tmp_path/"tensors.json").write_text(json.dumps(t))
    r = run("inspect", tmp_path)
    assert r.returncode == 1 and "set head_dim=112 explicitly" in r.stderr

def test_module_entry_point_for_torchrun():
    r = subprocess.run([sys.executable, "-m", "eagle3_nb.cli", "train", "--help"], capture_output=True, text=True)
    assert r.returncode == 0 and "--ttt-steps" in r.stdout

def test_verify_exit_codes(tmp_path, run):
    good = fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3"); k2 = fixture("verifiers/Kimi-K2-Instruct.json")
    r = run("verify", good, "--verifier", k2, "--reference", good)
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path/"config.json").write_text((good/"config.json").read_text().replace('"head_dim": 128', '"head_dim": 112'))
    (tmp_path/"tensors.json").write_text((good/"tensors.json").read_text())
    r = run("verify", tmp_path, "--verifier", k2, "--json")
    j = json.loads(r.stdout)
    assert r.returncode == 1 and not j["ok"]
    assert any(f["where"] == "head_dim" and f["found"] == 112 and f["expected"] == 128 for f in j["findings"])
    assert any(f["check"] == "self-consistency" and "set head_dim=128 explicitly" in f["fix"] for f in j["findings"])
    (tmp_path/"tensors.json").write_text((good/"tensors.json").read_text().replace("8192", "7168"))  # weights made with 112
    r = run("verify", tmp_path, "--verifier", k2, "--device", "cuda")   # self-consistent 112: FlashAttention takes it
    assert r.returncode == 0 and "[convention] head_dim: found 112, expected 128" in r.stdout, r.stdout + r.stderr

def _speculators_draft(d):
    "A draft directory with the speculators 0.9.0 SmolLM2 config and tensor table (random weights)."
    import torch
    from safetensors.torch import save_file
    src = fixture("references/speculators-0.9.0-eagle3-smollm2")
    dt = {"BF16": torch.bfloat16, "I64": torch.int64, "BOOL": torch.bool}
    t = json.loads((src/"tensors.json").read_text())
    d.mkdir(); (d/"config.json").write_text((src/"config.json").read_text())
    save_file({k: torch.zeros(v["shape"], dtype=dt[v["dtype"]]) for k, v in t.items()}, str(d/"model.safetensors"))
    return d

def test_convert_other_tools_draft_both_ways(tmp_path, run):
    src = _speculators_draft(tmp_path/"spec")
    r = run("convert", src, "--out", tmp_path/"native", "--to", "vllm")
    assert r.returncode == 0, r.stderr
    j = json.loads(run("inspect", tmp_path/"native", "--json").stdout)
    assert (j["config"]["format"], j["config"]["layer_prefix"], j["config"]["norm_before_residual"], j["config"]["norm_output"]) == ("vllm", "midlayer.", True, True)
    r = run("convert", tmp_path/"native", "--out", tmp_path/"back", "--to", "speculators")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path/"back"/"config.json").read_text())["speculators_config"]["verifier"]["name_or_path"] == "HuggingFaceTB/SmolLM2-135M-Instruct"

def test_export_checkpoint_in_speculators_format(tmp_path, run):
    import torch
    from eagle3_nb.derive import derive_draft_config
    from eagle3_nb.model import Eagle3Draft
    cfg = derive_draft_config(fixture("verifiers/SmolLM2-135M-Instruct.json"), draft_vocab_size=1024).config
    torch.save({"model": Eagle3Draft(cfg).state_dict(), "config": cfg.to_dict()}, tmp_path/"checkpoint.pt")
    r = run("export", tmp_path, "--out", tmp_path/"spec", "--format", "speculators", "--verifier-id", "HuggingFaceTB/SmolLM2-135M-Instruct")
    assert r.returncode == 0, r.stderr
    j = json.loads(run("inspect", tmp_path/"spec", "--json").stdout)
    assert (j["config"]["format"], j["config"]["layer_prefix"], j["config"]["draft_vocab_size"], j["config"]["norm_before_residual"]) == ("speculators", "layers.0.", 1024, False)
    assert j["problems"] == []

def test_config_file_under_the_flags(tmp_path, run):
    (tmp_path/"run.yaml").write_text(f"verifier: {fixture('verifiers/Qwen3-32B.json')}\nout: {tmp_path/'d'}\ndraft_vocab_size: 16000\n")
    r = run("derive", "--config", tmp_path/"run.yaml")
    assert r.returncode == 0, r.stderr
    cfg = json.loads((tmp_path/"d"/"config.json").read_text())
    assert (cfg["head_dim"], cfg["draft_vocab_size"]) == (128, 16000)
    (tmp_path/"bad.yaml").write_text("verifer: x\n")
    r = run("derive", "--config", tmp_path/"bad.yaml")
    assert r.returncode == 2 and r.stderr.strip().splitlines()[-1] == "error: Subcommand 'derive' does not accept option 'verifer'", r.stderr

def test_help_is_complete_for_every_subcommand(run):
    "Every subcommand's --help."
    for c in ("inspect", "derive", "regenerate", "extract", "train", "export", "convert", "upgrade", "verify", "evaluate", "run",
              "demo"):
        r = run(c, "--help")
        assert r.returncode == 0 and f"usage: eagle3 {c}" in r.stdout and "--config" in r.stdout, c

def test_every_command_the_readme_shows_parses(tmp_path, monkeypatch, capsys):
    "Each `eagle3 ...` line of the README's code blocks, as a user types it: parsed, with the values it names."
    import re, shlex
    from eagle3_nb.cli import parse
    monkeypatch.chdir(tmp_path)   # `--print_config > run.yaml` then `--config run.yaml`
    readme = (Path(__file__).parents[1]/"README.md").read_text()
    lines = [l for block in re.findall(r"```sh\n(.*?)```", readme, re.S) for l in block.splitlines()
             if l.startswith("eagle3 ")]
    assert len(lines) >= 6, lines
    for line in lines:
        argv, to = shlex.split(line, comments=True)[1:], None
        if ">" in argv: argv, to = argv[:argv.index(">")], argv[argv.index(">") + 1]
        if to:   # `--print_config > FILE`: the settings as a file, exit 0
            with pytest.raises(SystemExit) as e: parse(argv)
            assert e.value.code in (0, None), line
            (tmp_path/to).write_text(capsys.readouterr().out)
            continue
        a = parse(argv)
        assert a.cmd == argv[0], line
        for flag, value in zip(argv, argv[1:]):   # each `--name value` reached its setting
            key = flag.removeprefix("--").replace("-", "_")
            if flag.startswith("--") and not value.startswith("--") and key not in ("config", "preset"):
                got = a
                for part in key.split("."): got = got[part] if isinstance(got, dict) else getattr(got, part)
                want = json.loads(value) if value.startswith("{") else value
                same = str(got) == str(want) or (isinstance(got, (int, float)) and float(got) == float(want))
                assert same, (line, flag, got)


def test_run_stops_before_work_on_bad_input(tmp_path, run):
    "An architecture vLLM cannot speculate on, an empty prompt file, a misspelt setting: one line, exit 2, run dir untouched."
    from eagle3_nb.testing.verifiers import smollm2_as
    r = run("run", "--verifier", smollm2_as("mixtral"), "--run-dir", tmp_path/"a", "--device", "cpu")
    last = r.stderr.strip().splitlines()[-1]   # vLLM prints a line of its own at import
    assert r.returncode == 2 and last.startswith("eagle3: error: pre-flight") and "SupportsEagle3" in last, r.stderr
    assert not (tmp_path/"a"/"conversations.jsonl").exists()
    (tmp_path/"empty.jsonl").write_text("{\"nothing\": 1}\n")
    r = run("run", "--run-dir", tmp_path/"b", "--device", "cpu", "--prompt-source", tmp_path/"empty.jsonl", "--preflight-steps", "0")
    assert r.returncode == 2 and "no usable records" in r.stderr, r.stderr
    (tmp_path/"cut.jsonl").write_text('{"prompt": "Hi"}\n{"prompt": "Name a col\n')
    r = run("run", "--run-dir", tmp_path/"b2", "--device", "cpu", "--prompt-source", tmp_path/"cut.jsonl", "--preflight-steps", "0")
    assert r.returncode == 2 and "cut.jsonl line 2 is not JSON" in r.stderr and "Traceback" not in r.stderr, r.stderr
    (tmp_path/"run.yaml").write_text("prompts: 8\ntrain: {epochz: 3}\n")
    r = run("run", "--run-dir", tmp_path/"c", "--config", tmp_path/"run.yaml")
    assert r.returncode == 2 and "epochz" in r.stderr, r.stderr

def test_train_logs_scalars_and_keeps_the_best_draft(tmp_path, run):
    "`eagle3 train` writes TensorBoard events, read back with the tensorboard package, and a best/ draft by held-out tau."
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator
    from eagle3_nb.prompts import default_prompts
    from eagle3_nb.regeneration import RegenConfig, regenerate
    from eagle3_nb.shards import ExtractConfig
    from eagle3_nb.extract import extract
    from eagle3_nb.embedded import embedded_verifier
    v = embedded_verifier()
    regenerate(default_prompts()[:4], v, tmp_path/"c.jsonl", RegenConfig(max_new_tokens=16, batch_size=4))
    extract(tmp_path/"c.jsonl", v, tmp_path/"hs", ExtractConfig(shard_size=4))
    r = run("train", "--data", tmp_path/"hs", "--out", tmp_path/"t", "--max-steps", "4", "--batch-size", "2", "--eval-every", "2",
            "--eval-frac", "0.25", "--draft-vocab-size", "1024", "--log-to", "tensorboard")
    assert r.returncode == 0, r.stderr[-3000:]
    ev = EventAccumulator(str(tmp_path/"t"/"tb")); ev.Reload()
    assert [e.step for e in ev.Scalars("train/loss")] == [1, 2, 3, 4]
    assert all(e.value > 0 for e in ev.Scalars("train/loss")) and len(ev.Scalars("train/lr")) == 4
    taus = ev.Scalars("eval/tau")
    assert [e.step for e in taus] == [2, 4] and all(1 <= e.value <= 4 for e in taus)
    best = json.loads((tmp_path/"t"/"best.json").read_text())
    assert abs(best["mean_acceptance_length"] - max(e.value for e in taus)) < 1e-5
    assert (tmp_path/"t"/"best"/"model.safetensors").exists() and best["heldout_samples"] == 1
    ref = tmp_path/"ref"; ref.mkdir()   # a reference for this verifier (config only) with its own draft vocabulary
    cfg = json.loads((fixture("references/speculators-0.9.0-eagle3-smollm2")/"config.json").read_text())
    (ref/"config.json").write_text(json.dumps(cfg | {"draft_vocab_size": 2048}))
    r = run("train", "--data", tmp_path/"hs", "--out", tmp_path/"t2", "--max-steps", "1", "--batch-size", "2", "--reference", ref)
    assert r.returncode == 0, r.stderr[-3000:]
    assert json.loads((tmp_path/"t2"/"draft"/"config.json").read_text())["draft_vocab_size"] == 2048   # the reference's

def test_regenerate_with_prompts_the_verifier_writes(tmp_path, run):
    "`--prompts default+self`: half shipped prompts, half written by the verifier (stored next to --out), then answered."
    r = run("regenerate", "--prompts", "default+self", "--limit", 4, "--backend", "vllm", "--max-new-tokens", 8,
            "--out", tmp_path/"c.jsonl")
    assert r.returncode == 0, r.stderr[-2000:]
    rows = [json.loads(l) for l in (tmp_path/"c.jsonl").read_text().splitlines()]
    assert [x["id"] for x in rows] == ["p0000", "p0001", "self00000", "self00001"]
    written = [json.loads(l)["messages"][0]["content"] for l in (tmp_path/"self_prompts.jsonl").read_text().splitlines()]
    assert [x["messages"][0]["content"] for x in rows[2:]] == written and all(len(w.split()) >= 4 for w in written)
    assert json.loads((tmp_path/"self_prompts.stats.json").read_text())["kept"] == 2

def test_a_busy_run_directory_refuses_a_second_writer(tmp_path, run):
    "A writer holds R (another process); `eagle3 run` and a stage subcommand writing into R are refused at once, naming it."
    held = subprocess.Popen([sys.executable, "-c", "import time; from eagle3_nb.core import writer_lock\n"
                             f"with writer_lock({str(tmp_path)!r}, 'eagle3 run --run-dir R'): print('held', flush=True); "
                             "time.sleep(120)"], stdout=subprocess.PIPE, text=True)
    try:
        assert held.stdout.readline().strip() == "held"
        for args in (["run", "--run-dir", tmp_path, "--prompts", 8, "--eval-prompts", 2],
                     ["derive", "--verifier", fixture("verifiers/Qwen3-8B.json"), "--out", tmp_path]):
            r = run(*args)
            assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
            assert f"is in use by another writer: pid {held.pid}" in r.stderr and "`eagle3 run --run-dir R`" in r.stderr
        assert not (tmp_path/"run_config.json").exists() and not (tmp_path/"config.json").exists()   # nothing written
    finally: held.kill(); held.wait()
    r = run("derive", "--verifier", fixture("verifiers/Qwen3-8B.json"), "--out", tmp_path)   # its holder killed: taken over
    assert r.returncode == 0 and f"took over the writer's lock from pid {held.pid}" in r.stderr, r.stderr

def _frames(f):
    while f:
        if "/eagle3_nb/" in f.f_code.co_filename: yield f
        f = f.f_back

@pytest.mark.slow   # 10_pipeline counts the same reads in `make test`, on the run it makes there
def test_run_reads_the_verifier_config_once(tmp_path, run):
    "`eagle3 run` builds the verifier's facts once: the package opens its config.json for them and for its identity hash."
    from eagle3_nb.embedded import embedded_verifier
    target, reads, on = str(Path(embedded_verifier())/"config.json"), [], [True]
    def opened(event, args):   # an audit hook sees every open in this process (vLLM's engine runs in it too)
        if not on[0] or event != "open" or str(args[0]) != target: return
        f = sys._getframe(1)
        while f and not any(s in f.f_code.co_filename for s in ("/eagle3_nb/", "site-packages")): f = f.f_back
        if f and "/eagle3_nb/" in f.f_code.co_filename:   # the package's frames, innermost first: where it was read
            reads.append(" < ".join(f"{Path(g.f_code.co_filename).stem}.{g.f_code.co_name}" for g in _frames(f)))
    sys.addaudithook(opened)
    try: r = run("run", "--run-dir", tmp_path, "--prompts", 8, "--eval-prompts", 2, "--preflight-steps", 0,
                 "--max-new-tokens", 16, "--train.epochs", 1, "--device", "cpu")
    finally: on[0] = False
    assert r.returncode == 0, r.stderr[-2000:]
    assert len(reads) <= 2, reads   # vLLM and transformers read it too, for themselves: not counted

class _Touch:   # unpickling this runs code: it writes a marker file
    def __init__(self, p): self.p = p
    def __reduce__(self): return (Path.touch, (self.p,))

def test_a_checkpoint_that_would_run_code_is_refused(tmp_path, run):
    "Every command that reads a training checkpoint refuses one whose unpickling runs code, in one line; the code never runs."
    import torch
    marker, ck = tmp_path/"ran-code", tmp_path/"run"/"checkpoint.pt"
    ck.parent.mkdir()
    torch.save({"model": {}, "step": 1, "config": _Touch(marker)}, ck)
    for args in (["export", ck.parent, "--out", tmp_path/"out"], ["upgrade", ck.parent]):
        r = run(*args)
        assert r.returncode == 2 and "Traceback" not in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr
        assert "checkpoint" in r.stderr, r.stderr
    assert not marker.exists() and not (tmp_path/"out").exists()
