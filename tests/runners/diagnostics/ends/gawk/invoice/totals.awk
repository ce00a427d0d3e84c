# Invoice totals per customer, with lint findings on purpose.
BEGIN { FS = "," }
NR > 1 {
    amount[$1] += $3
    count[$1]++
    if (length > 60) print "long row: " NR
}
END {
    for (c in amount)
        printf "%s %d %.2f\n", c, count[c], amount[c] / count[c]
    print "grand " grnd
}
