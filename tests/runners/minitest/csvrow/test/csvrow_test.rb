require "minitest/autorun"
require "csvrow"

class CsvRowTest < Minitest::Test
  def test_plain_fields
    assert_equal %w[a b c], CsvRow.parse("a,b,c")
  end

  def test_quoted_comma
    assert_equal ["Smith, Jane", "42"], CsvRow.parse('"Smith, Jane",42')
  end

  def test_header_mapping
    assert_equal({ "name" => "ada", "age" => "36" }, CsvRow.to_h(%w[name age], "ada,36"))
  end

  def test_decimal_comma
    assert_in_delta 3.5, CsvRow.number("3,5"), 0.001
  end

  def test_trailing_empty_field
    assert_equal ["a", ""], CsvRow.parse("a,"), "trailing empty field lost"
  end
end
