package WordCount;
# Word counting with deliberate bugs for the prove captures.
use strict;
use warnings;

sub words { my ($s) = @_; return split / /, $s; }          # BUG: splits on single spaces only
sub count { my ($s) = @_; my @w = words($s); return scalar @w; }
sub freq {
    my ($s) = @_;
    my %f;
    $f{$_}++ for words($s);                                  # BUG: case-sensitive
    return \%f;
}
sub longest { my ($s) = @_; my ($l) = sort { length($b) <=> length($a) } words($s); return $l; }
1;
