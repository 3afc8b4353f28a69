"""Every notebook, run by nbdev's own runner: `slow` cells are skipped unless $EAGLE3_TEST_FLAGS names them; `cuda` cells
always run, on the GPU where torch sees one, else on the CPU (`core.gpu_or_cpu`), so their code cannot rot here."""
import gc, os
from pathlib import Path
import pytest
import nbdev.test
from execnb.shell import CaptureShell
from nbdev.config import get_config
from nbdev.test import test_nb as run_nb

ROOT = Path(__file__).resolve().parent.parent
NBS = sorted(p for p in (ROOT/"nbs").glob("*.ipynb") if not p.name.startswith("_"))
FLAGS = [f for f in get_config(path=ROOT).tst_flags.split() if f]   # space-separated, as `nbdev_test` reads them
FORCE = [f for f in os.environ.get("EAGLE3_TEST_FLAGS", "").split(",") if f] + ["cuda"]

def test_found_notebooks(): assert len(NBS) >= 4, NBS

class _Shell(CaptureShell):
    """nbdev's shell, kept so that a notebook's namespace (models, datasets) and cached outputs go when its test ends:
    every notebook runs in this one process, which otherwise grew by up to ~1 GB a notebook (12 GB by 10_pipeline, the
    page cache of a 24 GB machine gone and every later read from disk)."""
    made = []
    def __init__(self, *a, **kw): super().__init__(*a, **kw); _Shell.made.append(self)

@pytest.mark.parametrize("nb", NBS, ids=lambda p: p.stem)
def test_notebook(nb, monkeypatch):
    monkeypatch.setattr(nbdev.test, "CaptureShell", _Shell)
    try: ok, secs = run_nb(nb, skip_flags=FLAGS, force_flags=FORCE, showerr=True)
    finally:
        while _Shell.made: _Shell.made.pop().reset(new_session=False)
        gc.collect()
    assert ok, f"{nb.name} failed (see the traceback above)"
