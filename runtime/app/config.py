"""Runtime configuration: which provider answers llm steps and which model each tier maps to.

Looked up in this order, each layer overriding the one before:

1. built-in defaults (below)
2. the user's file: ``$XDG_CONFIG_HOME/app-run/config.yaml`` (``~/.config/app-run/config.yaml``)
3. the APP's file: ``<APP_DIR>/app-run.yaml``
4. the file named by ``APP_RUN_CONFIG``
5. environment: ``APP_RUN_PROVIDER``, ``APP_RUN_ANSWERS``, ``APP_RUN_ROUTING``,
   ``APP_RUN_MODEL_LITE`` / ``_STANDARD`` / ``_REASONING``, ``APP_RUN_OPENAI_BASE_URL``
6. command-line flags (``--provider``, ``--answers``, ``--strategy``)

Run records and sessions live under ``APP_RUN_HOME`` (default ``$XDG_STATE_HOME/app-run``,
i.e. ``~/.local/state/app-run``).
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from skill2app.runtime.app.document import Document, load_yaml, plain
from skill2app.runtime.app.model import TIERS
from skill2app.runtime.errors import ConfigError, LoadError, Where

DEFAULT_MODELS = {
    "lite": "claude-haiku-5-5",
    "standard": "claude-sonnet-5-5",
    "reasoning": "claude-opus-5-5",
}
DEFAULT_MAX_TOKENS = {"lite": 4096, "standard": 16000, "reasoning": 32000}
PROVIDERS = ("anthropic", "openai", "local", "scripted", "none")
STRATEGIES = ("embedded", "llm", "hybrid")  # how a request is routed (runtime/router.py)
KEYS = (
    "provider",
    "answers",
    "model_mapping",
    "max_tokens",
    "routing",
    "secrets",
    "openai",
    "learn",
)
# How the openai provider asks for JSON (providers/openai.py): auto tries them in this order.
OUTPUT_STYLES = ("auto", "json_schema", "json_object", "prompt")
OPENAI_KEYS = ("base_url", "api_key_env", "structured_output")
# APP_RUN_LEARN: whether confirmed requests are learned and used (routing/memory.py)
_SWITCH = {"1": True, "true": True, "yes": True, "on": True}
_SWITCH |= {"0": False, "false": False, "no": False, "off": False}
# The keys with a fixed set of values: the values, what one is called, its variable and flag.
_CHOICES = {
    "provider": (PROVIDERS, "provider", "APP_RUN_PROVIDER", "--provider"),
    "routing": (STRATEGIES, "routing strategy", "APP_RUN_ROUTING", "--strategy"),
}


@dataclass(frozen=True)
class OpenAISettings:
    """Where the ``openai`` provider sends requests (any OpenAI-compatible server)."""

    base_url: str | None = None  # None: OPENAI_BASE_URL, else https://api.openai.com/v1
    api_key_env: str = "OPENAI_API_KEY"  # the variable holding the key (local servers need none)
    structured_output: str = "auto"  # one of OUTPUT_STYLES


@dataclass(frozen=True)
class Config:
    provider: str = "none"
    answers: Path | None = None  # the scripted provider's answers file
    models: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_MODELS))
    max_tokens: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    routing: str = "embedded"  # embedded | llm | hybrid
    openai: OpenAISettings = field(default_factory=OpenAISettings)
    learn: bool = True  # keep and use the requests confirmed for a pipeline (routing/memory.py)
    sources: tuple[str, ...] = ()  # the files that were read, for `app-run config`
    # more input and variable names whose values are secret (besides secrets.SECRET_WORDS/PARTS)
    secrets: tuple[str, ...] = ()

    def model_for(self, tier: str) -> str:
        return self.models.get(tier, self.models["standard"])


def user_config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "app-run" / "config.yaml"


def state_home() -> Path:
    explicit = os.environ.get("APP_RUN_HOME")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "app-run"


def load_config(
    app_root: Path | None,
    *,
    provider: str | None = None,
    answers: str | None = None,
    routing: str | None = None,
    environ: dict[str, str] | None = None,
) -> Config:
    env = os.environ if environ is None else environ
    default_provider = "anthropic" if env.get("ANTHROPIC_API_KEY") else "none"
    config = Config(provider=default_provider)
    files = [user_config_path()]
    if app_root is not None:
        files.append(app_root / "app-run.yaml")
    if env.get("APP_RUN_CONFIG"):
        explicit = Path(env["APP_RUN_CONFIG"])
        if not explicit.is_file():
            what = "a folder" if explicit.is_dir() else "not there"
            raise ConfigError(
                f"APP_RUN_CONFIG names {explicit}, which is {what}",
                hint="name a config file, or unset APP_RUN_CONFIG",
            )
        files.append(explicit)
    for path in files:
        if path.is_file():
            config = _merge_file(config, path)
    config = _merge(config, _from_env(env), "environment")
    cli = {"provider": provider, "answers": answers, "routing": routing}
    for key, (allowed, what, _, flag) in _CHOICES.items():
        _check_choice(cli[key], allowed, what, f"{flag} ")
    config = _merge(config, {k: v for k, v in cli.items() if v}, "command line")
    _check_number(env, "APP_RUN_MAX_OUTPUT_MB", "megabytes a step may print on stdout; 0: no limit")
    _check_number(env, "APP_RUN_LOCAL_CONTEXT", "tokens of context for the local provider")
    return config


def _check_number(env: Any, name: str, meaning: str) -> None:
    """An environment variable read where it is used must still fail here, before a run."""
    value = env.get(name)
    if value is None:
        return
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not (math.isfinite(number) and number >= 0):  # negative, NaN, inf or not a number
        raise ConfigError(f"{name}={value!r} is not a number ≥ 0", hint=f"set it to the {meaning}")


def _check_choice(
    value: Any, allowed: tuple[str, ...], what: str, source: str, where: Where | None = None
) -> None:
    """``value`` (from ``source``: a flag, a variable, or a file's key at ``where``) is one of
    ``allowed``; a flag or variable that was not given (None) is not checked."""
    if (value is None and where is None) or (isinstance(value, str) and value in allowed):
        return
    shown = "null" if value is None else repr(value)
    if not isinstance(value, str) and value is not None:
        shown = f"{type(value).__name__} {shown}"
    raise ConfigError(
        f"{source}{shown} is not a {what}", where=where, hint=f"use one of {', '.join(allowed)}"
    )


def _from_env(env: Any) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for key, (allowed, what, variable, _) in _CHOICES.items():
        if env.get(variable):
            layer[key] = env[variable]
            _check_choice(layer[key], allowed, what, f"{variable}=")
    if env.get("APP_RUN_ANSWERS"):
        layer["answers"] = env["APP_RUN_ANSWERS"]
    if env.get("APP_RUN_LEARN"):
        switch = _SWITCH.get(env["APP_RUN_LEARN"].strip().lower())
        if switch is None:
            raise ConfigError(
                f"APP_RUN_LEARN={env['APP_RUN_LEARN']!r} is not a switch", hint="set it to 0 or 1"
            )
        layer["learn"] = switch
    models = {
        t: env[f"APP_RUN_MODEL_{t.upper()}"] for t in TIERS if env.get(f"APP_RUN_MODEL_{t.upper()}")
    }
    if models:
        layer["model_mapping"] = models
    if env.get("APP_RUN_OPENAI_BASE_URL"):
        url = env["APP_RUN_OPENAI_BASE_URL"]
        _check_url(url, "APP_RUN_OPENAI_BASE_URL=")
        layer["openai"] = {"base_url": url}
    return layer


def _merge_file(config: Config, path: Path) -> Config:
    try:
        doc = load_yaml(path)
    except LoadError as exc:  # a config file, not the APP, is broken: a usage error (exit 2)
        raise ConfigError(exc.message, where=exc.where, hint=exc.hint) from exc
    data = plain(doc.data) or {}
    if not isinstance(data, dict):
        raise ConfigError("config must be a mapping", where=doc.where())
    _check_file(data, doc)
    if data.get("answers"):
        data["answers"] = str((path.parent / str(data["answers"])).resolve())
    return _merge(config, data, str(path))


def _is_model_name(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_token_count(value: Any) -> bool:
    return type(value) is int and value > 0


# The config keys that map tiers to values: what a value must be, said, and an example.
_TIER_TABLES = {
    "model_mapping": (_is_model_name, "a model name", "claude-haiku-4-5"),
    "max_tokens": (_is_token_count, "a whole number of tokens above 0", "4096"),
}


def _check_file(data: dict[str, Any], doc: Document) -> None:
    """Every key of a config file known and every value usable, or a ConfigError at its line."""
    for key in data:
        if key not in KEYS:
            raise ConfigError(
                f"unknown config key {key!r}", where=doc.where(key), hint=f"use {', '.join(KEYS)}"
            )
    for key, (allowed, what, _, _) in _CHOICES.items():
        if key in data:
            _check_choice(data[key], allowed, what, f"{key}: ", doc.where(key))
    if "learn" in data and not isinstance(data["learn"], bool):
        raise ConfigError(
            f"learn: {data['learn']!r} is not true or false", where=doc.where("learn")
        )
    secrets = data.get("secrets")
    if "secrets" in data and not (
        isinstance(secrets, list) and all(isinstance(n, str) and n.strip() for n in secrets)
    ):
        raise ConfigError(
            "secrets must be a list of input or variable names",
            where=doc.where("secrets"),
            hint="e.g. secrets: [customer_number, STRIPE_ACCOUNT]",
        )
    if "openai" in data:
        _check_openai(data["openai"], doc)
    for key, (fits, meaning, example) in _TIER_TABLES.items():
        if key not in data:
            continue
        table = data[key]
        if not isinstance(table, dict) or set(table) - set(TIERS):
            raise ConfigError(
                f"{key} must map tiers ({', '.join(TIERS)}) to values", where=doc.where(key)
            )
        for tier, value in table.items():
            if not fits(value):
                raise ConfigError(
                    f"{key}.{tier} is {value!r}, not {meaning}",
                    where=doc.where(key, tier),
                    hint=f"e.g. {example}",
                )


def _check_openai(section: Any, doc: Document) -> None:
    """The ``openai:`` section: known keys, each value usable (ConfigError at its line)."""
    if not isinstance(section, dict):
        raise ConfigError(
            "openai must be a mapping",
            where=doc.where("openai"),
            hint="e.g. openai: {base_url: ...}",
        )
    for key, value in section.items():
        where = doc.where("openai", key)
        if key not in OPENAI_KEYS:
            raise ConfigError(
                f"unknown key openai.{key}", where=where, hint=f"use {', '.join(OPENAI_KEYS)}"
            )
        if key == "base_url":
            _check_url(value, "openai.base_url: ", where)
        elif key == "api_key_env" and not (
            isinstance(value, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value)
        ):
            raise ConfigError(
                f"openai.api_key_env: {value!r} is not the name of an environment variable",
                where=where,
                hint="name the variable that holds the key, e.g. OPENAI_API_KEY (not the key)",
            )
        elif key == "structured_output":
            _check_choice(value, OUTPUT_STYLES, "structured output style", f"{key}: ", where)


def _check_url(value: Any, source: str, where: Where | None = None) -> None:
    if not (isinstance(value, str) and re.fullmatch(r"https?://[^\s/]+(/\S*)?", value)):
        raise ConfigError(
            f"{source}{value!r} is not an http(s) URL",
            where=where,
            hint="e.g. http://127.0.0.1:11434/v1 (the server's OpenAI-compatible API root)",
        )


def _merge(config: Config, layer: dict[str, Any], source: str) -> Config:
    if not layer:
        return config
    changes: dict[str, Any] = {"sources": (*config.sources, source)}
    if "provider" in layer:
        changes["provider"] = str(layer["provider"])
    if "routing" in layer:
        changes["routing"] = str(layer["routing"])
    if "learn" in layer:
        changes["learn"] = bool(layer["learn"])
    if "answers" in layer:
        changes["answers"] = Path(str(layer["answers"]))
    if "model_mapping" in layer:
        changes["models"] = {
            **config.models,
            **{k: str(v) for k, v in layer["model_mapping"].items()},
        }
    if "secrets" in layer:
        changes["secrets"] = (*config.secrets, *(str(n) for n in layer["secrets"]))
    if "openai" in layer:
        changes["openai"] = replace(
            config.openai, **{k: str(v) for k, v in layer["openai"].items()}
        )
    if "max_tokens" in layer:
        changes["max_tokens"] = {
            **config.max_tokens,
            **{k: int(v) for k, v in layer["max_tokens"].items()},
        }
    return replace(config, **changes)
