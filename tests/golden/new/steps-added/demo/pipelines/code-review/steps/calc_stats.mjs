#!/usr/bin/env node
// Step `calc_stats` of pipeline `code-review` (a code step, APP v0.4 §4.1).
//
// The runner writes one JSON object to stdin,
//   {"input": {...pipeline input...}, "steps": {"<step>": {"output": ...}, ...}}
// and this script prints one JSON object to stdout: {"output": <any JSON value>}.
// Exit non-zero to stop the pipeline; print diagnostics to stderr, never to stdout.
// The working directory is the pipeline folder; APP_ROOT, APP_PIPELINE_DIR and
// APP_TOOLS_DIR (in process.env) name the APP folder, this pipeline's folder and tools/.
import { readFileSync } from "node:fs";

const payload = JSON.parse(readFileSync(0, "utf8"));
const inputs = payload.input ?? {};
const steps = payload.steps ?? {};
const previous = steps["analyze"]?.output ?? null;

// TODO(app-new): replace this placeholder with the real work of step `calc_stats`.
//   inputs["repo"] is the pipeline input `repo` (string).
//   inputs["pr_number"] is the pipeline input `pr_number` (integer).
//   inputs["strict"] is the pipeline input `strict` (boolean).
//   inputs["ratio"] is the pipeline input `ratio` (number).
//   inputs["paths"] is the pipeline input `paths` (array).
//   inputs["options"] is the pipeline input `options` (object).
//   `previous` is the output of step `analyze`;
//   steps[name].output is the output of any earlier step.
//   Return the JSON value the next steps need (the shape is up to you).
const output = {
  step: "calc_stats",
  placeholder: true,
  input: inputs,
  previous,
};
process.stdout.write(JSON.stringify({ output }) + "\n");
