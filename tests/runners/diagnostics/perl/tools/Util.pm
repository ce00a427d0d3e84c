package Tools::Util;
use strict;
use warnings;
sub clean { my ($x) = @_; $x =~ s/^\s+//; return $x }
sub parse { my $s = shift; return split(/,/, $s) }
sub readall { local $/; my $f = shift; open(my $in, '<', $f) or die; return <$in> }
1;
