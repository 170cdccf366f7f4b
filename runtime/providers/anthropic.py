"""The Anthropic provider: one Messages API call per ``LlmRequest``.

``import anthropic`` is slow (the SDK pulls in pydantic, httpx2 and its generated types), so
the SDK is imported on the first call, never when this module is imported.

* Structured output goes in ``output_config={"format": {"type": "json_schema", ...}}``. The API
  rejects (400) constraints it cannot enforce, such as ``minimum`` or ``minLength``, so the
  schema is sent through the SDK's ``transform_schema`` (which moves them into descriptions);
  the runner always re-validates the answer against the full original schema.  The answer's
  text is parsed here (```json fences tolerated).
* ``request.thinking`` turns on extended thinking: ``{"type": "adaptive"}`` on models that
  accept it (Opus/Sonnet 4.6 and newer), ``{"type": "enabled", "budget_tokens": N}`` on the
  older models that only accept a budget.  Thinking blocks never reach the answer.
* Thinking calls and calls with a large ``max_tokens`` are streamed: the SDK refuses
  non-streaming requests it expects to run longer than ten minutes.
"""

from __future__ import annotations

import json
import os
import re
from types import ModuleType
from typing import Any

from skill2app.runtime.errors import ProviderError, ProviderNotConfigured
from skill2app.runtime.providers.base import LlmRequest, LlmResponse
from skill2app.runtime.run.fence import read_answer

STREAM_ABOVE_MAX_TOKENS = 16_000  # the SDK refuses non-streaming calls above ~21k max_tokens
MIN_THINKING_BUDGET = 1024  # the API's floor for budget_tokens
# Models that predate adaptive thinking and accept only {"type": "enabled", "budget_tokens": N}.
_BUDGET_ONLY_MODELS = re.compile(
    r"claude-(3-7-sonnet|haiku-4-5|opus-4-[015](?!\d)|sonnet-4-[05](?!\d)|(opus|sonnet)-4-\d{8})"
)
_CUT_OFF = ("max_tokens", "model_context_window_exceeded")
# What an error status means for the user: (what went wrong, how to fix it).
_STATUS_HELP: dict[int, tuple[str, str]] = {
    400: ("Anthropic API rejected the request", "check the model name, max_tokens and schema"),
    401: ("Anthropic API key is rejected", "check ANTHROPIC_API_KEY"),
    403: ("Anthropic API key may not use this", "check the key's workspace and model access"),
    404: ("Anthropic API does not know this model", "check model_mapping in app-run.yaml"),
    413: ("request is too large for the Anthropic API", "shorten the prompt"),
    429: ("Anthropic API rate limit reached", "wait a minute and run again, or lower parallelism"),
    529: ("Anthropic API is overloaded", "try again in a few minutes"),
}
# In-stream errors arrive on a 200 response; their body's error.type names the real status.
_TYPE_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}


