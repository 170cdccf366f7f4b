#!/usr/bin/env python3
"""Step `gen_report` of pipeline `code-review` (a code step, APP v0.4 §4.1).

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
    previous = (steps.get("calc_stats") or {}).get("output")

    # TODO(app-new): replace this placeholder with the real work of step `gen_report`.
    #   inputs["repo"] is the pipeline input `repo` (string).
    #   inputs["pr_number"] is the pipeline input `pr_number` (integer).
    #   inputs["strict"] is the pipeline input `strict` (boolean).
    #   inputs["ratio"] is the pipeline input `ratio` (number).
    #   inputs["paths"] is the pipeline input `paths` (array).
    #   inputs["options"] is the pipeline input `options` (object).
    #   `previous` is the output of step `calc_stats`;
    #   steps[name]["output"] is the output of any earlier step.
    #   Return the JSON value the next steps need (the shape is up to you).
    output = {
        "step": "gen_report",
        "placeholder": True,
        "input": inputs,
        "previous": previous,
    }
    json.dump({"output": output}, sys.stdout, ensure_ascii=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
