import { describe, expect, it } from 'vitest';
import { constraintViolationCode, dbCode, namesConstraint, neutralCode } from '../support/engine-expect.js';

describe('engine-neutral expectations', () => {
  it('map a constraint violation to each engine’s code', () => {
    expect(constraintViolationCode('pglite', 'check')).toBe('23514');
    expect(constraintViolationCode('postgres', 'check')).toBe('23514');
    expect(constraintViolationCode('oracle', 'check')).toBe('ORA-02290');
    expect(constraintViolationCode('postgres', 'unique')).toBe('23505');
    expect(constraintViolationCode('oracle', 'unique')).toBe('ORA-00001');
  });

  it('name a stored refusal code the same for every engine (an expectation written once meets ORA-01438 on Oracle)', () => {
    expect(neutralCode('22003')).toBe(dbCode('overflow'));
    expect(neutralCode('ORA-01438')).toBe('db:overflow');
    expect(neutralCode('ORA-02290')).toBe('db:check');
    expect(neutralCode('ORA-00001')).toBe('db:unique');
    expect(neutralCode('23505')).toBe('db:unique');
    expect(neutralCode('INVALID_AMOUNT')).toBe('INVALID_AMOUNT');
    expect(neutralCode(null)).toBeNull();
  });

  it('find a constraint name in PostgreSQL’s lower case and Oracle’s upper case', () => {
    const pg = 'new row for relation "order_stage" violates check constraint "test_refuse_xxx"';
    const ora = 'ORA-02290: check constraint (LOADER.TEST_REFUSE_XXX) violated';
    expect(namesConstraint(pg, 'test_refuse_xxx')).toBe(true);
    expect(namesConstraint(ora, 'test_refuse_xxx')).toBe(true);
    expect(namesConstraint(ora, 'test_refuse_yyy')).toBe(false);
  });
});
