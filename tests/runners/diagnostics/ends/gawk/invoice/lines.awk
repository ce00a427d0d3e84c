# Invoice lines checked against their customers, with lint findings on purpose.
BEGIN { FS = "," ; getline header < "customers.csv" }
{
    key = $1 SUBSEP $2
    if (seen[key]++) dup++
    print $1 > "/tmp/gawk-lines-" $2
    total += $4
}
END { print dup + 0, total / lines }
