import test from 'ava';
import { retry, backoff, hang } from '../retry.js';

test('succeeds on the third try', async (t) => {
  const v = await retry(async (i) => { if (i < 2) throw new Error(`upstream 503 on try ${i + 1}`); return 'ok'; }, 3);
  t.is(v, 'ok');
});

test('backoff doubles', (t) => {
  t.deepEqual(backoff(3), [100, 200, 400]);
});

test('backoff is capped', (t) => {
  t.log('cap is 1600 ms');
  t.true(backoff(5).length === 5, 'backoff(5) has 4 steps');
});

test('gives up after a deadline', async (t) => {
  t.timeout(100, 'deadline of 100ms for hang()');
  await hang();
  t.pass();
});
