export interface Line { sku: string; qty: number }

export function total(lines: Line[]): number {
  let sum: number = "0";
  for (const line of lines) sum += line.price;
  return sum;
}

export function add(lines: Line[], sku: string): Line[] {
  return [...lines, { sku, qty: "1" }];
}
