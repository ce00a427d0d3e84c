// Clock arithmetic with deliberate bugs, tested by aqa.
exports.addMinutes = (hhmm, m) => {
  const [h, mm] = hhmm.split(':').map(Number);
  const total = h * 60 + mm + m;
  return `${Math.floor(total / 60)}:${String(total % 60).padStart(2, '0')}`;
};
exports.isMorning = (h) => h <= 12;
exports.parse = (s) => {
  if (!/^\d\d:\d\d$/.test(s)) return null;
  return s.split(':').map(Number);
};
