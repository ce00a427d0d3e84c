#!/usr/bin/env bash
# A toy backup script with deliberate bugs for the bats captures.
set -u
src=$1 dest=$2
if [ ! -d "$src" ]; then
  echo "backup: source $src is not a directory" >&2
  exit 3
fi
mkdir -p "$dest"
cp -r "$src"/* "$dest"/          # BUG: dotfiles are skipped
echo "copied $(ls "$src" | wc -l) entries"
