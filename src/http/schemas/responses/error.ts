// The body of every error answer (src/http/middleware turns an AppError into it).
import { z } from 'zod';
import { ERROR_CODES } from '../../../errors.js';

export const errorBody = z.strictObject({
  error: z.object({
    code: z.enum(ERROR_CODES),
    message: z.string().describe('For a person; the code is what a program should look at'),
    details: z
      .array(
        z.object({
          path: z.string().describe('The field, dotted (e.g. "viewport.width"), or a header name'),
          message: z.string(),
        }),
      )
      .optional()
      .describe(
        'One entry per problem (400 invalid_request: one sentence per bad field; 422 render_failed for a page ' +
          'that could not be loaded: path "url" with the raw network code, e.g. net::ERR_CONNECTION_REFUSED)',
      ),
  }),
  requestId: z.string().describe('The same as the X-Request-Id header; the service log has the cause under it'),
});
export type ErrorBody = z.output<typeof errorBody>;
