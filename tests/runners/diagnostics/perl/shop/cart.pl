use strict;
sub total { my @a = @_; return eval "1+1"; }
open(FH, "<x.txt");
my $x = `ls`;
print total();
