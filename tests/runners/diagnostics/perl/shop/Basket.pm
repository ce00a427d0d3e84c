package B;
sub new { bless {}, shift }
sub run { my $s = shift; system("rm -rf /tmp/x"); return }
1;
