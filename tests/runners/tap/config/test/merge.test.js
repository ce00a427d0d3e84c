import t from 'tap';
import { merge } from '../config.js';

t.test('override wins', async (t) => {
  t.equal(merge({ level: 'debug' }, { level: 'warn' }).level, 'warn', 'override level warn');
});
t.test('keeps defaults', async (t) => {
  t.equal(merge({}, { retries: 3 }).retries, 3);
});
