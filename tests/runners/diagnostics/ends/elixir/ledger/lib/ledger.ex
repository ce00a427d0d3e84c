defmodule Ledger do
  def total(entries) do
    fee = 2
    Enum.sum(entries)
  end

  def balance(:open), do: 0
  def balance(_), do: 1
  def balance(:closed), do: 2

  def post(entry), do: round_cents(entry)
end
