#!/usr/bin/env bash
# Builds llama.cpp's llama-server from the source the npm registry ships (inside node-llama-cpp) and
# generates the tiny models, into a cache outside the repo, keyed by version and recipe: a second run
# reuses it. Prints the cache folder; its paths.json lists the server, the models and the llama.cpp commit.
#
#   scripts/real/setup.sh              build what is missing, then print the cache folder
#   scripts/real/setup.sh --print-dir  print the cache folder only (built or not)
#
# CHATPROBE_REAL_CACHE moves the cache (default ~/.cache/chatprobe-real).
set -euo pipefail

NODE_LLAMA_CPP=3.22.1
here=$(cd "$(dirname "$0")" && pwd)
# No -DGGML_NATIVE=ON: the cache may move to another machine of the same kind.
CMAKE_FLAGS=(-DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DLLAMA_OPENSSL=OFF -DLLAMA_CURL=OFF
  -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_UI=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=OFF)
recipe=$( { echo "$NODE_LLAMA_CPP ${CMAKE_FLAGS[*]}"; cat "$here/make-model.py"; } | sha256sum | cut -c1-12)
root=${CHATPROBE_REAL_CACHE:-$HOME/.cache/chatprobe-real}
dir="$root/llama-$NODE_LLAMA_CPP-$recipe"

if [ "${1:-}" = --print-dir ]; then echo "$dir"; exit 0; fi
if [ -f "$dir/paths.json" ]; then echo "$dir"; exit 0; fi

say() { echo "real:setup: $*" >&2; }
need() { command -v "$1" >/dev/null 2>&1; }
# The model generator needs numpy: the first python that has it, else Debian's python3 with python3-numpy.
python=""
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then python=$p; break; fi
done
if ! need cmake || ! need g++ || [ -z "$python" ]; then
  say "installing cmake, g++ and numpy from Debian's packages"
  apt-get update -qq >&2 && apt-get install -y -qq cmake g++ python3 python3-numpy >&2
  python=/usr/bin/python3
fi

mkdir -p "$root"
work=$(mktemp -d "$root/.work-XXXXXX")
trap 'rm -rf "$work"' EXIT
log="$work/build.log"
fail() { say "$1 (log: the last lines follow)"; tail -n 40 "$log" >&2; exit 1; }

start=$(date +%s)
say "fetching node-llama-cpp@$NODE_LLAMA_CPP from the npm registry (llama.cpp's source is inside it)"
(cd "$work" && npm pack --silent "node-llama-cpp@$NODE_LLAMA_CPP" >>"$log" 2>&1) || fail "npm pack failed"
tar -xzf "$work/node-llama-cpp-$NODE_LLAMA_CPP.tgz" -C "$work" package/llama/gitRelease.bundle >>"$log" 2>&1 || fail "no source bundle in the package"
git clone -q "$work/package/llama/gitRelease.bundle" "$work/llama.cpp" >>"$log" 2>&1 || fail "cannot clone the source bundle"
rm -rf "$work/package" "$work"/node-llama-cpp-*.tgz
commit=$(git -C "$work/llama.cpp" rev-parse --short HEAD)

say "building llama-server (about 6 minutes on 2 cores)"
(cd "$work/llama.cpp" && cmake -B build "${CMAKE_FLAGS[@]}" >>"$log" 2>&1 && cmake --build build -j "$(nproc)" --target llama-server >>"$log" 2>&1) || fail "the build failed"
version=$("$work/llama.cpp/build/bin/llama-server" --version 2>&1 | grep -m1 -i version || true)

say "generating the tiny models"
"$python" "$here/make-model.py" "$work/llama.cpp" "$work/out/models" >>"$log" 2>&1 || fail "make-model.py failed"
mkdir -p "$work/out/bin"
cp "$work/llama.cpp/build/bin/llama-server" "$work/out/bin/"
cp "$log" "$work/out/build.log"
cat >"$work/out/paths.json" <<JSON
{
  "server": "$dir/bin/llama-server",
  "models": { "stops": "$dir/models/tiny-stops.gguf", "runaway": "$dir/models/tiny-runaway.gguf" },
  "llamaCpp": { "package": "node-llama-cpp@$NODE_LLAMA_CPP", "commit": "$commit", "version": "$version" }
}
JSON
rm -rf "$dir"
mv "$work/out" "$dir"
say "done in $(( $(date +%s) - start )) s"
echo "$dir"
