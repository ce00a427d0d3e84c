defmodule Meter do
  def reading(text) do
    [key, value] = String.split(text, "=")
    unit = "kWh"
    {key, String.to_float(value)}
  end

  def kind(:gas), do: :volume
  def kind(_), do: :other
  def kind(:power), do: :energy
end
