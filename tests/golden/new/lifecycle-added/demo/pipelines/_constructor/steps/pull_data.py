#!/usr/bin/env python3
"""Step `pull_data` of pipeline `_constructor` (a code step, APP v0.4 §4.1).

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
    steps = payload.get("steps") or {}
    previous = (steps.get("check_environment") or {}).get("output")

    # TODO(app-new): replace this placeholder with the real work of step `pull_data`.
    #   The pipeline declares no input; add parameters under `input:` in pipeline.yaml.
    #   `previous` is the output of step `check_environment`;
    #   steps[name]["output"] is the output of any earlier step.
    #   Return the JSON value the next steps need (the shape is up to you).
    output = {
        "step": "pull_data",
        "placeholder": True,
        "input": inputs,
        "previous": previous,
    }
    json.dump({"output": output}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
