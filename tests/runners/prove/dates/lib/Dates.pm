package Dates;
# Date helpers with deliberate bugs for the prove captures.
use strict;
use warnings;

sub is_leap { my ($y) = @_; return $y % 4 == 0 ? 1 : 0; }     # BUG: century rule missing
sub days_in { my ($y, $m) = @_; return (31, is_leap($y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)[$m - 1]; }
sub parse_iso {
    my ($s) = @_;
    $s =~ /^(\d{4})-(\d\d)-(\d\d)$/ or die "not an ISO date: '$s'\n  expected YYYY-MM-DD\n  (field 'start_date' of row 17)\n";
    return ($1, $2, $3);
}
1;
