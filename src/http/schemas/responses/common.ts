// The small shapes several answers share. Response schemas are never used to parse: they document what
// the views build, so a timestamp is a plain string with its format named (z.iso.datetime() would add
// a pattern no reader needs).
import { z } from 'zod';

export const dateTime = () => z.string().meta({ format: 'date-time' });

export const codeAndMessage = z.object({ code: z.string(), message: z.string() });

export const box = z.object({ x: z.int(), y: z.int(), width: z.int(), height: z.int() });

/** A page of a list: newest first; pass nextCursor back as `cursor` for the next page. */
export const pageOf = (item: z.ZodType) =>
  z.object({
    items: z.array(item),
    nextCursor: z.string().nullable().describe('null on the last page'),
  });
