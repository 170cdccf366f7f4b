"""The ``openai`` provider: any OpenAI-compatible chat-completions server — OpenAI itself,
Ollama, vLLM, llama.cpp's ``llama-server``, llama-cpp-python's server, LM Studio.

Optional: ``pip install 'skill2app[openai]'`` (the official SDK; imported on the first call,
never when this module is imported).  ``POST {base_url}/chat/completions``; the key comes from
the environment variable the config names (``OPENAI_API_KEY`` by default; a local server
takes any key, so none is needed).

* Structured output.  Servers differ, so the first structured call to an endpoint tries, in
  order, until one is accepted (``STYLES``): ``response_format`` ``json_schema`` (``strict``
  when the schema allows it: every object closed and all its properties required), then
  ``json_object`` with the schema alongside (llama-cpp-python turns it into a grammar; the
  others read it in the prompt), then plain ``json_object``, then the schema in the prompt
  alone.  A refused style (an error naming ``response_format``, ``json_schema`` or a grammar —
  llama-cpp-python answers a 500) costs one request without retries, and is remembered for the
  endpoint for the rest of the process.  The answer is always checked locally against the full
  schema by the runner, whatever the server promised.
* Retries: the SDK retries 429, 408, 409, 5xx and lost connections with backoff
  (``max_retries``, default 2; it honours ``Retry-After``).  Errors are one line, as the
  Anthropic provider's: what happened, the status, what to do.
* ``converse`` is the agent loop's turn (tool use), taking and giving the Anthropic-shaped
  messages ``host.agent`` speaks; ``messages`` converts them.
* Extended thinking is not requested: OpenAI-compatible servers have no common switch for it.
"""

from __future__ import annotations

import json
import os
import re
from types import ModuleType
from typing import Any, ClassVar

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.providers.anthropic import parse_json_answer
from skill2app.runtime.providers.base import LlmRequest, LlmResponse
from skill2app.runtime.providers.openai_messages import (
    anthropic_turn,
    openai_messages,
    openai_tools,
)

OPENAI_URL = "https://api.openai.com/v1"
STYLES = ("json_schema", "json_object_schema", "json_object", "prompt")
# config's structured_output -> the styles it allows, in the order they are tried
ALLOWED = {
    "auto": STYLES,
    "json_schema": ("json_schema",),
    "json_object": ("json_object_schema", "json_object"),
    "prompt": ("prompt",),
}
# An error that means "this server does not take that response_format" (not a broken request).
_REFUSED_FORMAT = re.compile(r"response_format|json[ _]schema|json_object|grammar", re.IGNORECASE)
_RETRIED = {408, 409, 429}  # and every status from 500: what the SDK retries
_STATUS_HELP: dict[int, tuple[str, str]] = {
    400: ("{api} rejected the request", "check the model name, max_tokens and schema"),
    401: ("{api} rejected the API key", "check {key}"),
    403: ("{api} does not let this key do that", "check the key's project and model access"),
    404: (
        "{api} does not know model {model!r} (or this path)",
        "set model_mapping in app-run.yaml to models it serves (the openai provider has no "
        "default model names), and check openai.base_url (it usually ends in /v1)",
    ),
    413: ("the request is too large for {api}", "shorten the prompt"),
    422: ("{api} rejected the request", "check the model name, max_tokens and schema"),
    429: ("{api} rate limit reached", "wait a minute and run again, or lower parallelism"),
}


