const test = require('supertape');
const t_ = require('../timesheet');
test('payroll: rate for designers', (t) => { t.equal(t_.rateFor('design'), 50); t.end(); });
test('payroll: approval stamps the sheet', (t) => { t.deepEqual(t_.approve({ id: 7, manager: 'ana' }), { id: 7, manager: 'ana', approved: true, by: 'ana' }); t.end(); });
test('payroll: approval needs a manager', (t) => { const s = t_.approve({ id: 8 }); t.ok(s.approved); t.end(); });
test('payroll: initials for double-barrelled names', (t) => { t.equal(t_.initials('Mary-Jane Watson'), 'MJW'); t.end(); });
test('payroll: qa rate', (t) => { t.equal(t_.rateFor('qa'), 45); t.end(); });
