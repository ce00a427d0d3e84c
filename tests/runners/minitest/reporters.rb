# Runs a project's minitest files under minitest-reporters (issue 46 captures):
#   ruby -Ilib -Itest ../reporters.rb spec|junit:<dir> [--seed=N]
require "minitest/autorun"
require "minitest/reporters"

kind = ARGV.shift
reporter =
  if kind == "spec"
    Minitest::Reporters::SpecReporter.new(color: false)
  elsif kind.start_with?("junit:")
    Minitest::Reporters::JUnitReporter.new(kind.split(":", 2)[1])
  else
    abort "usage: reporters.rb spec|junit:<dir>"
  end
Minitest::Reporters.use! reporter
Dir["test/*_test.rb"].sort.each { |f| require File.expand_path(f) }
