"""Runtime configuration: built-in defaults < user file (XDG_CONFIG_HOME) < the APP's
app-run.yaml < APP_RUN_CONFIG < environment < command-line flags."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import assert_run, invoke, make_app, write_tree

from skill2app.runtime.app.config import DEFAULT_MODELS, load_config, user_config_path
from skill2app.runtime.errors import ConfigError

pytestmark = pytest.mark.usefixtures("runtime_env")


@pytest.fixture
def layers(tmp_path: Path) -> dict[str, Path]:
    user = Path(os.environ["XDG_CONFIG_HOME"]) / "app-run"
    app = tmp_path / "app"
    explicit = tmp_path / "explicit"
    write_tree(
        user,
        {
            "config.yaml": {
                "provider": "scripted",
                "answers": "user.yaml",
                "model_mapping": {"lite": "user-lite", "standard": "user-std", "reasoning": "u-r"},
                "max_tokens": {"lite": 100},
            }
        },
    )
    write_tree(
        app,
        {
            "app-run.yaml": {
                "answers": "app.yaml",
                "model_mapping": {"lite": "app-lite", "standard": "app-std"},
            }
        },
    )
    write_tree(
        explicit,
        {"c.yaml": {"answers": "explicit.yaml", "model_mapping": {"lite": "explicit-lite"}}},
    )
    return {"user": user, "app": app, "explicit": explicit}


def test_defaults(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert (config.provider, config.answers, config.models) == ("none", None, DEFAULT_MODELS)
    assert config.sources == ()


def test_an_anthropic_key_makes_anthropic_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    assert load_config(tmp_path).provider == "anthropic"


def test_user_config_lives_under_xdg_config_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", "/somewhere")
    assert user_config_path() == Path("/somewhere/app-run/config.yaml")


def test_each_layer_overrides_the_one_before(
    layers: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    user, app, explicit = layers["user"], layers["app"], layers["explicit"]

    config = load_config(app.parent / "not-that-app")  # the user file alone
    assert config.provider == "scripted"
    assert config.answers == user / "user.yaml"  # relative to the file that names it
    assert config.models == {"lite": "user-lite", "standard": "user-std", "reasoning": "u-r"}
    assert config.max_tokens["lite"] == 100

    config = load_config(app)
    assert config.answers == app / "app.yaml"
    assert config.models == {"lite": "app-lite", "standard": "app-std", "reasoning": "u-r"}

    monkeypatch.setenv("APP_RUN_CONFIG", str(explicit / "c.yaml"))
    config = load_config(app)
    assert config.answers == explicit / "explicit.yaml"
    assert config.models == {"lite": "explicit-lite", "standard": "app-std", "reasoning": "u-r"}

    monkeypatch.setenv("APP_RUN_MODEL_LITE", "env-lite")
    monkeypatch.setenv("APP_RUN_MODEL_REASONING", "env-r")
    monkeypatch.setenv("APP_RUN_ANSWERS", "env.yaml")
    monkeypatch.setenv("APP_RUN_PROVIDER", "none")
    config = load_config(app)
    assert (config.provider, config.answers) == ("none", Path("env.yaml"))
    assert config.models == {"lite": "env-lite", "standard": "app-std", "reasoning": "env-r"}

    config = load_config(app, provider="scripted", answers="cli.yaml")
    assert (config.provider, config.answers) == ("scripted", Path("cli.yaml"))
    assert config.models["lite"] == "env-lite"
    assert config.sources == (
        str(user / "config.yaml"),
        str(app / "app-run.yaml"),
        str(explicit / "c.yaml"),
        "environment",
        "command line",
    )
    assert config.model_for("reasoning") == "env-r"


def test_the_apps_config_file_is_used_by_run(tmp_path: Path) -> None:
    app = make_app(
        tmp_path / "app",
        {"ask": [{"name": "say", "type": "llm", "prompt": "Hi"}]},
        {
            "app-run.yaml": {"provider": "scripted", "answers": "answers.yaml"},
            "answers.yaml": {"answers": {"ask/say": [{"$text": "from the APP's config"}]}},
        },
    )
    data, _ = assert_run(invoke("run", app, "ask", "--json"), status="succeeded", ran=["ask/say"])
    assert data["output"] == "from the APP's config"


@pytest.mark.parametrize(
    ("content", "expected_error"),
    [
        (
            "provider: scripted\nmodle_mapping:\n  lite: x\n",
            "Error: unknown config key 'modle_mapping' ({file}:2) — use provider, answers, ",
        ),
        (
            "model_mapping:\n  huge: x\n",
            "Error: model_mapping must map tiers (lite, standard, reasoning) to values ({file}:1)",
        ),
        ("- a\n- b\n", "Error: config must be a mapping ({file}:1)"),
        (
            "provider: scripted\nprovider: none\n",
            'Error: invalid YAML: found duplicate key "provider" with value "none" '
            '(original value: "scripted") ({file}:2)',
        ),
        (
            "routing: bogus\n",
            "Error: routing: 'bogus' is not a routing strategy ({file}:1) — use one of embedded, "
            "llm, hybrid",
        ),
        ("routing:\n", "Error: routing: null is not a routing strategy ({file}:1)"),
        ("provider: 3\n", "Error: provider: int 3 is not a provider ({file}:1)"),
        (
            "max_tokens:\n  lite: 100\n  standard: lots\n",
            "Error: max_tokens.standard is 'lots', not a whole number of tokens above 0 ({file}:3)"
            " — e.g. 4096",
        ),
        ("max_tokens:\n  lite: 0\n", "Error: max_tokens.lite is 0, not a whole number"),
        ("max_tokens:\n", "Error: max_tokens must map tiers (lite, standard, reasoning) to values"),
        ("model_mapping:\n  lite: [a]\n", "Error: model_mapping.lite is ['a'], not a model name"),
    ],
    ids=[
        "unknown-key",
        "unknown-tier",
        "not-a-mapping",
        "bad-yaml",
        "unknown-strategy",
        "null-strategy",
        "provider-not-text",
        "tokens-not-a-number",
        "tokens-zero",
        "tokens-empty",
        "model-not-text",
    ],
)
def test_a_bad_config_file_is_a_usage_error_with_its_line(
    tmp_path: Path, content: str, expected_error: str, runtime_env: Path
) -> None:
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    (app / "app-run.yaml").write_text(content)
    result = invoke("run", app, "hello")
    assert result.exit_code == 2
    assert result.stderr.startswith(expected_error.format(file=app / "app-run.yaml"))
    assert list(runtime_env.iterdir()) == []


@pytest.mark.parametrize(
    ("variable", "value", "expected_error"),
    [
        ("APP_RUN_ROUTING", "bogus", "Error: APP_RUN_ROUTING='bogus' is not a routing strategy"),
        ("APP_RUN_PROVIDER", "openia", "Error: APP_RUN_PROVIDER='openia' is not a provider"),
    ],
)
def test_a_bad_variable_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str, expected_error: str
) -> None:
    monkeypatch.setenv(variable, value)
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    result = invoke("route", app, "say hello")
    assert result.exit_code == 2
    assert result.stderr.startswith(expected_error + " — use one of ")


def test_a_bad_flag_is_named(tmp_path: Path) -> None:
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    result = invoke("route", app, "say hello", "--strategy", "bogus")
    assert (result.exit_code, result.stderr) == (
        2,
        "Error: --strategy 'bogus' is not a routing strategy — use one of embedded, llm, hybrid\n",
    )


def test_config_errors_exit_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, provider="openia")
    assert caught.value.exit_code == 2
    monkeypatch.setenv("APP_RUN_CONFIG", str(tmp_path / "missing.yaml"))
    app = make_app(tmp_path / "app", {"hello": [{"name": "a", "type": "code", "command": "true"}]})
    result = invoke("run", app, "hello")
    fix = " — name a config file, or unset APP_RUN_CONFIG\n"
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: APP_RUN_CONFIG names {tmp_path / 'missing.yaml'}, which is not there{fix}",
    )
    monkeypatch.setenv("APP_RUN_CONFIG", str(tmp_path))
    result = invoke("run", app, "hello")
    assert (result.exit_code, result.stderr) == (
        2,
        f"Error: APP_RUN_CONFIG names {tmp_path}, which is a folder{fix}",
    )


def test_answers_given_relative_on_the_command_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app = make_app(
        tmp_path / "app",
        {"ask": [{"name": "say", "type": "llm", "prompt": "Hi"}]},
        {"answers.yaml": {"answers": {"say": [{"$text": "relative to the cwd"}]}}},
    )
    monkeypatch.chdir(app)
    result = invoke("run", ".", "ask", "--provider", "scripted", "--answers", "answers.yaml")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == "relative to the cwd"
