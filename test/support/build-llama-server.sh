#!/usr/bin/env bash
# Builds llama-server from the llama.cpp source node-llama-cpp ships (a git bundle), once per
# machine: the binary is cached outside the work tree under the bundle's commit, so every
# checkout and every test run reuses it. test/llama-server-e2e.test.ts runs it; .ci/run calls
# this script before the tests.
#   build-llama-server.sh              build if missing, print the binary's path
#   build-llama-server.sh --print-path print where the binary is (or would be) and exit
set -euo pipefail
cd "$(dirname "$0")/../.."
bundle="node_modules/node-llama-cpp/llama/gitRelease.bundle"
if [ ! -f "$bundle" ]; then
  echo "build-llama-server: $bundle is missing (run npm ci)" >&2
  exit 1
fi
commit="$(git bundle list-heads "$bundle" | awk 'NR==1 { print $1 }')"
cache_root="${XDG_CACHE_HOME:-$HOME/.cache}/tagcall/llama-server/$commit"
binary="$cache_root/build/bin/llama-server"
if [ "${1:-}" = "--print-path" ]; then
  echo "$binary"
  exit 0
fi
if [ -x "$binary" ]; then
  echo "$binary"
  exit 0
fi
for tool in git cmake ninja g++; do
  command -v "$tool" >/dev/null || { echo "build-llama-server: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$cache_root"
# One build at a time per machine: a second caller waits for the first instead of racing it.
exec 9>"$cache_root/.lock"
flock 9
if [ ! -x "$binary" ]; then
  if [ ! -d "$cache_root/src/.git" ]; then
    rm -rf "$cache_root/src"
    git clone --quiet "$PWD/$bundle" "$cache_root/src"
    git -C "$cache_root/src" checkout --quiet "$commit"
  fi
  jobs="${LLAMA_SERVER_BUILD_JOBS:-$(nproc)}"
  nice cmake -S "$cache_root/src" -B "$cache_root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF -DBUILD_SHARED_LIBS=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DGGML_NATIVE=ON >&2
  nice ninja -C "$cache_root/build" -j "$jobs" llama-server >&2
fi
echo "$binary"
