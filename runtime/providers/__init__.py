"""LLM providers behind one small interface (``base.Provider``).

``anthropic`` calls the real API through the official SDK (imported only when a call is made);
``openai`` any OpenAI-compatible server (Ollama, vLLM, llama.cpp, LM Studio; an optional extra);
``local`` runs a GGUF model on this machine (llama-cpp-python, an optional extra);
``scripted`` replays answers from a file.  ``none`` means no provider: an llm step then fails
with a message naming what to set.
"""

from __future__ import annotations

from skill2app.runtime.app.config import Config
from skill2app.runtime.errors import ConfigError
from skill2app.runtime.providers.base import LlmRequest, LlmResponse, Provider

__all__ = ["LlmRequest", "LlmResponse", "Provider", "make_provider"]


def make_provider(config: Config) -> Provider | None:
    if config.provider == "scripted":
        from skill2app.runtime.providers.scripted import ScriptedProvider

        if config.answers is None:
            raise ConfigError(
                "the scripted provider needs an answers file",
                hint="pass --answers FILE or set answers: in app-run.yaml",
            )
        return ScriptedProvider.from_file(config.answers)
    if config.provider == "anthropic":
        from skill2app.runtime.providers.anthropic import AnthropicProvider

        return AnthropicProvider()
    if config.provider == "openai":
        from skill2app.runtime.providers.openai import OpenAIProvider

        settings = config.openai
        return OpenAIProvider(
            base_url=settings.base_url,
            api_key_env=settings.api_key_env,
            structured_output=settings.structured_output,
        )
    if config.provider == "local":
        from skill2app.runtime.providers.local import LocalProvider

        return LocalProvider()
    return None
