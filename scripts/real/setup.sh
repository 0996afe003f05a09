#!/usr/bin/env bash
# Builds llama.cpp's llama-server and llama-quantize from the source the npm registry ships (a git bundle
# inside node-llama-cpp), generates the two tiny models (make-model.py) and the identity calibration's
# variants of the stopping one (make-variants.py: Q8_0, Q4_0, other weights), into a cache outside the repo
# keyed by the package version, the cmake flags, the targets and both scripts: a second run reuses it in
# well under a second.
#
#   scripts/real/setup.sh              build what is missing, then print where everything is
#   scripts/real/setup.sh --print-dir  print the cache folder only (built or not; no work done)
#
# CHATPROBE_REAL_CACHE moves the cache root (default ~/.cache/chatprobe-real).
#
# The cache folder <root>/llama-<version>-<recipe hash>/ holds:
#   bin/llama-server, bin/llama-quantize, models/tiny-stops.gguf (F16, the reference), tiny-runaway.gguf,
#   tiny-stops-q8_0.gguf, tiny-stops-q4_0.gguf, tiny-other.gguf,
#   paths.json  {"server", "quantize", "models": {"stops", "runaway", "stopsQ8", "stopsQ4", "other"},
#                "llamaCpp": {"package", "tag", "commit", "version"}}
#   env         the same as shell variables (CHATPROBE_LLAMA_SERVER, CHATPROBE_MODEL_STOPS, ...)
#   build.log   the whole build
#   .complete   written last: without it the folder does not count and is built again
# Everything is made in a temporary folder inside the root and moved into place in one rename, so an
# interrupted run leaves nothing that counts; its leftovers are removed by the next run.
#
# Needs: npm (the registry), git, tar, cmake, g++, make, python3 with numpy. Missing tools are installed
# with apt-get (Debian's packages), and only when missing. No other network access: no download in cmake.
set -euo pipefail
# The whole script is one block, read before it runs: editing this file during a run cannot derail the run.
{

NODE_LLAMA_CPP=3.22.1
here=$(cd "$(dirname "$0")" && pwd)
# No -DGGML_NATIVE=ON: the cache may move to another machine of the same kind. LLAMA_CURL is only a
# deprecated name in this release (OFF does nothing); it stays so the recipe hash stays.
CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF)
TARGETS=(llama-server llama-quantize)
recipe=$( { echo "$NODE_LLAMA_CPP ${CMAKE_FLAGS[*]} ${TARGETS[*]}"; cat "$here/make-model.py" "$here/make-variants.py"; } | sha256sum | cut -c1-12)
root=${CHATPROBE_REAL_CACHE:-$HOME/.cache/chatprobe-real}
dir="$root/llama-$NODE_LLAMA_CPP-$recipe"

case "${1:-}" in
  --print-dir) echo "$dir"; exit 0 ;;
  "") ;;
  -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "usage: $0 [--print-dir]" >&2; exit 2 ;;
esac

say() { echo "real:setup: $*" >&2; }
summary() {
  echo "cache:   $dir"
  echo "server:  $dir/bin/llama-server"
  echo "quantize: $dir/bin/llama-quantize"
  echo "stops:   $dir/models/tiny-stops.gguf (F16; -q8_0, -q4_0 beside it)"
  echo "other:   $dir/models/tiny-other.gguf"
  echo "runaway: $dir/models/tiny-runaway.gguf"
  echo "paths:   $dir/paths.json (and $dir/env)"
}
if [ -f "$dir/.complete" ]; then summary; exit 0; fi

mkdir -p "$root"
# One build at a time per root: a second run waits, then finds the first one's result.
exec 9>"$root/.lock"
if command -v flock >/dev/null 2>&1; then
  flock -n 9 || { say "another setup is running in $root; waiting for it"; flock 9; }
  if [ -f "$dir/.complete" ]; then summary; exit 0; fi
  # Leftovers of interrupted runs (this one holds the lock, so no other run is using them).
  rm -rf "$root"/.work-*
fi

# The tools, from Debian's packages when missing.
need() { command -v "$1" >/dev/null 2>&1; }
# The model generator needs numpy: the first python that has it, else Debian's python3 with python3-numpy.
find_python() {
  for p in python3 /usr/bin/python3; do
    if "$p" -c 'import numpy' >/dev/null 2>&1; then echo "$p"; return; fi
  done
}
python=$(find_python)
need npm || { say "npm is needed (it fetches llama.cpp's source from the npm registry)"; exit 1; }
missing=()
need git || missing+=(git)
need tar || missing+=(tar)
need cmake || missing+=(cmake)
need g++ || missing+=(g++)
need make || missing+=(make)
[ -n "$python" ] || missing+=(python3 python3-numpy)
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" = 0 ] || sudo=sudo
  say "installing from Debian's packages: ${missing[*]}"
  $sudo apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >&2
  python=$(find_python)
  [ -n "$python" ] || { say "no python3 with numpy, even after installing python3-numpy"; exit 1; }
fi

work=$(mktemp -d "$root/.work-XXXXXX")
log="$work/out/build.log"
mkdir -p "$work/out/bin" "$work/out/models"
failed="$root/failed-build.log"
cleanup() { rm -rf "$work"; }
trap cleanup EXIT
fail() {
  cp "$log" "$failed" 2>/dev/null || true
  say "$1; the whole log is in $failed, its last lines follow:"
  tail -n 40 "$log" >&2
  exit 1
}

