"The docs site: built offline (Sphinx + MyST-NB over nbdev's processed notebooks, docs/build.py) and looked at in headless Chromium."
import re, shutil, subprocess, sys
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent
STAGES = sorted(p.stem for p in (ROOT/"nbs").glob("[0-9]*.ipynb"))
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install chromium); the site is still built and checked as HTML")

@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("docs")/"html"
    r = subprocess.run([sys.executable, str(ROOT/"docs"/"build.py"), str(out)], cwd=ROOT, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-3000:]
    return out

def chromium(tmp_path, *args):
    "Headless Chromium as on a closed network (no background connections), in a fresh profile."
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", f"--user-data-dir={tmp_path/'profile'}"]
    return subprocess.run([CHROMIUM, *flags, *map(str, args)], capture_output=True, text=True, timeout=120)

def test_every_stage_has_a_page_in_the_sidebar(site):
    index = (site/"index.html").read_text()
    for s in STAGES:
        assert (site/f"{s}.html").exists(), s
        assert f'href="{s}.html"' in index, s
    assert "head_dim" in index and "verification" in index.lower()

def test_api_docs_and_plots_are_rendered(site):
    derive = (site/"02_derive.html").read_text()
    assert re.search(r'id="resolve-head-dim">resolve_head_dim<', derive)        # show_doc's heading
    assert "def resolve_head_dim(" in re.sub(r"<[^>]+>", "", derive)          # the signature, from show_doc
    assert "#| export" not in derive                                          # nbdev directives are not shown
    imgs = re.findall(r'<img[^>]+src="(_images/[^"]+\.png)"', (site/"07_train.html").read_text())
    assert imgs and all((site/i).stat().st_size > 5000 for i in imgs)          # the training curves, as PNG

@needs_chromium
def test_chromium_screenshot_and_dom(site, tmp_path):
    shot = tmp_path/"derive.png"
    r = chromium(tmp_path, "--window-size=1280,1600", f"--screenshot={shot}", (site/"02_derive.html").as_uri())
    assert shot.exists() and shot.stat().st_size > 20_000, r.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dom = chromium(tmp_path, "--dump-dom", (site/"02_derive.html").as_uri()).stdout
    for text in ("Draft config and head_dim derivation", "Reference inspection", "Training with training-time test", "resolve_head_dim"):
        assert text in dom, text

@needs_chromium
def test_search_finds_the_derivation(site, tmp_path):
    dom = chromium(tmp_path, "--virtual-time-budget=15000", "--dump-dom", (site/"search.html").as_uri() + "?q=resolve_head_dim").stdout
    results = re.search(r'<ul[^>]*class="search"[^>]*>(.*?)</ul>', dom, re.S)
    assert results and 'href="02_derive.html"' in results.group(1), dom[-2000:]

def test_gpu_host_page_and_an_api_table(site):
    gpu = re.sub(r"<[^>]+>", "", (site/"10a_gpu_host.html").read_text())
    for text in ("Kimi-K2.5", "Llama-3.1-8B-Instruct", "torchrun --nproc_per_node 8", "56.0 KiB per token", "OK (0 errors, 0 warnings"):
        assert text in gpu, text                                                # the stored outputs of the page's cells
    derive = (site/"02_derive.html").read_text()
    section = derive[derive.index('id="derive-draft-config"'):]
    table = re.search(r"<table.*?</table>", section, re.S).group(0)            # the first table after its heading
    cells = [re.sub(r"<[^>]+>", "", c).strip() for c in re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", table, re.S)]
    assert cells[:4] == ["parameter", "type", "default", "details"], cells[:8]
    row = cells[cells.index("reference"):cells.index("reference") + 4]
    assert row == ["reference", "DraftSpec | str | Path | None", "None", "reference draft whose choices win"], row

@needs_chromium
def test_chromium_renders_the_gpu_host_page(site, tmp_path):
    dom = chromium(tmp_path, "--dump-dom", (site/"10a_gpu_host.html").as_uri()).stdout
    for text in ("On a GPU host", "Kimi-K2.5", "v_head_dim=128", 'href="02_derive.html"'):
        assert text in dom, text

def test_every_notebook_named_in_prose_exists():
    "Every `NN_name` and 'notebook NN' in the notebooks and the README names a notebook that exists."
    import glob, json, re
    root = Path(__file__).resolve().parent.parent
    stems = {Path(p).stem for p in glob.glob(str(root/"nbs"/"*.ipynb"))}
    stale = []
    for p in sorted(glob.glob(str(root/"nbs"/"*.ipynb"))) + [str(root/"README.md")]:
        text = Path(p).read_text()
        if p.endswith(".ipynb"): text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"])
        stale += [(Path(p).name, m) for m in re.findall(r"`(\d\d[a-z]?_\w+)`", text) if m not in stems]
        stale += [(Path(p).name, f"notebook {m}") for m in re.findall(r"\b(?:notebook|stage) (\d\d[a-z]?)\b", text)
                  if not any(s.startswith(m + "_") for s in stems)]
    assert stale == [], stale

def test_docs_build_runs_no_test_cell():
    """nbdev runs, while it renders the docs, every cell holding an import statement (to show what it imports): a
    `#| slow` or `#| cuda` test cell with one would run whole pipelines in `make docs`. Its imports go in the import cell."""
    from nbdev.config import get_config
    from nbdev.process import NBProcessor
    from nbdev.processors import _do_eval
    flags, found = set(get_config().tst_flags.split()), []
    for p in sorted((ROOT/"nbs").glob("*.ipynb")):
        for c in NBProcessor(p, procs=[]).nb.cells:
            if c.cell_type == "code" and c.directives_.keys() & flags and _do_eval(c): found.append(f"{p.name} cell {c.idx_}")
    assert found == [], f"test cells nbdev would run while building the docs: {found}"

def test_readme_is_the_index_notebook(tmp_path):
    "README.md is `make readme`'s rendering of nbs/index.ipynb: an edit of one alone is lost at the next `make readme`"
    jupyter = Path(sys.executable).parent/"jupyter"
    subprocess.run([str(jupyter), "nbconvert", "--to", "markdown", str(ROOT/"nbs"/"index.ipynb"), "--output-dir", str(tmp_path),
                    "--output", "README"], check=True, capture_output=True)
    got = (tmp_path/"README.md").read_text().replace("](images/", "](nbs/images/")   # as the Makefile's sed
    assert got == (ROOT/"README.md").read_text(), "README.md differs from nbs/index.ipynb: edit the notebook, then `make readme`"

def test_every_image_resolves(site):
    "Every <img> of every built page names a file the site holds (the front page's demo figure included)."
    missing = []
    for page in sorted(site.glob("*.html")):
        for src in re.findall(r'<img[^>]+src="([^"]+)"', page.read_text()):
            if not src.startswith(("data:", "http")) and not (page.parent/src).is_file(): missing.append((page.name, src))
    assert missing == [], missing
    assert re.search(r'<img[^>]+src="[^"]*demo\.png"', (site/"index.html").read_text())   # the README's figure, there
