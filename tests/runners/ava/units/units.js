// Unit conversions with deliberate bugs for the ava captures.
export const kmToMiles = (km) => km * 0.62;            // BUG: too coarse
export const celsius = (f) => (f - 32) * 5 / 9;
export const parseSize = (s) => {
  const m = /^(\d+)(KB|MB)$/.exec(s);
  return { value: Number(m[1]), unit: m[2] };          // BUG: no GB, and m may be null
};
export const units = () => ({ length: ['km', 'mi'], mass: ['kg', 'lb', 'stone'] });
export const strictUnit = (u) => u;                   // BUG: never throws
