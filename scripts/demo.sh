#!/usr/bin/env bash
# Quick start, command 1: install everything (Debian packages, npm deps with Node 22), then run the
# demo: a real transcription, then clips and thumbnails of it, then metadata, a summary, indexing and searches,
# end to end on a fresh local stack, stopped again at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
npm run -s demo -- clips understanding dubbing
