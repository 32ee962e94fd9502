import { test } from 'node:test';
import assert from 'node:assert/strict';
import { familyOf } from '../../../src/ingest/parse/families.js';

test('families derive from the action name when absent', () => {
  assert.equal(familyOf('form.submit'), 'forms');
  assert.equal(familyOf('outbound.click'), 'outbound');
  assert.equal(familyOf('file.download'), 'downloads');
  assert.equal(familyOf('ui.click'), 'instrumentation');
  assert.equal(familyOf('error.js'), 'errors');
  assert.equal(familyOf('error.'), 'errors');
  assert.equal(familyOf('signup'), 'custom');
  assert.equal(familyOf('errors.js'), 'custom');
  assert.equal(familyOf('Form.Submit'), 'custom');
  assert.equal(familyOf('goal.reached'), 'custom');
});

test('a sent family wins, and goals only ever come from a sent family', () => {
  assert.equal(familyOf('signup', 'goals'), 'goals');
  assert.equal(familyOf('form.submit', 'custom'), 'custom');
  assert.equal(familyOf('ui.click', null), 'instrumentation');
  assert.equal(familyOf('goals'), 'custom');
});
