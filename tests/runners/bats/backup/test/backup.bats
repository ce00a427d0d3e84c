setup() {
  SRC=$(mktemp -d) DEST=$(mktemp -d)/out
  echo data >"$SRC/a.txt"
  echo secret >"$SRC/.env"
}

teardown() {
  rm -rf "$SRC" "$(dirname "$DEST")"
}

@test "copies regular files" {
  run "$BATS_TEST_DIRNAME/../backup.sh" "$SRC" "$DEST"
  [ "$status" -eq 0 ]
  [ -f "$DEST/a.txt" ]
}

@test "copies dotfiles" {
  run "$BATS_TEST_DIRNAME/../backup.sh" "$SRC" "$DEST"
  [ -f "$DEST/.env" ]
}

@test "missing source exits 2" {
  run "$BATS_TEST_DIRNAME/../backup.sh" /nonexistent/src-9f "$DEST"
  echo "status=$status output=$output"
  [ "$status" -eq 2 ]
}

@test "reports entry count" {
  run "$BATS_TEST_DIRNAME/../backup.sh" "$SRC" "$DEST"
  [[ "$output" == "copied 2 entries" ]]
}
