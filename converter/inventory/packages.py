"""Python package names: the module a program imports and the distribution ``pip`` installs.

Most are the same name; for some (``yaml`` / ``PyYAML``, ``PIL`` / ``Pillow``) ``PIP_NAMES``
knows the distribution.  ``package_key`` gives both spellings one key, so ``pip install
PyYAML`` in SKILL.md and ``import yaml`` in a program are one requirement.
"""

from __future__ import annotations

import re


def _normal(distribution: str) -> str:
    """A distribution name as pip compares them (PEP 503): lower case, ``-`` for ``-_.``."""
    return re.sub(r"[-_.]+", "-", distribution.lower())


# Modules whose package on PyPI has another name: what `pip install` needs.
PIP_NAMES = {
    "PIL": "Pillow",
    "yaml": "PyYAML",
    "cv2": "opencv-python",
    "sklearn": "scikit-learn",
    "skimage": "scikit-image",
    "bs4": "beautifulsoup4",
    "dateutil": "python-dateutil",
    "dotenv": "python-dotenv",
    "fitz": "PyMuPDF",
    "docx": "python-docx",
    "pptx": "python-pptx",
    "jwt": "PyJWT",
    "magic": "python-magic",
    "serial": "pyserial",
    "Crypto": "pycryptodome",
    "OpenSSL": "pyOpenSSL",
    "git": "GitPython",
    "googleapiclient": "google-api-python-client",
    "attr": "attrs",
    "win32api": "pywin32",
    "markdown_it": "markdown-it-py",
    "mdurl": "mdurl",
    "zmq": "pyzmq",
    "usb": "pyusb",
    "Levenshtein": "python-Levenshtein",
    "slugify": "python-slugify",
    "multipart": "python-multipart",
    "telegram": "python-telegram-bot",
    "tree_sitter": "tree-sitter",
    "pydantic_settings": "pydantic-settings",
}
# `pip install` name (normalised) → the module it gives; attrs gives attr and attrs alike.
_IMPORT_NAMES = {_normal(dist): module for module, dist in PIP_NAMES.items() if module != "attr"}
_IMPORT_NAMES |= {  # other distributions giving the same module
    "opencv-python-headless": "cv2", "opencv-contrib-python": "cv2",
    "opencv-contrib-python-headless": "cv2", "pymupdf": "fitz",
}  # fmt: skip


# Modules a package installs with itself: asked for beside it, they are no requirement of
# their own (`from urllib3.util.retry import Retry` next to `import requests`).
BROUGHT_BY = {
    "urllib3": "requests",
    "idna": "requests",
    "certifi": "requests",
    "charset_normalizer": "requests",
    "jinja2": "flask",
    "werkzeug": "flask",
    "click": "flask",
    "anyio": "httpx",
    "httpcore": "httpx",
    "pydantic_core": "pydantic",
}


def import_name(distribution: str) -> str:
    """The module a ``pip install`` name gives (``PyYAML`` → ``yaml``, ``Pillow`` → ``PIL``);
    other names are kept as written."""
    return _IMPORT_NAMES.get(_normal(distribution), distribution)


def package_key(name: str) -> str:
    """One key for a Python package, whether named as imported or as installed: known
    distributions are mapped to their module, then ``-``/``_`` and case do not count."""
    return import_name(name).replace("-", "_").lower()
