const { parseDuration } = require('../parse');

describe('parseDuration', () => {
  it('parses milliseconds', () => {
    expect(parseDuration('250ms')).toBe(250);
  });
  it('parses minutes', () => {
    expect(parseDuration('2m')).toBe(120000);
  });
  it('parses fractional seconds', () => {
    expect(parseDuration('1.5s')).toBe(1500);
  });
});
