// Oracle runner: npm canonicalize (pinned in package.json / package-lock.json).
//
// Reads JSON lines on stdin. Each line is either a JSON string whose value is
// a document's text, or an object {"hex": "..."} holding the document's raw
// bytes. Writes one line per input: the canonical UTF-8 bytes as lowercase
// hex, or "!<reason>" when this oracle rejects the document or cannot judge it.
//
// Limits of this oracle: JSON.parse keeps the last of duplicate keys (so
// duplicates are not detected here), and raw bytes are decoded with a fatal
// UTF-8 decoder so invalid UTF-8 is reported instead of becoming U+FFFD.
import canonicalize from 'canonicalize';
import { createInterface } from 'node:readline';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function judge(text) {
  if (!text.isWellFormed()) return '!invalid-utf8';
  if (text.startsWith('\ufeff')) return '!byte-order-mark';
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return '!parse-error: ' + e.message;
  }
  let out;
  try {
    out = canonicalize(value);
  } catch (e) {
    if (/surrogate/i.test(e.message)) return '!lone-surrogate';
    if (/Infinity|NaN/.test(e.message)) return '!number-out-of-range';
    return '!canonicalize-error: ' + e.message;
  }
  if (typeof out !== 'string') return '!no-output';
  return Buffer.from(out, 'utf8').toString('hex');
}

function judgeLine(line) {
  const item = JSON.parse(line);
  if (typeof item === 'string') return judge(item);
  if (item !== null && typeof item === 'object' && typeof item.hex === 'string') {
    let text;
    try {
      text = decoder.decode(Buffer.from(item.hex, 'hex'));
    } catch {
      return '!invalid-utf8';
    }
    return judge(text);
  }
  return '!bad-input-line';
}

const chunks = [];
const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
for await (const line of rl) {
  if (line.trim() === '') continue;
  let result;
  try {
    result = judgeLine(line);
  } catch (e) {
    result = '!internal: ' + e.message;
  }
  chunks.push(result.replace(/\n/g, ' '));
  if (chunks.length >= 4096) {
    process.stdout.write(chunks.join('\n') + '\n');
    chunks.length = 0;
  }
}
if (chunks.length > 0) process.stdout.write(chunks.join('\n') + '\n');
