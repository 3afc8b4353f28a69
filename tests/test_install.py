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

def test_pip_settings_read_back(monkeypatch):
    "`pip config list` as pip prints it: sections global < install < :env:, values quoted"
    out = "global.find-links='/opt/w'\ninstall.find-links='/opt/x'\n:env:.default-timeout='60'\nglobal.cert='/ca'\n"
    monkeypatch.setattr(pi, "pip", lambda *a, **k: type("R", (), {"stdout": out})())
    assert pi.pip_settings() == {"find-links": "/opt/x", "default-timeout": "60", "cert": "/ca"}
