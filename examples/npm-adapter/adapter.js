// A tiny adapter: reads what `claude -p --output-format json` prints (one `result` object) and summarises it.
// `node adapter.js FILE` summarises a file; `node adapter.js --serve` speaks wirecheck fuzz-consumer's line protocol
// (one JSON message per line in; `accept`, `ignore` or `reject REASON` per line out).
'use strict';

class AdapterError extends Error {}

// The summary of a result, null for a message that is not one (ignored), an AdapterError for one it cannot use.
function parseResult(value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AdapterError('not a JSON object');
  }
  if (value.type !== 'result') return null;
  if (typeof value.is_error !== 'boolean') throw new AdapterError('is_error is not true or false');
  if (typeof value.session_id !== 'string') throw new AdapterError('session_id is not a string');
  if (typeof value.subtype !== 'string') throw new AdapterError('subtype is not a string');
  if (value.subtype === 'success' && typeof value.result !== 'string') {
    throw new AdapterError('a success without its result text');
  }
  if (value.subtype !== 'success' && !Array.isArray(value.errors)) {
    throw new AdapterError(`a ${value.subtype} result without its errors`);
  }
  return {
    ok: value.subtype === 'success' && !value.is_error,
    session: value.session_id,
    text: value.subtype === 'success' ? value.result : value.errors.join('; '),
  };
}

function serve() {
  const lines = require('readline').createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    let answer;
    try {
      answer = parseResult(JSON.parse(line)) === null ? 'ignore' : 'accept';
    } catch (error) {
      answer = `reject ${String(error.message).split('\n')[0]}`;
    }
    process.stdout.write(`${answer}\n`);
  });
}

if (require.main === module) {
  if (process.argv[2] === '--serve') {
    serve();
  } else {
    const text = require('fs').readFileSync(process.argv[2] || 0, 'utf8');
    console.log(JSON.stringify(parseResult(JSON.parse(text))));
  }
}

module.exports = { parseResult, AdapterError };
