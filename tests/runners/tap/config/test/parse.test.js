import t from 'tap';
import { parse, validate } from '../config.js';

t.test('parse', async (t) => {
  t.test('reads pairs', async (t) => {
    t.strictSame(parse('host = db1\nport = 5432'), { host: 'db1', port: 5432 });
  });
  t.test('skips blank lines', async (t) => {
    t.same(Object.keys(parse('a = 1\n\nb = 2')), ['a', 'b']);
  });
});

t.test('validate', async (t) => {
  t.test('accepts a full config', async (t) => {
    t.ok(validate({ region: 'eu-west', port: 8080 }));
  });
  t.test('rejects a partial config with every problem', async (t) => {
    validate({ port: '80' });
  });
});
