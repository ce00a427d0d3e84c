defmodule Meter.MixProject do
  use Mix.Project
  def project, do: [app: :meter, version: "0.1.0", elixir: "~> 1.14", deps: []]
end
