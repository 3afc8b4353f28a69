"""Build the docs site offline: nbdev's processed notebooks (show_doc rendered, hidden cells dropped) -> Sphinx + MyST-NB -> static HTML with a sidebar of the stages and full-text search.

    python docs/build.py [OUT]      # default OUT: _docs/html

Where Quarto is installed, `nbdev_docs` renders the same notebooks with nbs/_quarto.yml instead."""
import json, os, re, shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent

def front_matter(src:str)->dict:
    "title/description of nbdev's raw YAML front-matter cell."
    import yaml
    return yaml.safe_load(src.strip().strip("-")) or {}

def stage_notebook(nb:dict)->dict:
    "A processed notebook made Sphinx-ready: front matter -> title + lead, directive lines dropped, `echo: false` inputs hidden."
    cells = []
    for c in nb["cells"]:
        src = "".join(c["source"]) if isinstance(c["source"], list) else c["source"]
        if c["cell_type"] == "raw" and src.lstrip().startswith("---"):
            fm = front_matter(src)
            md = f"# {fm.get('title', '')}\n\n" + (f"> {fm['description']}\n" if fm.get("description") else "")
            cells.append({"cell_type": "markdown", "metadata": {}, "source": md}); continue
        if c["cell_type"] == "markdown" and src.startswith("<!-- WARNING"): continue
        if c["cell_type"] == "code":
            lines = src.splitlines()
            dirs = {l[3:].split(":")[0].strip(): l.split(":", 1)[-1].strip() for l in lines if l.startswith("#| ")}
            tags = c.setdefault("metadata", {}).setdefault("tags", [])
            if dirs.get("echo") == "false" or "exporti" in dirs: tags.append("remove-input")
            if dirs.get("output") == "false": tags.append("remove-output")
            c["source"] = "\n".join(l for l in lines if not l.startswith("#|")).strip("\n")
            for o in c.get("outputs", []):   # show_doc's Markdown opens with a rule, which docutils refuses inside an output
                md = o.get("data", {}).get("text/markdown")
                if md is not None: o["data"]["text/markdown"] = api_table(re.sub(r"^\s*---\s*\n", "", "".join(md)))
            if not c["source"] and not c.get("outputs"): continue
        cells.append(c)
    return {**nb, "cells": cells}

def api_table(md:str)->str:
    "show_doc's Markdown with a table of the documented parameters (type, default, details) under the docstring."
    import importlib, inspect
    from fastcore.docments import docments
    m = re.search(r"eagle3_nb/(\w+)\.py#L\d+", md)
    h = re.search(r"^###\s+(\w+)(?:\.(\w+))?\s*$", md, re.M)
    if not (m and h): return md
    obj = getattr(importlib.import_module(f"eagle3_nb.{m.group(1)}"), h.group(1), None)
    if h.group(2): obj = getattr(obj, h.group(2), None)
    if not callable(obj) or inspect.isclass(obj): return md
    try: d = docments(obj, full=True)
    except (TypeError, ValueError): return md
    rows = [(k, v) for k, v in d.items() if k not in ("return", "self") and v.get("docment")]
    if not rows: return md
    cell = lambda x: "" if x is inspect._empty else str(x).replace("|", "\\|").replace("\n", " ")
    typ = lambda a: cell(a if isinstance(a, str) or a is inspect._empty else getattr(a, "__name__", a))
    table = ["", "| parameter | type | default | details |", "|---|---|---|---|"]
    table += [f"| `{k}` | {typ(v['anno'])} | {cell(v['default'])} | {cell(v['docment'])} |" for k, v in rows]
    return md.rstrip() + "\n" + "\n".join(table) + "\n"

def title(nb:dict)->str:
    for c in nb["cells"]:
        src = "".join(c["source"])
        if m := re.match(r"#\s+(.+)", src): return m.group(1).strip()
    return ""

def build(out:Path=ROOT/"_docs"/"html")->Path:
    # nbdev's processors only (show_doc rendered, hidden cells dropped) into _proc/; not `nbdev_proc_nbs`, which first tries to install Quarto and pip-install the package
    jobs = min(4, os.cpu_count() or 1)   # 2 cores: 28 s instead of 38 s for this step, 9 s instead of 12 s for Sphinx
    subprocess.run([sys.executable, "-c", f"from nbdev.serve import proc_nbs; proc_nbs(n_workers={jobs})"], cwd=ROOT, check=True)
    src = ROOT/"_docs_src"; shutil.rmtree(src, ignore_errors=True); src.mkdir()
    if (ROOT/"nbs"/"images").exists(): shutil.copytree(ROOT/"nbs"/"images", src/"images")
    nbs = sorted(p for p in (ROOT/"_proc").glob("*.ipynb"))
    stages = []
    for p in nbs:
        nb = stage_notebook(json.loads(p.read_text()))
        if p.stem != "index": stages.append(p.stem)
        else:
            toc = "```{toctree}\n:maxdepth: 1\n:caption: Stages\n\n" + "\n".join(s.stem for s in nbs if s.stem != "index") + "\n```\n"
            nb["cells"].append({"cell_type": "markdown", "metadata": {}, "source": toc})
        (src/p.name).write_text(json.dumps(nb))
    subprocess.run([str(BIN/"sphinx-build"), "-q", "-j", str(jobs), "-b", "html", "-c", str(ROOT/"docs"), str(src), str(out)], cwd=ROOT, check=True)
    return out

if __name__ == "__main__":
    print(build(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT/"_docs"/"html"))
