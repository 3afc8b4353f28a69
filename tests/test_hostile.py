"""Hostile and malformed files, generated rather than hand-picked (hypothesis): the only outcomes allowed are success or
one `Eagle3Error` line (exit 2 from the command line), never another exception, a traceback or a half-written output.
`make test` draws 25 inputs per entry point from a fixed seed; `make test-slow` draws 500."""
import contextlib, io, json, os, struct
from pathlib import Path
import pytest
import torch
from hypothesis import HealthCheck, given, settings, strategies as st
from eagle3_nb.core import Eagle3Error, load_checkpoint
from eagle3_nb.reference import fixture, inspect_draft, load_config

SLOW = "slow" in os.environ.get("EAGLE3_TEST_FLAGS", "").split(",")
settings.register_profile("eagle3", max_examples=500 if SLOW else 25, derandomize=True, deadline=None,
                          suppress_health_check=list(HealthCheck))
settings.load_profile("eagle3")

SMOL = load_config(fixture("verifiers/SmolLM2-135M-Instruct.json"))
AQ = fixture("references/AQ-MedAI--Kimi-K2-Instruct-eagle3")
FIELDS = ["hidden_size", "num_attention_heads", "num_key_value_heads", "num_hidden_layers", "vocab_size", "head_dim",
          "intermediate_size", "max_position_embeddings", "rms_norm_eps", "rope_theta", "rope_scaling", "hidden_act",
          "tie_word_embeddings", "architectures", "kv_lora_rank", "v_head_dim", "bos_token_id", "text_config"]
hostile = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.sampled_from([0, -1, 1, 2**31, 2**63]),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12), st.sampled_from(["576", "silu"]),
                    st.lists(st.integers(-3, 3), max_size=3), st.dictionaries(st.text(max_size=6), st.integers(), max_size=2))

@st.composite
def configs(draw, base:dict):
    "`base` with one to three fields deleted or set to a hostile value, sometimes nested as a wrapper's text_config."
    cfg = dict(base)
    for _ in range(draw(st.integers(1, 3))):
        k = draw(st.sampled_from(FIELDS + list(base)))
        if draw(st.booleans()): cfg.pop(k, None)
        else: cfg[k] = draw(hostile)
    return {"model_type": "wrapper", "text_config": cfg} if draw(st.integers(0, 4)) == 0 else cfg

def _file_bytes(draw, obj)->bytes:
    "`obj` as JSON, or now and then something that is not: another JSON type, bad UTF-8, a cut file."
    kind = draw(st.integers(0, 9))
    if kind == 0: return json.dumps(draw(hostile)).encode()
    if kind == 1: return b"\xff\xfe" + json.dumps(obj).encode()
    if kind == 2: return json.dumps(obj).encode()[:draw(st.integers(0, 40))]
    return json.dumps(obj).encode()

def _one_line_or_success(r, out:Path|None=None):
    assert "Traceback" not in r.stderr, r.stderr
    assert r.returncode in (0, 2), (r.returncode, r.stderr)
    if r.returncode == 2:
        assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("eagle3: error: "), r.stderr
        assert out is None or not out.exists(), f"{out} half-written"

@pytest.fixture
def cli(capfd):
    from eagle3_nb.cli import main
    from types import SimpleNamespace
    def call(*args):
        capfd.readouterr()
        rc = main([str(a) for a in args])
        o, e = capfd.readouterr()
        return SimpleNamespace(returncode=rc, stdout=o, stderr=e)
    return call

@pytest.fixture
def scratch(tmp_path_factory): return tmp_path_factory.mktemp("hostile")

def test_verifier_configs_through_derive(cli, scratch):
    "`eagle3 derive --verifier F --out D` on generated verifier configs: a draft with positive shapes, or one line."
    @given(st.data())
    def check(data):
        d = scratch/f"v{len(os.listdir(scratch))}"; d.mkdir()
        (d/"config.json").write_bytes(_file_bytes(data.draw, data.draw(configs(SMOL))))
        r = cli("derive", "--verifier", d/"config.json", "--out", d/"out")
        _one_line_or_success(r, d/"out")
        if r.returncode == 0:
            c = json.loads((d/"out"/"config.json").read_text())
            assert all(c[k] > 0 for k in ("head_dim", "hidden_size", "num_attention_heads", "intermediate_size")), c
    check()

