#!/usr/bin/env python3
"""Step `process` of pipeline `hello` (a code step, APP v0.4 §4.1).

The runner writes one JSON object to stdin,
    {"input": {...pipeline input...}, "steps": {"<step>": {"output": ...}, ...}}
and this script prints one JSON object to stdout: {"output": <any JSON value>}.
Exit non-zero to stop the pipeline; print diagnostics to stderr, never to stdout.
The working directory is the pipeline folder; $APP_ROOT, $APP_PIPELINE_DIR and
$APP_TOOLS_DIR name the APP folder, this pipeline's folder and the shared tools/.
"""

import json
import sys


def main() -> int:
    payload = json.load(sys.stdin)
    inputs = payload.get("input") or {}

    # TODO(app-new): replace this placeholder with the real work of step `process`.
    #   The pipeline declares no input; add parameters under `input:` in pipeline.yaml.
    #   This is the first step: payload["steps"] is empty.
    #   Return the JSON value the next steps need (the shape is up to you).
    output = {
        "step": "process",
        "placeholder": True,
        "input": inputs,
    }
    json.dump({"output": output}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
