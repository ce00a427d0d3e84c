#!/usr/bin/perl
use strict;
use warnings;
my @list = (3, 1, 2);
my @sorted = sort { $a <=> $b } @list;
local $_ = shift;
print "sorted: @sorted\n" if $_ eq "show";
my $h = { map { $_ => 1 } @list };
exit 0 unless defined $ARGV[0];
chdir "/tmp";
open my $fh, ">", "out.txt";
print $fh "done\n";
