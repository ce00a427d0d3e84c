# A naive CSV row parser with deliberate bugs for the minitest captures.
module CsvRow
  module_function

  def parse(line)
    line.split(",")                       # BUG: quotes not honoured
  end

  def to_h(header, line)
    header.zip(parse(line)).to_h
  end

  def number(field)
    Float(field)
  rescue ArgumentError
    raise ArgumentError, "not a number: #{field.inspect}\n  row 12, column 'amount'\n  hint: use a dot as the decimal separator"
  end
end
