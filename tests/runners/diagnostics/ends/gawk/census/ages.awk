# Ages per town, with lint findings on purpose.
BEGIN { FS = ";" }
{
    sum[$1] += $2
    if ($2 > oldest[$1]) oldest[$1] = $2
    towns = towns "," $1
}
END {
    for (t in sum) print t, sum[t] / n[t], oldest[t]
    print substr(towns, 2)
}