class OpenAIProvider:
    name = "openai"
    # The structured-output style each endpoint (base URL) took, learnt once per process: a
    # server that refuses json_schema is not asked with it again.  Shared by every instance.
    styles: ClassVar[dict[str, int]] = {}

    def __init__(
        self,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: str | None = None,
        structured_output: str = "auto",
        http_client: Any = None,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> None:
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_URL).rstrip("/")
        self.api_key_env = api_key_env
        self.api_key = api_key
        self.allowed = ALLOWED.get(structured_output, STYLES)
        self.http_client = http_client  # an httpx2.Client; tests pass one with a MockTransport
        self.timeout = timeout
        self.max_retries = max_retries
        self._sdk: ModuleType | None = None
        self._client: Any = None

    @property
    def api(self) -> str:
        """How errors name the server."""
        if self.base_url == OPENAI_URL:
            return "OpenAI API"
        return f"the OpenAI-compatible server at {self.base_url}"

    def complete(self, request: LlmRequest) -> LlmResponse:
        params: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": openai_messages(request.system, [_user(request.prompt)]),
        }
        if request.schema is None:
            completion = self._send(params, request.model)
        else:
            completion = self._structured(params, request, request.schema)
        choice = completion.choices[0]
        _refused(choice)
        text = choice.message.content or ""
        model = str(getattr(completion, "model", "") or request.model)
        response = LlmResponse(text=text, model=model, usage=_usage(completion))
        if request.schema is None:
            return response
        if choice.finish_reason == "length":
            raise ProviderError(
                f"the answer to step {request.step or '?'} was cut off at "
                f"max_tokens={request.max_tokens} (finish_reason: length) before the JSON ended",
                hint="raise max_tokens for this step's tier in app-run.yaml",
            )
        response.data = parse_json_answer(text)
        return response

    def converse(
        self,
        *,
        system: str | None,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]],
        model: str,
        max_tokens: int,
    ) -> dict[str, Any]:
        """One turn of a tool-use conversation (Anthropic-shaped in and out, as ``agent``)."""
        params: dict[str, Any] = {
            "model": model,
            "max_tokens": max_tokens,
            "messages": openai_messages(system, messages),
        }
        if tools:
            params["tools"] = openai_tools(tools)
            params["tool_choice"] = "auto"
        completion = self._send(params, model)
        choice = completion.choices[0]
        _refused(choice)
        return anthropic_turn(choice, _usage(completion))

    # --- structured output ------------------------------------------------------------------

    def _structured(self, params: dict[str, Any], request: LlmRequest, schema: dict) -> Any:
        """The completion in the first style this endpoint takes (learnt, then remembered)."""
        known = self.styles.get(self.base_url)
        order = [s for s in STYLES if s in self.allowed]
        if known is not None and STYLES[known] in order:
            order = order[order.index(STYLES[known]) :]
        for position, style in enumerate(order):
            last = position == len(order) - 1
            asked = {**params, **_style_params(style, params, request, schema)}
            trusted = last or self.styles.get(self.base_url) == STYLES.index(style)
            try:
                completion = self._send(asked, request.model, probe=not trusted)
            except _Refused:
                continue  # not this style: the next one
            self.styles[self.base_url] = STYLES.index(style)
            return completion
        raise AssertionError("the last style is never refused")  # pragma: no cover

    # --- the call ---------------------------------------------------------------------------

    def _send(self, params: dict[str, Any], model: str, *, probe: bool = False) -> Any:
        """One chat completion.  A ``probe`` goes out without retries: a refused style is
        raised as ``_Refused``; any other retryable failure is then sent again with them."""
        client = self._get_client()
        sdk = self._sdk
        assert sdk is not None
        try:
            if probe:
                try:
                    return client.with_options(max_retries=0).chat.completions.create(**params)
                except sdk.APIStatusError as err:
                    if _REFUSED_FORMAT.search(_error_text(err)) and err.status_code >= 400:
                        raise _Refused from err
                    if err.status_code not in _RETRIED and err.status_code < 500:
                        raise
                except sdk.APIConnectionError:
                    pass  # retried below, with the SDK's backoff
            return client.chat.completions.create(**params)
        except sdk.APIError as err:
            raise self._error(err, sdk, model) from err

    def _get_client(self) -> Any:
        if self._client is not None:
            return self._client
        try:
            import openai  # slow: deferred until the first call
        except ImportError as exc:
            raise ProviderNotConfigured(
                "the openai provider needs the openai package, which is not installed",
                hint="pip install 'skill2app[openai]'",
            ) from exc
        import httpx2

        key = self.api_key or os.environ.get(self.api_key_env) or "no-key"  # local: any key
        self._sdk = openai
        self._client = openai.OpenAI(
            api_key=key,
            base_url=self.base_url,
            http_client=self.http_client,
            timeout=httpx2.Timeout(self.timeout, connect=5.0),
            max_retries=self.max_retries,
        )
        return self._client

    def _error(self, err: Exception, sdk: ModuleType, model: str) -> ProviderError:
        """One readable line for an SDK error: what happened, its status, what to do."""
        api = self.api
        if isinstance(err, sdk.APITimeoutError):
            return ProviderError(
                f"{api} did not answer in time",
                hint="run again; a slow local model may need a lower max_tokens",
            )
        if isinstance(err, sdk.APIConnectionError):
            return ProviderError(
                f"cannot reach {api}",
                hint="is the server running? check openai.base_url in app-run.yaml "
                "(or APP_RUN_OPENAI_BASE_URL)",
            )
        status = int(getattr(err, "status_code", 0) or 0)
        what, fix = _STATUS_HELP.get(status, ("{api} failed", "try again later; see its log"))
        what = what.format(api=api, model=model)
        fix = fix.format(key=self.api_key_env)
        if status in _RETRIED or status >= 500:
            retries = self.max_retries
            what += f" ({status}, after {retries} retr{'y' if retries == 1 else 'ies'})"
        else:
            what += f" ({status})"
        detail = " ".join(_error_text(err, body_only=True).split())
        if detail and status not in (401, 429):
            what += f": {detail[:200]}"
        return ProviderError(what[:1].upper() + what[1:], hint=fix)


