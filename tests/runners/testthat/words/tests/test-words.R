source("../words.R")

test_that("title case of one word", {
  expect_equal(title_case("river"), "River")
})

test_that("title case of two words", {
  expect_equal(title_case("red river"), "Red River")
})

test_that("words split on any space", {
  expect_equal(count_words("one\ttwo three"), 3)
})
