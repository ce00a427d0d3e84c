// Clock helpers with deliberate bugs for the mocha captures.
function formatHour(h) { return `${String(h).padStart(2, '0')}:00`; }
function parseDuration(s) {
  const m = /^PT(\d+)H$/.exec(s);
  return m && { hours: Number(m[1]) };   // BUG: undefined-ish for "PT90M"
}
function validateSchedule(s) {
  const problems = [];
  if (s.cron.split(' ')[2] > 31) problems.push('- cron field 3 out of range');
  if (!['UTC', 'Europe/Paris'].includes(s.tz)) problems.push(`- timezone ${s.tz} unknown`);
  if (problems.length) throw new Error('schedule invalid:\n' + problems.join('\n'));
}
function nextTick() { return new Promise(() => {}); }  // BUG: never resolves
module.exports = { formatHour, parseDuration, validateSchedule, nextTick };
