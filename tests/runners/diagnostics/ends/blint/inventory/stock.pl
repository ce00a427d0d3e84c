#!/usr/bin/perl
# Stock report with lint findings on purpose.
use strict;
use warnings;
my @items = qw(bolt nut washer);
for (@items) {
    print "$_\n";
}
my $n = scalar @items;
print_total($n);
if (/bolt/) { print "found\n" }
