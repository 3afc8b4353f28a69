import faulthandler, os, shutil, sys, tempfile, threading
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parent.parent

@pytest.fixture
def root(): return ROOT

@pytest.fixture(autouse=True)
def tmpdir_per_test(tmp_path_factory):
    """Every temporary directory a test's notebooks, CLI runs and vLLM make goes under one folder, removed when that test
    ends: a whole run writes tens of GB (checkpoints, hidden states), more than a CI machine's disk holds at once."""
    d = tmp_path_factory.mktemp("scratch")
    old = tempfile.tempdir, os.environ.get("TMPDIR")
    tempfile.tempdir, os.environ["TMPDIR"] = str(d), str(d)   # this process (notebooks run in it) and its children
    yield d
    tempfile.tempdir = old[0]
    if old[1] is None: os.environ.pop("TMPDIR", None)
    else: os.environ["TMPDIR"] = old[1]
    shutil.rmtree(d, ignore_errors=True)

SLOW = "slow" in os.environ.get("EAGLE3_TEST_FLAGS", "").split(",")   # `make test-slow`

# a test still running after this many seconds prints every thread's stack and ends the run: a hang shows where it is
# instead of running into CI's limit in silence (the longest test takes ~4 min on 2 cores; its slow cells, ~30 min)
LIMIT = float(os.environ.get("EAGLE3_TEST_TIMEOUT") or (3600 if SLOW else 1200))

@pytest.fixture(autouse=True)
def watchdog(request):
    def fire():   # output capture suspended first, so that the stacks reach the log
        capman = request.config.pluginmanager.getplugin("capturemanager")
        if capman: capman.suspend_global_capture(in_=True)
        print(f"\n{request.node.nodeid}: still running after {LIMIT:.0f} s (EAGLE3_TEST_TIMEOUT); every thread's stack:",
              file=sys.stderr, flush=True)
        faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
        sys.stderr.flush(); os._exit(3)
    timer = threading.Timer(LIMIT, fire); timer.daemon = True; timer.start()
    yield
    timer.cancel()

def pytest_collection_modifyitems(config, items):
    "Tests marked `slow` are skipped by `make test`, as the notebooks' `#| slow` cells are."
    for item in items:
        if "slow" in item.keywords and not SLOW: item.add_marker(pytest.mark.skip(reason="minutes of CPU: make test-slow"))

def pytest_report_header(config):
    "The CPU kind the run's figures belong to: vLLM picks its kernels by it (AMX or not), so a failure may be this kind's."
    from eagle3_nb.core import cpu_line
    return f"eagle3_nb on {cpu_line()}"

def pytest_configure(config):
    """transformers' log handler made now, on the session's stderr: made first inside a test that captures output, it
    would keep that test's stream, closed after it, and every later warning would print a '--- Logging error ---'."""
    import transformers.utils.logging as tl
    tl.get_logger("transformers")
