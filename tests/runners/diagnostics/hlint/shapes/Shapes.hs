-- Shapes with deliberate hlint findings (issue 46 captures).
module Shapes where

area :: Double -> Double
area r = (pi * (r * r))

scaled :: [Double] -> [Double]
scaled = map (\x -> x * 2)

isEmpty :: [a] -> Bool
isEmpty xs = length xs == 0

joined :: [String] -> String
joined parts = concat (map id parts)
