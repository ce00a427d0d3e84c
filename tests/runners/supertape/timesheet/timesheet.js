const hoursBetween = (a, b) => (b - a) / 60;
const overtime = (hours) => Math.max(0, hours - 40);
const weekOf = (d) => Math.floor(d.getDate() / 7);
const rateFor = (role) => ({ dev: 55, qa: 45 })[role];
const approve = (sheet) => { if (!sheet.manager) throw Error('sheet has no manager'); return { ...sheet, approved: true }; };
const roundQuarter = (h) => Math.floor(h * 4) / 4;
const initials = (name) => name.split(' ').map((p) => p[0]).join('');
module.exports = { hoursBetween, overtime, weekOf, rateFor, approve, roundQuarter, initials };
