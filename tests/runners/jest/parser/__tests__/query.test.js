const { parseQuery } = require('../parse');

describe('parseQuery', () => {
  it('reads simple pairs', () => {
    expect(parseQuery('?a=1&b=2')).toEqual({ a: '1', b: '2' });
  });
  it('decodes percent escapes', () => {
    expect(parseQuery('?city=S%C3%A3o%20Paulo').city).toBe('São Paulo');
  });
  it('rejects after a timeout', async () => {
    const result = await new Promise((_, reject) =>
      setTimeout(() => reject(new Error('query backend timed out after 20ms')), 20),
    );
    expect(result).toBeDefined();
  });
});
