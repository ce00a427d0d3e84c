setup() {
  source "$BATS_TEST_DIRNAME/../strutil.sh"
}

@test "upper-cases ascii" {
  [ "$(upper abc)" = "ABC" ]
}

@test "trims all surrounding spaces" {
  result=$(trim "   padded   ")
  [ "$result" = "padded" ]
}

@test "slug is lower case" {
  run slug "Hello Big World"
  [ "$status" -eq 0 ]
  [ "$output" = "hello-big-world" ]
}

@test "repeat three times" {
  run repeat ab 3
  echo "repeat printed: $output"
  [ "$output" = "ababab" ]
}

@test "repeat rejects negative counts" {
  run repeat ab -1
  [ "$status" -ne 0 ] || { echo "repeat accepted count -1 (exit $status)" >&2; false; }
}
