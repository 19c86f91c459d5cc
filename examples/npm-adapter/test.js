// The adapter's own test: the recorded capture reads as a successful run.
'use strict';
const assert = require('assert');
const fs = require('fs');
const { parseResult } = require('./adapter');

const summary = parseResult(JSON.parse(fs.readFileSync('captures/claude-result.json', 'utf8')));
assert.strictEqual(summary.ok, true);
assert.ok(summary.session.length > 0);
assert.strictEqual(parseResult({ type: 'system' }), null);
console.log('adapter: ok');
