import { describe, expect, test } from "tstyche";

type Point = { x: number; y: number };
type Named<T> = T & { name: string };

function merge<A, B>(a: A, b: B): A & B {
  return { ...a, ...b };
}

describe("merge", () => {
  test("keeps both sides", () => {
    expect(merge({ a: 1 }, { b: "x" })).type.toBe<{ a: number } & { b: string }>();
  });
  test("widens literals", () => {
    expect(merge({ a: 1 as const }, {})).type.toBe<{ a: number }>();
  });
});

describe("Named", () => {
  test("adds a name", () => {
    expect<Named<Point>>().type.toBe<{ x: number; y: number; name: string }>();
  });
});

test("Point has no z", () => {
  expect<Point>().type.toHaveProperty("z");
});
