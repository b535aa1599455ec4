import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { TRANSFORM_OPERATIONS, applyTransform, isTransformOperation, toE164 } from './transform.js';

const digits = (input: string): string => applyTransform('extract_digits', input);

describe('extract_digits', () => {
  it.each([
    ['four one one', '411'],
    ['4 1 1', '411'],
    ['four-one-one', '411'],
    ['Four, One, One.', '411'],
    ['oh', '0'],
    ['zero', '0'],
    ['four oh one', '401'],
    ['o four', '04'],
    ['double five', '55'],
    ['double 5', '55'],
    ['double-five one', '551'],
    ['triple two', '222'],
    ['treble seven', '777'],
    ['one double two three', '1223'],
    ['double oh seven', '007'],
    ['4 one 1', '411'],
    ['4one1', '411'],
    ['my pin is 12 34', '1234'],
    ['my number is four one five, five five five, one two three four', '4155551234'],
    ['(415) 555-1234', '4155551234'],
    ['nine one one', '911'],
    ['niner', '9'],
    ['nought', '0'],
    ['twenty one', '21'],
    ['twenty-one', '21'],
    ['twenty', '20'],
    ['twenty twenty', '2020'],
    ['fifteen', '15'],
    ['four fifteen', '415'],
    ['nineteen eighty four', '1984'],
    ['five hundred', '500'],
    ['five hundred and two', '502'],
    ['five hundred twelve', '512'],
    ['one hundred twenty three', '123'],
    ['two thousand', '2000'],
    ['two thousand five', '2005'],
    ['two thousand five hundred', '2500'],
    ['two thousand twenty four', '2024'],
    ['one thousand two hundred thirty four', '1234'],
    ['nineteen hundred', '1900'],
    ['room four twelve', '412'],
    ['one two, and three', '123'],
    ['twenty twenty four', '2024'],
    ['ONE TWO THREE', '123'],
    ['', ''],
    ['no digits here', ''],
    ['and', ''],
    ['hundred', ''],
    ['double', ''],
  ])('%j → %j', (input, expected) => {
    expect(digits(input)).toBe(expected);
  });

  it('only ever returns digits (property)', () => {
    const words = fc.constantFrom(
      'one',
      'oh',
      'double',
      'triple',
      'twenty',
      'hundred',
      'thousand',
      'and',
      'x',
      '7',
      '-',
      ' ',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.array(words).map((w) => w.join(' ')),
        ),
        (input) => {
          expect(digits(input)).toMatch(/^[0-9]*$/);
        },
      ),
    );
  });

  it('keeps written digit strings as they are', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[0-9]{1,20}$/), (written) => {
        expect(digits(written)).toBe(written);
        expect(digits(written.split('').join(' '))).toBe(written);
      }),
    );
  });
});

describe('e164', () => {
  it.each([
    ['(415) 555-1234', '+14155551234'],
    ['415.555.1234', '+14155551234'],
    ['1 415 555 1234', '+14155551234'],
    ['+1 (415) 555-1234', '+14155551234'],
    ['four one five five five five one two three four', '+14155551234'],
    ['one four one five, five five five, one two three four', '+14155551234'],
    ['+44 20 7946 0958', '+442079460958'],
    ['0044 20 7946 0958', '+442079460958'],
    ['plus four four two zero seven nine four six zero nine five eight', '+442079460958'],
    ['555-1234', ''],
    ['(015) 555-1234', ''],
    ['415 155 1234', ''],
    ['+0 123 4567', ''],
    ['+1234567', ''],
    ['+1234567890123456', ''],
    ['call me', ''],
    ['', ''],
  ])('%j → %j', (input, expected) => {
    expect(toE164(input)).toBe(expected);
    expect(applyTransform('e164', input)).toBe(expected);
  });
});

describe('other operations', () => {
  it('transforms text', () => {
    expect(applyTransform('digits_only', 'a1-b2 three 3')).toBe('123');
    expect(applyTransform('lowercase', 'ÀbC')).toBe('àbc');
    expect(applyTransform('uppercase', 'straße')).toBe('STRASSE');
    expect(applyTransform('trim', '  x y \n')).toBe('x y');
    expect(applyTransform('collapse_whitespace', '  x \t\n y  ')).toBe('x y');
  });

  it('lists every operation and rejects unknown ones', () => {
    for (const operation of TRANSFORM_OPERATIONS) {
      expect(isTransformOperation(operation)).toBe(true);
      expect(typeof applyTransform(operation, ' A1 ')).toBe('string');
    }
    expect(isTransformOperation('json_parse')).toBe(false);
    expect(isTransformOperation('toString')).toBe(false);
    expect(() => applyTransform('toString', 'x')).toThrow('Unknown transform operation: toString');
  });
});
