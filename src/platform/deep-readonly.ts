/**
 * `T` with every property, list and tuple read-only, as the contract types are; for types derived
 * from a zod schema.
 */
export type DeepReadonly<T> = T extends object ? { readonly [K in keyof T]: DeepReadonly<T[K]> } : T;
