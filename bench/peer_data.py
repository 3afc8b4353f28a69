"""eagle3_nb's extracted hidden states in speculators 0.9.0's offline-training format, checked tensor for tensor.

Runs in speculators' own virtualenv (`make bench-peer` builds it); reads the shards with safetensors alone.
speculators reads, for sample i of a `datasets` directory (`input_ids`, `loss_mask`, `seq_len`),
`hidden_states/hs_{i}.safetensors` holding `token_ids` (T,) and `hidden_states` (T, aux layers + 1, H): the aux layers'
states, then the last decoder layer's output before the final norm -- eagle3_nb's `aux` (T, n, H) and `last` (T, H).
The draft vocabulary is the one eagle3_nb's draft was trained with (its `d2t`/`t2d`, saved as speculators' .npy files).

Usage: python bench/peer_data.py HIDDEN_STATES_DIR DRAFT_DIR OUT_DIR
Prints one JSON line: samples, tokens, and the largest difference found when speculators' own dataset reads them back.
"""
import json, sys
from pathlib import Path
import numpy as np
import torch
from datasets import Dataset
from safetensors import safe_open
from safetensors.torch import load_file, save_file


def our_samples(hs: Path):
    "Every sample of an eagle3_nb extraction directory, in manifest order: (input_ids, loss_mask, aux, last)."
    for shard in json.loads((hs/"manifest.json").read_text())["shards"]:
        if not shard["file"]: continue
        with safe_open(str(hs/shard["file"]), "pt") as st:
            off = st.get_tensor("offsets").tolist()
            t = {k: st.get_tensor(k) for k in ("input_ids", "loss_mask", "aux", "last")}
        for a, b in zip(off, off[1:]): yield tuple(t[k][a:b] for k in ("input_ids", "loss_mask", "aux", "last"))


def convert(hs: Path, draft: Path, out: Path) -> int:
    (out/"hidden_states").mkdir(parents=True, exist_ok=True)
    rows = {"input_ids": [], "loss_mask": [], "seq_len": []}
    for i, (ids, mask, aux, last) in enumerate(our_samples(hs)):
        save_file({"token_ids": ids.long().contiguous(), "hidden_states": torch.cat([aux, last[:, None]], 1).contiguous()},
                  str(out/"hidden_states"/f"hs_{i}.safetensors"))
        rows["input_ids"].append(ids.tolist()); rows["loss_mask"].append(mask.long().tolist()); rows["seq_len"].append(len(ids))
    Dataset.from_dict(rows).with_format("torch").save_to_disk(str(out))
    w = load_file(str(draft/"model.safetensors"))
    np.save(out/"d2t.npy", w["d2t"].long().numpy()); np.save(out/"t2d.npy", w["t2d"].bool().numpy())
    return len(rows["seq_len"])


def check(hs: Path, out: Path) -> dict:
    "Read the converted data back with speculators' own dataset class and compare it with eagle3_nb's shards."
    from speculators.train.data import ArrowDataset
    theirs, worst, tokens = ArrowDataset(max_len=1 << 20, datapath=str(out), on_missing="raise"), 0.0, 0
    for i, (ids, mask, aux, last) in enumerate(our_samples(hs)):
        s = theirs[i]
        assert torch.equal(s["input_ids"], ids.long()) and torch.equal(s["loss_mask"].bool(), mask.bool()), i
        worst = max(worst, (s["hidden_states"].float() - aux.flatten(1).float()).abs().max().item(),
                    (s["verifier_last_hidden_states"].float() - last.float()).abs().max().item())
        tokens += len(ids)
    assert len(theirs) == i + 1, (len(theirs), i + 1)
    return {"samples": len(theirs), "tokens": tokens, "max_abs_difference": worst}


if __name__ == "__main__":
    hs, draft, out = map(Path, sys.argv[1:4])
    convert(hs, draft, out)
    print(json.dumps(check(hs, out)))
