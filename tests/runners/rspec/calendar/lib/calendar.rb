require "date"

# Calendar helpers with deliberate bugs for the RSpec captures.
module Calendar
  module_function

  def weekend?(date)
    date.saturday?                             # BUG: sunday forgotten
  end

  def business_days(from, to)
    (from..to).count { |d| !weekend?(d) }
  end

  def parse(text)
    Date.strptime(text, "%Y-%m-%d")
  end

  def quarter(date)
    date.month / 3 + 1                           # BUG: march is in Q2
  end
end
