"""`speculators train` (0.9.0) on a CPU: its command line, with the three places where its trainer assumes an
accelerator pointed at the CPU. Runs in speculators' own virtualenv; the package never imports it.

speculators 0.9.0, launched without torchrun on a machine without an accelerator:
- moves the model and every batch to `get_local_rank()` (0, read as cuda:0) and asks `get_current_device()` (cuda:0)
  in its checkpointer and utilities;
- autocasts on `device_type = "cuda"` when no accelerator is found;
- calls `torch.accelerator.synchronize()` in its step timer, which raises without an accelerator (a CPU computes
  synchronously: nothing to wait for).
And on any machine, with `--max-steps`, its epoch loop carries on after the last step: every later epoch takes one
more step (at the schedule's end, learning rate 0), validates and saves, up to `--epochs`; here the epochs stop with
the one that holds the last step.

Usage: python bench/peer_train.py [speculators train arguments]
"""
import math, sys
import torch
import speculators.train.trainer as trainer

_init = trainer.Trainer.__init__
def _patched(self, *a, **k):
    _init(self, *a, **k)
    if not torch.accelerator.is_available(): self.device_type = "cpu"
    if self.config.max_steps:   # the epochs that hold max_steps, no more
        need = math.ceil(self.config.max_steps / len(self.train_loader))
        self.config = self.config._replace(num_epochs=min(self.config.num_epochs, need))
trainer.Trainer.__init__ = _patched

if not torch.accelerator.is_available():
    torch.accelerator.synchronize = lambda *a, **k: None
    import speculators.train.checkpointer as checkpointer
    import speculators.utils.util as util
    trainer.get_local_rank = lambda: "cpu"
    checkpointer.get_current_device = util.get_current_device = lambda: "cpu"

if __name__ == "__main__":
    from speculators.train.cli import main
    from speculators.train.config import TrainConfig
    main(TrainConfig.resolve(sys.argv[1:]))
