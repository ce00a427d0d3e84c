const { loadPrices } = require('../cart');

describe('Prices', () => {
  test('loads the eu table', async () => {
    await expect(loadPrices('eu')).resolves.toEqual({ apple: 2, pear: 3 });
  });

  test('loads the us table', async () => {
    const table = await loadPrices('us');
    expect(table.apple).toBe(2);
  });
});
