import { describe, expect, it } from 'vitest';
import { httpStatus } from '../../../src/runtime/http-status.ts';

describe('httpStatus', () => {
  it('reads an ApiException code and a failed watch status code', () => {
    expect(httpStatus({ code: 409, body: '{}' })).toBe(409);
    expect(httpStatus(Object.assign(new Error('gone'), { statusCode: 410 }))).toBe(410);
  });

  it('is undefined for errors that are not API errors (a system error has a string code)', () => {
    expect(httpStatus(Object.assign(new Error('reset'), { code: 'ECONNRESET' }))).toBeUndefined();
    expect(httpStatus(new Error('plain'))).toBeUndefined();
    expect(httpStatus(undefined)).toBeUndefined();
    expect(httpStatus('409')).toBeUndefined();
  });
});
