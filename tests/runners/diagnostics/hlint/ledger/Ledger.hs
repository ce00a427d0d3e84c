-- A ledger with deliberate hlint findings (issue 46 captures).
module Ledger where

total :: [Int] -> Int
total xs = foldr (\x acc -> x + acc) 0 xs

positives :: [Int] -> [Int]
positives xs = filter (\x -> x > 0) xs

describe :: Int -> String
describe n = if n > 0 then "credit" else if n < 0 then "debit" else "zero"

names :: [(String, Int)] -> [String]
names entries = map (\(name, _) -> name) entries

firstOr :: Int -> [Int] -> Int
firstOr d xs = if null xs then d else head xs
