use strict;
use warnings;
use Test::More tests => 4;
use lib 'lib';
use WordCount;

is(WordCount::count("one two three"), 3, 'counts three words');
is(WordCount::count("one  two"), 2, 'double space is one separator');
is_deeply(WordCount::freq("The cat the hat"), { the => 2, cat => 1, hat => 1 }, 'frequency ignores case');
is(WordCount::longest("a bb ccc"), 'ccc', 'longest word');
