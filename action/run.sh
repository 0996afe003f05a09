#!/usr/bin/env bash
# The script part of action.yml: runs one audit from the action's inputs (INPUT_* variables), writes the
# counts of report.json's summary to $GITHUB_OUTPUT, and exits as the audit did. Tested locally by
# test/e2e/action.test.ts. The key arrives in OPENAI_API_KEY and is never echoed.
set -uo pipefail

: "${INPUT_BASE_URL:?the base-url input is required}"
out="${INPUT_OUT:-chatprobe-reports}"
args=(--base-url "$INPUT_BASE_URL" --out "$out")
[ -n "${INPUT_MODELS:-}" ] && args+=(--models "$INPUT_MODELS")
[ -n "${INPUT_PROBES:-}" ] && args+=(--probes "$INPUT_PROBES")
[ -n "${INPUT_BASELINE:-}" ] && args+=(--baseline "$INPUT_BASELINE")
[ -n "${INPUT_CONCURRENCY:-}" ] && args+=(--concurrency "$INPUT_CONCURRENCY")

# How chatprobe is run: a published version through npx, else the action's own checkout, built once.
if [ -n "${CHATPROBE_CMD:-}" ]; then
  read -r -a cmd <<<"$CHATPROBE_CMD"
elif [ -n "${INPUT_VERSION:-}" ]; then
  cmd=(npx --yes "chatprobe@${INPUT_VERSION}")
else
  root="${ACTION_PATH:?}"
  if [ ! -f "$root/dist/cli.mjs" ]; then
    (cd "$root" && npm ci --no-audit --no-fund >/dev/null && npm run build >/dev/null) || { echo "::error::could not build chatprobe from $root"; exit 2; }
  fi
  cmd=(node "$root/dist/cli.mjs")
fi

"${cmd[@]}" "${args[@]}"
code=$?

{
  echo "exit-code=$code"
  echo "reports=$out"
  if [ -f "$out/report.json" ]; then
    node -e '
      const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary ?? {};
      const o = s.outcomes ?? {};
      for (const k of ["passed", "failed", "skipped", "errored"]) console.log(`${k}=${o[k] ?? 0}`);
      console.log(`regressions=${s.regressions ?? 0}`);
    ' "$out/report.json"
  fi
} >>"${GITHUB_OUTPUT:-/dev/null}"

exit "$code"
