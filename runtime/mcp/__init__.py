"""`app-run mcp`: APPs as MCP tools (the optional ``mcp`` extra; imported only by that command).

catalog (pipelines -> tools) · bridge (a call's run on a worker thread) · jobs (what a call
runs) · sampling (llm steps answered by the client's model) · results (tool results) ·
prompts (SKILL.md as a prompt, routing tables as resources) · server (the handlers, stdio and
streamable HTTP).
"""