class AnthropicProvider:
    name = "anthropic"

    def __init__(
        self,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        http_client: Any = None,
        timeout: float = 600.0,
        max_retries: int = 2,
    ) -> None:
        self.api_key = api_key
        self.base_url = base_url
        self.http_client = http_client  # an httpx2.Client; tests pass one with a MockTransport
        self.timeout = timeout
        self.max_retries = max_retries
        self._sdk: ModuleType | None = None
        self._client: Any = None

    def complete(self, request: LlmRequest) -> LlmResponse:
        params: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": [{"role": "user", "content": request.prompt}],
        }
        if request.system:
            params["system"] = request.system
        if request.schema is not None:
            self._get_client()  # loads the SDK (and checks the key) before the schema rewrite
            schema = api_schema(self._sdk, request.schema)
            params["output_config"] = {"format": {"type": "json_schema", "schema": schema}}
        if request.thinking:
            params["thinking"] = thinking_config(request.model, request.max_tokens)
        message = self._send(params, stream=request.thinking)
        if message.stop_reason == "refusal":
            raise ProviderError(
                "the model declined to answer (stop_reason: refusal)",
                hint="rephrase the prompt, or check what the step's inputs put into it",
            )
        text = "".join(block.text for block in message.content if block.type == "text")
        response = LlmResponse(text=text, model=message.model, usage=_usage(message))
        if request.schema is None:
            return response
        if message.stop_reason in _CUT_OFF:
            raise ProviderError(
                f"the answer to step {request.step or '?'} was cut off at "
                f"max_tokens={request.max_tokens} ({message.stop_reason}) before the JSON ended",
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
        """One turn of a tool-use conversation; the answer as plain dicts, ready to send back."""
        params: dict[str, Any] = {"model": model, "max_tokens": max_tokens, "messages": messages}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = tools
        message = self._send(params, stream=False)
        return {
            "content": [block.to_dict(mode="json") for block in message.content],
            "stop_reason": message.stop_reason,
            "usage": _usage(message),
        }

    def _send(self, params: dict[str, Any], *, stream: bool) -> Any:
        """One Messages API call (streamed when asked or when it may be long): the final Message."""
        client = self._get_client()
        sdk = self._sdk
        assert sdk is not None
        # Models the SDK refuses to call without streaming above a lower max_tokens.
        limits: dict[str, int] = getattr(
            getattr(sdk, "_constants", None), "MODEL_NONSTREAMING_TOKENS", {}
        )
        max_tokens = params["max_tokens"]
        if max_tokens > min(STREAM_ABOVE_MAX_TOKENS, limits.get(params["model"], max_tokens)):
            stream = True
        try:
            if stream:
                with client.messages.stream(**params) as events:
                    return events.get_final_message()
            return client.messages.create(**params)
        except sdk.APIError as err:
            raise _provider_error(err, sdk, self.max_retries) from err

    def _get_client(self) -> Any:
        if self._client is not None:
            return self._client
        key = self.api_key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ProviderNotConfigured(
                "no Anthropic API key",
                hint="set ANTHROPIC_API_KEY or choose provider: scripted in app-run.yaml",
            )
        import anthropic  # slow: deferred until the first call
        import httpx2

        self._sdk = anthropic
        self._client = anthropic.Anthropic(
            api_key=key,
            base_url=self.base_url,
            http_client=self.http_client,
            timeout=httpx2.Timeout(self.timeout, connect=5.0),
            max_retries=self.max_retries,
        )
        return self._client


def thinking_config(model: str, max_tokens: int) -> dict[str, Any]:
    """The ``thinking`` parameter for ``model``: adaptive where accepted, else a token budget."""
    if not _BUDGET_ONLY_MODELS.search(model):
        return {"type": "adaptive"}
    budget = max(MIN_THINKING_BUDGET, max_tokens // 2)
    if budget >= max_tokens:
        raise ProviderError(
            f"max_tokens={max_tokens} leaves no room for extended thinking on {model}",
            hint=f"raise max_tokens for the reasoning tier above {2 * MIN_THINKING_BUDGET}",
        )
    return {"type": "enabled", "budget_tokens": budget}


def parse_json_answer(text: str) -> Any:
    """The JSON in ``text`` (```json fences stripped), or None when it is not JSON."""
    try:
        return read_answer(text, json.loads)
    except (ValueError, RecursionError):
        return None  # the runner's schema check reports it and retries


def _usage(message: Any) -> dict[str, int]:
    return {
        "input_tokens": message.usage.input_tokens,
        "output_tokens": message.usage.output_tokens,
    }


def _provider_error(err: Exception, sdk: ModuleType, retries: int) -> ProviderError:
    """One readable line for an SDK error: what happened, its status, what to do."""
    if isinstance(err, sdk.APITimeoutError):
        return ProviderError(
            "the Anthropic API did not answer in time",
            hint="run again, or raise the provider timeout in app-run.yaml",
        )
    if isinstance(err, sdk.APIConnectionError):
        return ProviderError(
            "cannot reach the Anthropic API",
            hint="check the network connection and ANTHROPIC_BASE_URL",
        )
    status = getattr(err, "status_code", 0)
    if status < 400:  # an error event inside a 200 stream
        status = _TYPE_STATUS.get(str(getattr(err, "type", "")), 500)
    what, fix = _STATUS_HELP.get(status, ("Anthropic API failed", "try again later"))
    if status == 429 or status >= 500:
        what += f" ({status}, after {retries} retr{'y' if retries == 1 else 'ies'})"
    else:
        what += f" ({status})"
    detail = " ".join(str(getattr(err, "api_message", "") or "").split())
    if detail and status not in (401, 429, 529):
        what += f": {detail[:200]}"
    return ProviderError(what, hint=fix)


def api_schema(sdk: ModuleType | None, schema: dict[str, Any]) -> dict[str, Any]:
    """The schema in the form the API accepts: rewritten by the SDK's ``transform_schema``, a
    type list (``"type": ["string", "null"]``, which it rejects) first spelled as ``anyOf``.
    A schema the SDK still cannot rewrite (an llm step's schema is the user's) is sent as it
    is: the API then accepts it, or its 400 names the problem — never an internal error."""
    if sdk is None:
        return schema
    try:
        return dict(sdk.transform_schema(_type_lists_as_any_of(schema)))
    except Exception:  # any failure of the SDK's rewrite (it even asserts): send the original
        return schema


_SUBSCHEMA = ("items", "additionalProperties", "not", "if", "then", "else", "contains")
_SUBSCHEMAS = ("anyOf", "oneOf", "allOf", "prefixItems")
_SUBSCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions")
_NUMERIC = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
# The keywords that apply to one type only: each goes to that type's branch of a type list.
_TYPE_KEYWORDS = {
    "string": {"minLength", "maxLength", "pattern", "format"},
    "integer": _NUMERIC,
    "number": _NUMERIC,
    "array": {"items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"},
    "object": {
        "properties",
        "required",
        "additionalProperties",
        "patternProperties",
        "minProperties",
        "maxProperties",
        "propertyNames",
    },
}
_TYPED = set().union(*_TYPE_KEYWORDS.values())


def _type_lists_as_any_of(schema: Any) -> Any:
    """``{"type": [A, B], ...}`` -> ``{"anyOf": [{"type": A, ...}, {"type": B, ...}]}`` in
    every subschema, each branch with the keywords that apply to its type (the same meaning)."""
    if not isinstance(schema, dict):
        return schema
    node = dict(schema)
    for key in _SUBSCHEMA:
        if key in node:
            node[key] = _type_lists_as_any_of(node[key])
    for key in _SUBSCHEMAS:
        if isinstance(node.get(key), list):
            node[key] = [_type_lists_as_any_of(item) for item in node[key]]
    for key in _SUBSCHEMA_MAPS:
        if isinstance(node.get(key), dict):
            node[key] = {k: _type_lists_as_any_of(v) for k, v in node[key].items()}
    types = node.get("type")
    if not isinstance(types, list) or not types or "anyOf" in node:
        return node
    outer = {k: node.pop(k) for k in ("description", "title") if k in node}
    del node["type"]
    branches = [
        {
            **{k: v for k, v in node.items() if k not in _TYPED or k in _TYPE_KEYWORDS.get(t, ())},
            "type": t,
        }
        for t in types
    ]
    return {**outer, "anyOf": branches}
