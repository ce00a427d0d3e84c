use strict;
use warnings;
use utf8;
use Test::More;
use lib 'lib';
use WordCount;

subtest 'accented words' => sub {
    plan tests => 2;
    is(WordCount::count("café crème"), 2, 'two accented words');
    like(WordCount::longest("naïve façade"), qr/^façades$/, 'longest accented word');
};
ok(1, 'module loads');
done_testing();
