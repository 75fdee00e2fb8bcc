// What the ground benches generate CI history from: 60 failure signatures in four ecosystems'
// words, and a seeded generator so every run builds the same workspace.

/** 60 failure signatures: TypeScript, pytest, Go and Rust lines, in turn. */
export const SIGNATURES = Array.from(
  { length: 60 },
  (_, i) =>
    [
      `src/mod${i}.ts(12,5): error TS2322: Type 'string' is not assignable to type 'Money${i}'.`,
      `E   ConnectionRefusedError: [Errno 111] Connection refused on shard ${i}`,
      `--- FAIL: TestCase${i} (0.00s)`,
      `error[E0308]: mismatched types in module_${i}`,
    ][i % 4],
);

/** A linear congruential generator of numbers in [0, 1) from `seed`: the same sequence every run. */
export function seeded(seed) {
  let s = seed;
  return () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
}