@st.composite
def headers(draw):
    "A safetensors file: a header that may lie about its length, its dtypes, shapes and offsets, and a data part."
    names = ["fc.weight", "midlayer.self_attn.q_proj.weight", "d2t", "lm_head.weight"]
    h = {draw(st.sampled_from(names)): {"dtype": draw(st.sampled_from(["BF16", "F32", "I64", "Q7", 3])),
                                        "shape": draw(st.lists(st.integers(-2, 2**40), max_size=3)),
                                        "data_offsets": draw(st.lists(st.integers(-8, 2**40), max_size=3))}
         for _ in range(draw(st.integers(0, 3)))}
    if draw(st.booleans()): h = draw(hostile)
    raw = json.dumps(h).encode() if draw(st.integers(0, 5)) else bytes(draw(st.binary(max_size=40)))
    n = draw(st.sampled_from([len(raw), len(raw) + 1, max(len(raw) - 1, 0), 2**63, 2**40, 0]))
    return struct.pack("<Q", n)[:draw(st.sampled_from([8, 8, 8, 3]))] + raw + bytes(draw(st.integers(0, 64)))

def test_draft_checkpoints_through_inspect(cli, scratch):
    "`eagle3 inspect DIR` on a draft whose config and safetensors header are generated: its table, or one line."
    base = load_config(AQ)
    @given(st.data())
    def check(data):
        d = scratch/f"d{len(os.listdir(scratch))}"; d.mkdir()
        (d/"config.json").write_bytes(_file_bytes(data.draw, data.draw(configs(base))))
        (d/"model.safetensors").write_bytes(data.draw(headers()))
        _one_line_or_success(cli("inspect", d))
    check()

def test_prompt_files(scratch):
    "`prompt_records` on generated JSONL prompt files: records, or one line naming the file and the line."
    from eagle3_nb.prompts import prompt_records
    line = st.one_of(st.builds(lambda p: json.dumps({"prompt": p}), st.text(max_size=30)),
                     st.builds(lambda m: json.dumps({"messages": m}), hostile), st.builds(json.dumps, hostile),
                     st.text(max_size=30), st.just("x" * 200_000))
    @given(st.lists(line, max_size=6), st.booleans())
    def check(lines, bad_utf8):
        f = scratch/f"p{len(os.listdir(scratch))}.jsonl"
        f.write_bytes(("\n".join(lines)).encode() + (b"\n\xff\xfe{" if bad_utf8 else b""))
        try: recs = prompt_records(str(f), "train", 0)
        except Eagle3Error as e: assert "\n" not in str(e) and f.name in str(e), str(e)
        else: assert all(isinstance(r["messages"], list) for r in recs)
    check()

def test_training_checkpoints(scratch):
    "`load_checkpoint` on generated bytes and on a real checkpoint cut anywhere: its contents, or one line."
    good = scratch/"good.pt"
    torch.save({"model": {"fc.weight": torch.ones(3, 3)}, "step": 2, "history": [{"loss": 1.0}]}, good)
    whole = good.read_bytes()
    @given(st.one_of(st.binary(max_size=200), st.integers(0, len(whole)).map(lambda n: whole[:n])))
    def check(raw):
        f = scratch/f"c{len(os.listdir(scratch))}.pt"; f.write_bytes(raw)
        try: load_checkpoint(f)
        except Eagle3Error as e: assert "\n" not in str(e), str(e)
    check()

def test_run_settings_files(scratch):
    "`eagle3 run --config F` on generated YAML settings: a `RunConfig` built, or one line (before any work)."
    import yaml
    from eagle3_nb.cli import parse
    from eagle3_nb.commands import run_config_of
    keys = ["prompts", "eval_prompts", "k", "device", "draft_vocab_size", "aux_layer_ids", "capture", "train", "engine",
            "extract", "preset", "max_new_tokens", "sample_temperature"]
    inner = st.dictionaries(st.sampled_from(["epochs", "lr", "batch_size", "ttt_steps", "max_model_len", "precision"]),
                            hostile, max_size=3)
    doc = st.dictionaries(st.sampled_from(keys), st.one_of(hostile, inner), max_size=4)
    @given(doc, st.booleans())
    def check(d, garbage):
        f = scratch/f"s{len(os.listdir(scratch))}.yaml"
        f.write_text(yaml.safe_dump(d) if not garbage else "prompts: [1, 2\n  :: -")
        err = io.StringIO()
        try:
            with contextlib.redirect_stderr(err): run_config_of(parse(["run", "--config", str(f), "--run-dir", str(scratch/"r")]))
        except Eagle3Error as e: assert "\n" not in str(e), str(e)
        except SystemExit as e:   # argparse's usage, then one line: a value of the wrong type, an unknown key
            assert e.code == 2 and err.getvalue().strip().splitlines()[-1].startswith("error: "), err.getvalue()
    check()
