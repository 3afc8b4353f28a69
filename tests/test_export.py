"The exported library must be exactly what the notebooks export (nbdev_export run in a scratch copy)."
import filecmp, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def test_export_matches_notebooks(tmp_path):
    for p in ("nbs", "eagle3_nb"): shutil.copytree(ROOT/p, tmp_path/p, ignore=shutil.ignore_patterns("__pycache__", "_proc"))
    shutil.copy(ROOT/"settings.ini", tmp_path)
    exe = Path(sys.executable).parent/"nbdev_export"
    subprocess.run([str(exe)], cwd=tmp_path, check=True)
    here = sorted(p.relative_to(ROOT/"eagle3_nb") for p in (ROOT/"eagle3_nb").glob("*.py"))
    there = sorted(p.relative_to(tmp_path/"eagle3_nb") for p in (tmp_path/"eagle3_nb").glob("*.py"))
    assert here == there, f"modules differ: {set(here) ^ set(there)}"
    stale = [str(p) for p in here if not filecmp.cmp(ROOT/"eagle3_nb"/p, tmp_path/"eagle3_nb"/p, shallow=False)]
    assert not stale, f"eagle3_nb/ differs from the notebooks in {stale}: run nbdev_export and commit"
