"""`pip install ARGS` into the environment of the Python that runs this, done by uv where uv can be had, else by pip.

uv downloads and unpacks wheels in parallel: the demo's ~170 packages took ~30 s with it and ~95 s with pip on 2 cores
(one run each). uv reads no pip configuration, so pip's own settings (its config files, then its PIP_* variables, which
win) are passed on: find-links, index URL, extra index URLs, constraints, certificate and timeout; it resolves as pip
does, taking the best version over all indexes (`--index-strategy unsafe-best-match`). Whatever uv cannot do (it is not
installable here, or it fails), pip does, with the same arguments.

Usage (as the Makefile does): .venv/bin/python tools/pip_install.py [-q] [--no-compile] [--no-deps] [-e] SPEC...
"""
import ast, os, subprocess, sys
from pathlib import Path

# pip's settings uv takes as flags; pip writes several values of one setting separated by whitespace
FLAGS = {"find-links": "--find-links", "extra-index-url": "--extra-index-url", "constraint": "--constraint",
         "index-url": "--index-url"}
PIP_ONLY = {"--no-compile"}   # uv never byte-compiles unless asked (`--compile-bytecode`), as pip --no-compile

def pip(*args, **kw): return subprocess.run([sys.executable, "-m", "pip", *args], **kw)

def pip_settings()->dict:
    "pip's effective settings by name: the `global` section, then `install`, then PIP_* variables (`:env:`), later winning."
    out = pip("config", "list", capture_output=True, text=True).stdout
    by = {"global": {}, "install": {}, ":env:": {}}
    for line in out.splitlines():
        key, _, val = line.partition("=")
        sect, _, name = key.rpartition(".")
        if sect in by:
            try: by[sect][name] = ast.literal_eval(val)
            except (ValueError, SyntaxError): pass
    return by["global"] | by["install"] | by[":env:"]

def uv_command(uv:str, args:list, s:dict)->tuple[list, dict]:
    "The `uv pip install` command line and environment that do what `pip install args` does with pip's settings `s`."
    cmd = [uv, "pip", "install", "--python", sys.executable, "--index-strategy", "unsafe-best-match"]
    for name, flag in FLAGS.items():
        for v in s.get(name, "").split(): cmd += [flag, v]
    env = dict(os.environ)
    if s.get("cert"): env.setdefault("SSL_CERT_FILE", s["cert"])
    if s.get("default-timeout"): env.setdefault("UV_HTTP_TIMEOUT", str(s["default-timeout"]))
    return cmd + [a for a in args if a not in PIP_ONLY], env

def main(args:list)->int:
    uv = Path(sys.executable).parent/"uv"
    if not uv.exists() and pip("install", "-q", "uv").returncode != 0: print("uv could not be installed: pip installs")
    if uv.exists():
        cmd, env = uv_command(str(uv), args, pip_settings())
        if subprocess.run(cmd, env=env).returncode == 0: return 0
        print("uv failed (above): pip installs the same", flush=True)
    pip("install", "-q", "-U", "pip")   # the venv's bundled pip may predate these packages' metadata
    return pip("install", *args).returncode

if __name__ == "__main__": sys.exit(main(sys.argv[1:]))
