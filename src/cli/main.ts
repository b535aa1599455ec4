// The `switchboard` command line (bin/switchboard.js imports this file). Everything lives in
// dispatch.ts; this entry only binds it to the real process.
import { runCli } from './dispatch.js';

process.exitCode = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
});
