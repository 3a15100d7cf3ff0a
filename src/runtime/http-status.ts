// The HTTP status of a failed API call: client-node's ApiException carries it as `code`, a failed watch
// as `statusCode`. Every caller that branches on a status (404, 409, 410, 4xx refusals) reads it here.

/** The HTTP status of `err`, or undefined when it is not an API error. */
export function httpStatus(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  if ('statusCode' in err && typeof err.statusCode === 'number') return err.statusCode;
  if ('code' in err && typeof err.code === 'number') return err.code;
  return undefined;
}
