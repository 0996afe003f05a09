#!/usr/bin/env bash
# The script part of action.yml: runs one audit from the action's inputs (INPUT_* variables), writes the
# counts of report.json's summary, the reports folder and the artifact name to $GITHUB_OUTPUT, and exits
# as the audit did. Tested locally by test/e2e/action.test.ts, which runs action.yml's steps as the runner
# does. Every input value reaches chatprobe as one argument of its own (never through the shell), and the
# key is never echoed.
set -uo pipefail

output="${GITHUB_OUTPUT:-/dev/null}"

# Input values are not printed: a line break in one could start a workflow command in the log.
refuse() {
  echo "::error::$1" >&2
  echo "exit-code=2" >>"$output"
  exit 2
}

: "${INPUT_BASE_URL:?the base-url input is required}"

for pair in "update-baseline=${INPUT_UPDATE_BASELINE:-false}" "upload=${INPUT_UPLOAD:-true}" "setup-node=${INPUT_SETUP_NODE:-true}"; do
  case "${pair#*=}" in true | false) ;; *) refuse "the ${pair%%=*} input must be 'true' or 'false'" ;; esac
done

out="${INPUT_OUT:-chatprobe-reports}"
case "$out" in *$'\n'* | *$'\r'*) refuse "the out input must be one line" ;; esac

# actions/upload-artifact@v4 fails (409 Conflict) on a second artifact of the same name in one workflow
# run, and refuses names with any of " : < > | * ? \ / CR LF. The default name is made of what differs
# between uses: the job id, the matrix leg, the shard, and a count of earlier uses in this job.
sanitize() { printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '-'; }
if [ -n "${INPUT_ARTIFACT_NAME:-}" ]; then
  name="$INPUT_ARTIFACT_NAME"
  case "$name" in
    *[\"\:\<\>\|\*\?\\/]* | *$'\n'* | *$'\r'*) refuse 'the artifact-name input may not hold any of " : < > | * ? \ / or a line break (upload-artifact refuses them)' ;;
  esac
else
  name="chatprobe-$(sanitize "${CHATPROBE_JOB:-job}")"
  total="${CHATPROBE_JOB_TOTAL:-1}"
  if [[ "$total" =~ ^[0-9]+$ ]] && [ "$total" -gt 1 ]; then name+="-m$((${CHATPROBE_JOB_INDEX:-0} + 1))"; fi
  if [ -n "${INPUT_SHARD:-}" ]; then name+="-shard-$(sanitize "${INPUT_SHARD//\//-of-}")"; fi
fi
# RUNNER_TEMP is emptied at the start of every job: the names this job's earlier uses took.
if [ -n "${RUNNER_TEMP:-}" ]; then
  taken="$RUNNER_TEMP/chatprobe-artifact-names"
  if grep -qxF -- "$name" "$taken" 2>/dev/null; then
    [ -n "${INPUT_ARTIFACT_NAME:-}" ] && refuse "the artifact-name input is the name an earlier chatprobe step of this job uploaded under: give each use a name of its own"
    n=2
    while grep -qxF -- "$name-$n" "$taken"; do n=$((n + 1)); done
    name="$name-$n"
  fi
  echo "$name" >>"$taken"
fi
{
  echo "artifact-name=$name"
  echo "reports=$out"
} >>"$output"

# The key: the api-key input, else whatever the step's environment holds under that name.
key_env="${INPUT_API_KEY_ENV:-OPENAI_API_KEY}"
[[ "$key_env" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || refuse "the api-key-env input must be the name of an environment variable (letters, digits and _)"
if [ -n "${CHATPROBE_API_KEY_INPUT:-}" ]; then export "$key_env=$CHATPROBE_API_KEY_INPUT"; fi
unset CHATPROBE_API_KEY_INPUT

args=("--base-url=$INPUT_BASE_URL" "--out=$out")
[ -n "${INPUT_API_KEY_ENV:-}" ] && args+=("--api-key-env=$key_env")
[ -n "${INPUT_CONFIG:-}" ] && args+=("--config=$INPUT_CONFIG")
[ -n "${INPUT_MODELS:-}" ] && args+=("--models=$INPUT_MODELS")
[ -n "${INPUT_PROBES:-}" ] && args+=("--probes=$INPUT_PROBES")
[ -n "${INPUT_BASELINE:-}" ] && args+=("--baseline=$INPUT_BASELINE")
[ "${INPUT_UPDATE_BASELINE:-false}" = true ] && args+=(--update-baseline)
[ -n "${INPUT_SHARD:-}" ] && args+=("--shard=$INPUT_SHARD")
[ -n "${INPUT_TIMEOUT:-}" ] && args+=("--timeout=$INPUT_TIMEOUT")
[ -n "${INPUT_RPM:-}" ] && args+=("--rpm=$INPUT_RPM")
[ -n "${INPUT_MAX_DURATION:-}" ] && args+=("--max-duration=$INPUT_MAX_DURATION")
[ -n "${INPUT_CONCURRENCY:-}" ] && args+=("--concurrency=$INPUT_CONCURRENCY")
# Multi-line inputs: one header, one probe file, or one argument, a line; blank lines and the lines' outer spaces dropped.
lines() {
  local line
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    line="${line#"${line%%[![:space:]]*}"}"
    line="${line%"${line##*[![:space:]]}"}"
    [ -n "$line" ] && printf '%s\0' "$line"
  done <<<"$1"
}
while IFS= read -r -d '' h; do args+=("--header=$h"); done < <(lines "${INPUT_HEADER:-}")
while IFS= read -r -d '' p; do args+=("--probe-file=$p"); done < <(lines "${INPUT_PROBE_FILE:-}")
while IFS= read -r -d '' a; do args+=("$a"); done < <(lines "${INPUT_ARGS:-}")

# How chatprobe is run: a published version through npx, else the action's own checkout, built once.
# CHATPROBE_CMD is for the tests, which run the CLI they built.
if [ -n "${CHATPROBE_CMD:-}" ]; then
  read -r -a cmd <<<"$CHATPROBE_CMD"
elif [ -n "${INPUT_VERSION:-}" ]; then
  cmd=(npx --yes "chatprobe@${INPUT_VERSION}")
else
  root="${ACTION_PATH:?}"
  if [ ! -f "$root/dist/cli.mjs" ]; then
    (cd "$root" && npm ci --no-audit --no-fund >/dev/null && npm run build >/dev/null) || refuse "could not build chatprobe from the action's checkout"
  fi
  cmd=(node "$root/dist/cli.mjs")
fi

"${cmd[@]}" "${args[@]}"
code=$?

{
  echo "exit-code=$code"
  if [ -f "$out/report.json" ]; then
    node -e '
      const s = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).summary ?? {};
      const o = s.outcomes ?? {};
      for (const k of ["passed", "failed", "skipped", "errored"]) console.log(`${k}=${o[k] ?? 0}`);
      console.log(`regressions=${s.regressions ?? 0}`);
    ' "$out/report.json"
  fi
} >>"$output"

exit "$code"