class _Refused(Exception):
    """The server does not take the structured-output style it was asked for."""


def strict_allowed(schema: Any) -> bool:
    """Whether OpenAI's strict mode can enforce ``schema`` as written: every object lists all
    its properties as required and admits no others (strict mode demands both)."""
    if isinstance(schema, list):
        return all(strict_allowed(item) for item in schema)
    if not isinstance(schema, dict):
        return True
    properties = schema.get("properties")
    if properties is not None or schema.get("type") == "object":
        if schema.get("additionalProperties") is not False:
            return False
        if set(schema.get("required") or ()) != set(properties or {}):
            return False
    return all(strict_allowed(value) for value in schema.values() if isinstance(value, dict | list))


def _style_params(
    style: str, params: dict[str, Any], request: LlmRequest, schema: dict
) -> dict[str, Any]:
    """The request parameters that ask for JSON in ``style``."""
    if style == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", request.step or "answer")[:64] or "answer"
        spec = {"name": name, "schema": schema, "strict": strict_allowed(schema)}
        return {"response_format": {"type": "json_schema", "json_schema": spec}}
    note = (
        "\n\nAnswer with only a JSON value (no prose, no code fence) that matches this "
        f"JSON Schema:\n{json.dumps(schema, ensure_ascii=False)}"
    )
    messages = [dict(m) for m in params["messages"]]
    messages[-1]["content"] = str(messages[-1]["content"]) + note
    if style == "json_object_schema":
        return {"messages": messages, "response_format": {"type": "json_object", "schema": schema}}
    if style == "json_object":
        return {"messages": messages, "response_format": {"type": "json_object"}}
    return {"messages": messages}


def _user(prompt: str) -> dict[str, Any]:
    return {"role": "user", "content": prompt}


def _refused(choice: Any) -> None:
    refusal = getattr(choice.message, "refusal", None)
    if refusal or choice.finish_reason == "content_filter":
        said = f": {' '.join(str(refusal).split())[:200]}" if refusal else " (content_filter)"
        raise ProviderError(
            f"the model declined to answer{said}",
            hint="rephrase the prompt, or check what the step's inputs put into it",
        )


def _usage(completion: Any) -> dict[str, int]:
    usage = getattr(completion, "usage", None)
    return {
        "input_tokens": int(getattr(usage, "prompt_tokens", 0) or 0),
        "output_tokens": int(getattr(usage, "completion_tokens", 0) or 0),
    }


def _error_text(err: Any, body_only: bool = False) -> str:
    """What the server said: its error message (the body's error.message), else the body."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
        text = message if isinstance(message, str) else json.dumps(body, ensure_ascii=False)
    else:
        text = str(body or "")
    return text if body_only else f"{text} {getattr(err, 'message', '')}"
