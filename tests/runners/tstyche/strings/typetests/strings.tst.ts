import { expect, test } from "tstyche";

type Upper<S extends string> = Uppercase<S>;
type Join<A extends string, B extends string> = `${A}-${B}`;

test("upper case", () => {
  expect<Upper<"abc">>().type.toBe<"ABC">();
});

test("joins with a dash", () => {
  expect<Join<"a", "b">>().type.toBe<"a_b">();
});

test("rejects numbers", () => {
  expect<Upper<"1">>().type.toBe<number>();
});
