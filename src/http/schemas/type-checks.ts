// Compile-time checks that tie a schema to the TypeScript type it stands for, so a field added to one
// and not the other fails `tsc`. They are used as exported type aliases: `Holds<…>` only compiles when
// its argument is `true`.
import type { z } from 'zod';

export type SameKeys<A, B> = [keyof A] extends [keyof B] ? ([keyof B] extends [keyof A] ? true : false) : false;
export type Holds<T extends true> = T;

/**
 * What a route answers (`View`) is what its response schema documents: every value fits the schema,
 * and the top level has exactly the documented fields.
 */
export type Documents<View, Schema extends z.ZodType> = [View] extends [z.output<Schema>]
  ? SameKeys<View, z.output<Schema>>
  : false;
