// Accept -> the JSON envelope or CSV, on the routes offering both.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { negotiateFormat } from '../../src/http/pipeline/negotiate.js';

test('CSV when asked for, alone or preferred', () => {
  for (const accept of [
    'text/csv',
    'TEXT/CSV',
    'text/csv; charset=utf-8',
    'text/csv;charset="UTF-8"',
    'text/csv, application/json',
    'application/json;q=0.5, text/csv',
    'text/csv;q=0.9, application/json;q=0.8',
    'text/csv, */*;q=0.1',
    'text/csv, */*',
    'text/*',
    'application/xml, text/csv',
  ]) {
    assert.equal(negotiateFormat(accept), 'csv', accept);
  }
});

test('JSON without Accept, when preferred, on ties the header does not break, and when CSV is refused', () => {
  for (const accept of [
    undefined,
    '',
    '*/*',
    'application/json',
    'application/json, text/csv',
    'text/csv;q=0.5, application/json',
    'application/*, text/csv;q=0.9',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'text/csv;q=0',
    'text/csv;q=0, */*',
    'text/csv; charset=iso-8859-1',
    'text/csv;q=abc',
    'text/html',
    'garbage',
    ',,,;',
  ]) {
    assert.equal(negotiateFormat(accept), 'json', String(accept));
  }
});

test("the most specific range sets a type's weight", () => {
  assert.equal(negotiateFormat('text/*;q=0.1, text/csv;q=0.9, application/json;q=0.5'), 'csv');
  assert.equal(negotiateFormat('text/csv;q=0.1, */*;q=0.9'), 'json');
  assert.equal(negotiateFormat('text/*;q=0.9, application/json;q=0.5'), 'csv');
});
