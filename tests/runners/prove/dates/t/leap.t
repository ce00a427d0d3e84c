use strict;
use warnings;
use Test::More;
use lib 'lib';
use Dates;

ok(Dates::is_leap(2024), '2024 is leap');
ok(!Dates::is_leap(1900), '1900 is not leap');
is(Dates::days_in(2023, 2), 28, 'february 2023');
is(Dates::days_in(2100, 2), 28, 'february 2100 has 28 days');
done_testing();
