// Whether this node can speak and hear, for /healthz and the start-up banner. Speech out with no
// tts_vendor_1 key is Debian's espeak-ng program, which a fresh machine may lack: that is reported
// (with the command that installs it) rather than found out at the first call. Speech in is always
// available: stt_vendor_1 when configured, else the embedded recogniser from npm.
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import { sttVendorConfigured } from './stt/registry.js';

export const ESPEAK_INSTALL_HINT = 'apt-get install espeak-ng';

export interface SpeechPartStatus {
  provider: string;
  /** The embedded engine standing in for the vendor, or null when the vendor answers. */
  engine: string | null;
  available: boolean;
  /** Why not, and how to fix it. */
  detail?: string;
}

export interface SpeechStatus {
  output: SpeechPartStatus;
  input: SpeechPartStatus;
}

/** Whether `command` names an executable file (a path, or a name found on PATH). */
export function programExists(command: string, searchPath = process.env.PATH ?? ''): boolean {
  const candidates = command.includes('/')
    ? [command]
    : searchPath
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, command));
  return candidates.some((file) => {
    try {
      accessSync(file, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

export function speechStatus(
  config: Pick<Config, 'providers' | 'speech'>,
  exists: (command: string) => boolean = programExists,
): SpeechStatus {
  const tts = config.providers.tts_vendor_1;
  const command = config.speech.espeakCommand;
  const espeak = !(tts?.apiKey || tts?.baseUrl);
  const installed = !espeak || exists(command);
  return {
    output: {
      provider: 'tts_vendor_1',
      engine: espeak ? 'espeak-ng' : null,
      available: installed,
      ...(installed ? {} : { detail: `${command} is not installed (${ESPEAK_INSTALL_HINT})` }),
    },
    input: {
      provider: 'stt_vendor_1',
      engine: sttVendorConfigured(config) ? null : 'soundswallower',
      available: true,
    },
  };
}
