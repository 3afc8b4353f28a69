"The exported library must be exactly what the notebooks export (nbdev_export run in a scratch copy)."
import filecmp, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def test_export_matches_notebooks(tmp_path):
    for p in ("nbs", "eagle3_nb"): shutil.copytree(ROOT/p, tmp_path/p, ignore=shutil.ignore_patterns("__pycache__", "_proc"))
    shutil.copy(ROOT/"settings.ini", tmp_path)
    exe = Path(sys.executable).parent/"nbdev_export"
    subprocess.run([str(exe)], cwd=tmp_path, check=True)
    here = sorted(p.relative_to(ROOT/"eagle3_nb") for p in (ROOT/"eagle3_nb").rglob("*.py"))
    there = sorted(p.relative_to(tmp_path/"eagle3_nb") for p in (tmp_path/"eagle3_nb").rglob("*.py"))
    assert here == there, f"modules differ: {set(here) ^ set(there)}"
    stale = [str(p) for p in here if not filecmp.cmp(ROOT/"eagle3_nb"/p, tmp_path/"eagle3_nb"/p, shallow=False)]
    assert not stale, f"eagle3_nb/ differs from the notebooks in {stale}: run nbdev_export and commit"

def test_no_module_imports_a_private_name_of_another():
    "a name one module shares with another is public (no leading underscore): the notebooks document it as such"
    import ast
    found = []
    for f in sorted((ROOT/"eagle3_nb").rglob("*.py")) + sorted((ROOT/"bench").glob("*.py")):
        for n in ast.walk(ast.parse(f.read_text())):
            if isinstance(n, ast.ImportFrom) and (n.level or (n.module or "").split(".")[0] == "eagle3_nb"):
                found += [f"{f.relative_to(ROOT)}:{n.lineno} {a.name}" for a in n.names
                          if a.name.startswith("_") and not a.name.startswith("__")]
    assert found == [], found
