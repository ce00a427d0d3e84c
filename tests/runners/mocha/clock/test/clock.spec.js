const assert = require('node:assert/strict');
const clock = require('../clock');

describe('clock', function () {
  it('formats noon', function () {
    assert.equal(clock.formatHour(12), '12:00');
  });
  it('parses ISO durations', function () {
    assert.equal(clock.parseDuration('PT90M').hours, 1.5);
  });
  it('validates schedule', function () {
    clock.validateSchedule({ cron: '0 0 42 * *', tz: 'Mars/Olympus' });
  });
  describe('ticker', function () {
    it('waits for the tick', async function () {
      this.timeout(50);
      await clock.nextTick();
    });
    it('formats midnight', function () {
      assert.equal(clock.formatHour(0), '00:00');
    });
  });
});
