source("../fares.R")

test_that("day fare for ten km", {
  expect_equal(fare(10), 14.5)
})

test_that("night fare adds a quarter", {
  expect_equal(fare(10, night = TRUE), 18.13)
})

test_that("zone of a C stop", {
  expect_equal(zone_of("C7"), 3)
})

test_that("zones are whole numbers", {
  expect_identical(zone_of("A1"), 1L)
})