start=$(date +%s)
say "fetching node-llama-cpp@$NODE_LLAMA_CPP from the npm registry (llama.cpp's source is inside it)"
{ echo "== npm pack node-llama-cpp@$NODE_LLAMA_CPP"; } >>"$log"
npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP" --pack-destination "$work" >>"$log" 2>&1 || fail "npm pack failed"
tgz="$work/node-llama-cpp-$NODE_LLAMA_CPP.tgz"
# Only the members needed: the source bundle (about 35 MB) and the release tag it was made from.
tar -xzf "$tgz" -C "$work" package/llama/gitRelease.bundle package/llama/llama.cpp.info.json >>"$log" 2>&1 \
  || fail "no source bundle in the package"
git -c advice.detachedHead=false clone -q "$work/package/llama/gitRelease.bundle" "$work/llama.cpp" >>"$log" 2>&1 || fail "cannot clone the source bundle"
tag=$(sed -n 's/.*"tag": *"\([^"]*\)".*/\1/p' "$work/package/llama/llama.cpp.info.json")
rm -rf "$work/package" "$tgz"
commit=$(git -C "$work/llama.cpp" rev-parse HEAD)
say "llama.cpp $tag, commit ${commit:0:12}"

say "building ${TARGETS[*]} (about 7 minutes on 2 cores; log: $log)"
{ echo "== cmake ${CMAKE_FLAGS[*]}"; } >>"$log"
(cd "$work/llama.cpp" && cmake -B build "${CMAKE_FLAGS[@]}" >>"$log" 2>&1) || fail "cmake configure failed"
(cd "$work/llama.cpp" && cmake --build build -j "$(nproc)" --target "${TARGETS[@]}" >>"$log" 2>&1) || fail "the build failed"
cp "$work/llama.cpp/build/bin/llama-server" "$work/llama.cpp/build/bin/llama-quantize" "$work/out/bin/"
version=$("$work/out/bin/llama-server" --version 2>&1 | grep -m1 '^version' || true)
[ -n "$version" ] || fail "the built llama-server does not run"
say "built in $(( $(date +%s) - start )) s: $version"

say "generating the tiny models"
{ echo "== $python make-model.py"; } >>"$log"
"$python" "$here/make-model.py" "$work/llama.cpp" "$work/out/models" >>"$log" 2>&1 || fail "make-model.py failed"
say "quantizing the stopping model (Q8_0, Q4_0) and making one with other weights"
{ echo "== $python make-variants.py"; } >>"$log"
"$python" "$here/make-variants.py" "$work/llama.cpp" "$work/out/models" "$work/out/bin/llama-quantize" >>"$log" 2>&1 || fail "make-variants.py failed"

# paths.json and env name the final place, not the temporary one.
"$python" - "$dir" "$NODE_LLAMA_CPP" "$tag" "$commit" "$version" "$work/out" <<'PY' >>"$log" 2>&1 || fail "cannot write paths.json"
import json, shlex, sys
d, pkg, tag, commit, version, out = sys.argv[1:]
paths = {
    "server": f"{d}/bin/llama-server",
    "quantize": f"{d}/bin/llama-quantize",
    "models": {
        "stops": f"{d}/models/tiny-stops.gguf",
        "runaway": f"{d}/models/tiny-runaway.gguf",
        "stopsQ8": f"{d}/models/tiny-stops-q8_0.gguf",
        "stopsQ4": f"{d}/models/tiny-stops-q4_0.gguf",
        "other": f"{d}/models/tiny-other.gguf",
    },
    "llamaCpp": {"package": f"node-llama-cpp@{pkg}", "tag": tag, "commit": commit[:7], "fullCommit": commit, "version": version},
}
with open(f"{out}/paths.json", "w") as f:
    json.dump(paths, f, indent=2)
    f.write("\n")
env = {
    "CHATPROBE_REAL_DIR": d,
    "CHATPROBE_LLAMA_SERVER": paths["server"],
    "CHATPROBE_LLAMA_QUANTIZE": paths["quantize"],
    "CHATPROBE_MODEL_STOPS": paths["models"]["stops"],
    "CHATPROBE_MODEL_RUNAWAY": paths["models"]["runaway"],
    "CHATPROBE_MODEL_STOPS_Q8": paths["models"]["stopsQ8"],
    "CHATPROBE_MODEL_STOPS_Q4": paths["models"]["stopsQ4"],
    "CHATPROBE_MODEL_OTHER": paths["models"]["other"],
    "CHATPROBE_LLAMA_TAG": tag,
    "CHATPROBE_LLAMA_COMMIT": commit,
    "CHATPROBE_LLAMA_VERSION": version,
}
with open(f"{out}/env", "w") as f:
    f.writelines(f"{k}={shlex.quote(v)}\n" for k, v in env.items())
PY
(cd "$work/out/models" && sha256sum ./*.gguf) >>"$log"
echo "== done in $(( $(date +%s) - start )) s" >>"$log"
date -u +%Y-%m-%dT%H:%M:%SZ >"$work/out/.complete"
# An older, incomplete folder of the same key (still in use, maybe) goes aside in the same instant.
if [ -e "$dir" ]; then mv "$dir" "$work/old"; fi
mv "$work/out" "$dir"
rm -f "$failed"
say "done in $(( $(date +%s) - start )) s"
summary
exit 0
}
