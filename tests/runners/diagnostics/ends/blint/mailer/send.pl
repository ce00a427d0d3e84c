#!/usr/bin/perl
# A mailer with lint findings on purpose.
use strict;
use warnings;
my @to = ('a@example.org', 'b@example.org');
foreach (@to) { s/\@/ at /; print }
my $subject = "hi";
compose($subject);
print $& if $subject =~ /h/;
