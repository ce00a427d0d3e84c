defmodule Meter.Rate do
  def cost(reading, rate) do
    spare = rate * 2
    reading * rate
  end
end
