"The stage notebooks run for a verifier their own cells never name, as a user runs them: papermill with parameters."
import json, shutil
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = ["05b_extract", "07_train", "09_evaluate"]
# each runs its whole notebook again (vLLM engines, training) for the other verifier: 05b in `make test`, all in test-slow
QUICK = {"05b_extract"}

@pytest.fixture(scope="module")
def verifier(tmp_path_factory):
    "SmolLM2 re-packed as a Llama whose explicit head_dim (128) is not hidden_size / num_attention_heads (64), renamed."
    from eagle3_nb.testing.verifiers import smollm2_as
    d = tmp_path_factory.mktemp("v")/"my-verifier"
    shutil.copytree(smollm2_as("llama-hd128"), d)
    return d

def test_every_stage_notebook_has_one_parameters_cell():
    for nb in sorted(p for p in (ROOT/"nbs").glob("[01][0-9]*.ipynb") if p.stem < "10a"):   # the stages, to the pipeline
        if nb.stem in ("00_core", "01a_verifier", "03a_engine", "03b_vllm_support", "03c_test_verifiers",
                       "03d_vllm_internals", "04b_producers", "06b_attention", "07d_weight_average"):
            continue   # helpers, and the test verifiers (lab)
        cells = json.loads(nb.read_text())["cells"]
        tagged = [c for c in cells if "parameters" in c.get("metadata", {}).get("tags", [])]
        assert len(tagged) == 1, nb.name
        if nb.stem != "07a_objective":                       # a loss and a metric: it writes no file
            for c in tagged: assert "run_dir" in "".join(c["source"]), nb.name
        if nb.stem in STAGES: assert "verifier" in "".join(tagged[0]["source"]), nb.name

@pytest.mark.parametrize("stage", [s if s in QUICK else pytest.param(s, marks=pytest.mark.slow) for s in STAGES])
def test_stage_notebook_runs_for_another_verifier(stage, verifier, tmp_path):
    papermill = pytest.importorskip("papermill")
    out = tmp_path/f"{stage}.ipynb"
    papermill.execute_notebook(str(ROOT/"nbs"/f"{stage}.ipynb"), str(out), cwd=str(ROOT/"nbs"), progress_bar=False,
                               parameters={"verifier": str(verifier), "run_dir": str(tmp_path/"run")})
    ran = json.loads(out.read_text())
    injected = [c for c in ran["cells"] if "injected-parameters" in c.get("metadata", {}).get("tags", [])]
    assert len(injected) == 1 and str(verifier) in "".join(injected[0]["source"])
    if stage == "07_train":   # the draft trained in the notebook has the verifier's head_dim, not hidden/heads
        cfg = json.loads((tmp_path/"run"/"run"/"draft"/"config.json").read_text())
        assert (cfg["head_dim"], cfg["hidden_size"], cfg["num_attention_heads"]) == (128, 576, 9)
