const test = require('aqa');
const clock = require('../clock');

test('adds minutes within the hour', (t) => {
  t.is(clock.addMinutes('10:15', 30), '10:45');
});

test('wraps past midnight', (t) => {
  t.is(clock.addMinutes('23:50', 20), '0:10');
});

test('noon is not morning', (t) => {
  t.false(clock.isMorning(12));
});

test('rejects a bad time', (t) => {
  t.throws(() => clock.parse('25:99x'));
});
