#!/usr/bin/env bash
# Fetches the handwritten digits data set that scikit-learn ships in its wheel
# (sklearn/datasets/data/digits.csv.gz: 1797 8x8 images, 64 pixel values 0-16 and the label per
# line). The wheel is downloaded with pip (no dependencies, nothing installed), that one file is
# extracted and checked against its SHA-256 below. examples/train_digits reads it.
#
#   bash scripts/fetch_digits.sh        # prints the file's path on its last line
#
# The file goes to ${XDG_CACHE_HOME:-~/.cache}/tensorjit/digits/digits.csv.gz. A second run finds
# it there, checks it and downloads nothing. Exit status 1 with a message when PyPI cannot be
# reached or the file does not match.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/fetch_wheel.sh"

package=scikit-learn
version=1.5.2
digest=09f66e6debdee2cd2b5ae59e0d6abbb73fc2b0e0185d2e1957e9ebb51e23aa22
folder=${XDG_CACHE_HOME:-$HOME/.cache}/tensorjit/digits
file=$folder/digits.csv.gz

verified() { [ -f "$1" ] && [ "$(sha256sum "$1" | cut -d' ' -f1)" = "$digest" ]; }

if verified "$file"; then
  echo "$file"
  exit 0
fi

mkdir -p "$folder"
work=$(mktemp -d "$folder/fetch.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Any platform's wheel holds the same file: ask for one that always exists, whatever python runs pip.
echo "fetch_digits: downloading $package $version from PyPI (about 13 MB)" >&2
fetch_wheel fetch_digits "$work" "$package==$version" --only-binary=:all: --platform manylinux2014_x86_64 \
  --python-version 3.11 --implementation cp

wheel=("$work"/*.whl)
unzip -q -o "${wheel[0]}" 'sklearn/datasets/data/digits.csv.gz' -d "$work"
if ! verified "$work/sklearn/datasets/data/digits.csv.gz"; then
  echo "fetch_digits: digits.csv.gz of $package $version does not have the expected SHA-256; the" \
       "package may have been replaced. Nothing was changed in $folder." >&2
  exit 1
fi
mv "$work/sklearn/datasets/data/digits.csv.gz" "$file"
echo "$file"
