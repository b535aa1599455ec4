// Stands in for `espeak-ng --stdout` in tests: reads the text on stdin, writes a 22050 Hz mono
// 16-bit WAV with a placeholder length (as espeak-ng does on a pipe) in odd-sized pieces.
// Usage: node fake-espeak.js <log.json> [espeak-ng arguments…]; the arguments and text are logged.
import { Buffer } from 'node:buffer';
import { writeFileSync } from 'node:fs';

const [logPath, ...args] = process.argv.slice(2);
let text = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (d) => (text += d));
process.stdin.on('end', () => {
  writeFileSync(logPath, JSON.stringify({ args, text }));
  const voice = args[args.indexOf('-v') + 1];
  if (voice === 'zz') {
    process.stderr.write('Error: voice "zz" does not exist\n');
    process.exit(1);
  }
  const rate = 22050;
  const samples = text.length * 441; // 20 ms per character
  const header = Buffer.alloc(44 + 12);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(0xffffffff, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  // An odd-sized LIST chunk (padded to even) before data, which readers must skip.
  header.write('LIST', 36, 'latin1');
  header.writeUInt32LE(3, 40);
  header.write('abc', 44, 'latin1');
  header.write('data', 48, 'latin1');
  header.writeUInt32LE(0xffffffff, 52);
  const body = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    body.writeInt16LE(Math.round(10000 * Math.sin((2 * Math.PI * 300 * i) / rate)), i * 2);
  const all = Buffer.concat([header, body]);
  for (let i = 0; i < all.length; i += 1001) process.stdout.write(all.subarray(i, i + 1001));
});
