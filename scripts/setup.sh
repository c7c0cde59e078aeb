#!/usr/bin/env bash
# Installs what the project needs on a Debian machine, idempotently:
#   - Debian packages: ffmpeg (media), pocketsphinx + its US English model (local speech engine),
#     pocketsphinx-testdata (public-domain LibriVox speech with reference transcripts: demo, bench),
#     fonts-noto-core and fonts-noto-cjk (caption and cover text in most scripts, Chinese, Japanese and
#     Korean included), Apertium with apertium-apy and its language pairs
#     (local translation), eSpeak NG and Festival with its HTS voices (local speech synthesis),
#     rubberband-cli (fitting speech to its slot), chromium (the console's real-browser test drives
#     Debian's Chromium through playwright-core, which never downloads a browser of its own),
#     python3 and python3-venv (the Python client, sdk/python: its tests, and the e2e test that
#     pip-installs it into a fresh virtual environment)
#   - npm dependencies (including Node 22 itself, as the `node` dev dependency)
# Usage: scripts/setup.sh [--deps-only]
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(ffmpeg pocketsphinx pocketsphinx-en-us pocketsphinx-testdata fonts-noto-core fonts-noto-cjk
  apertium apertium-apy apertium-eng-spa apertium-eng-cat apertium-en-gl apertium-eo-en apertium-hbs-eng
  apertium-eu-en apertium-isl-eng apertium-mkd-eng
  espeak-ng festival festvox-us-slt-hts festvox-ca-ona-hts rubberband-cli
  chromium python3 python3-venv)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# Install only when node_modules is missing or older than the lockfile. `npm install` rather than
# `npm ci`: npm 11 writes lockfiles without the other platforms' optional workerd binaries and then
# refuses them in `npm ci`; `npm install` still installs exactly the locked versions.
# onnxruntime-node's postinstall downloads CUDA libraries, which fails offline; its CPU library is in
# the tarball, which is all the voice activity detector (dubbing) needs.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm dependencies"
  npm install --no-audit --no-fund --loglevel=error
fi

if [ "${1:-}" != "--deps-only" ]; then
  npx --no-install node --version >/dev/null
fi
