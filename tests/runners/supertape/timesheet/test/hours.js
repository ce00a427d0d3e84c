const test = require('supertape');
const t_ = require('../timesheet');
test('hours: converts minutes to hours', (t) => { t.equal(t_.hoursBetween(540, 1050), 8.5); t.end(); });
test('hours: overtime above forty', (t) => { t.equal(t_.overtime(46), 6); t.end(); });
test('hours: rounds to the nearest quarter', (t) => { t.equal(t_.roundQuarter(7.9), 8); t.end(); });
test('hours: no negative overtime', (t) => { t.equal(t_.overtime(30), 0); t.end(); });
test('hours: week number of the month', (t) => { t.equal(t_.weekOf(new Date(2026, 2, 14)), 1, 'the 14th is in week two (zero-based 1)'); t.end(); });
