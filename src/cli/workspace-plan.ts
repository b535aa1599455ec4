// `switchboard workspace plan --workspace ID [--voice-minutes N] [--sessions N] [--calls N]`:
// sets the monthly (UTC) allowances. Each allowance left out becomes unlimited, so the command
// always states the whole plan and a bare call lifts every limit.
import { setPlan, type PlanAllowances } from '../modules/workspaces/workspaces.service.js';
import { systemClock } from '../shared/clock.js';
import {
  CliError,
  type CliIo,
  parseFlags,
  printJson,
  printLine,
  required,
  wholeNumber,
  showHelp,
} from './io.js';
import { cliConfig, withStore } from './open-store.js';

export const help = `Usage: switchboard workspace plan --workspace ID [--voice-minutes N] [--sessions N] [--calls N] [--json]

Sets the plan allowances per billing period (calendar month, UTC). An allowance
left out is unlimited; with no allowance flag the workspace has no limits.
Once an allowance is used up, POST /calls and POST /sessions answer 402.
  --workspace ID       workspace id (required)
  --voice-minutes N    minutes of calls per month
  --sessions N         sessions per month
  --calls N            calls per month
  --json               print {"workspace_id": "…", "plan": {"voice_minutes", "sessions", "calls"}}`;

const describe = (n: number | null) => (n === null ? 'unlimited' : String(n));

export async function workspacePlanCommand(argv: string[], io: CliIo): Promise<number> {
  const cmd = 'workspace plan';
  const flags = parseFlags(
    argv,
    {
      workspace: { type: 'string' },
      'voice-minutes': { type: 'string' },
      sessions: { type: 'string' },
      calls: { type: 'string' },
      json: { type: 'boolean' },
    },
    cmd,
  );
  if (flags.help) return showHelp(io, help);
  const workspaceId = required(flags.workspace, 'workspace', cmd);
  const allowance = (flag: 'voice-minutes' | 'sessions' | 'calls') => {
    const v = flags[flag];
    return v === undefined ? null : wholeNumber(v, flag, cmd);
  };
  const plan: PlanAllowances = {
    voice_minutes: allowance('voice-minutes'),
    sessions: allowance('sessions'),
    calls: allowance('calls'),
  };

  await withStore(cliConfig(io.env), async (store) => {
    if (!(await setPlan({ db: store.db, clock: systemClock }, workspaceId, plan))) {
      throw new CliError(`${cmd}: no workspace with id ${workspaceId}`);
    }
  });
  if (flags.json) {
    printJson(io, { workspace_id: workspaceId, plan });
  } else {
    printLine(
      io,
      `Plan of workspace ${workspaceId} per month (UTC): voice minutes ${describe(plan.voice_minutes)}, ` +
        `sessions ${describe(plan.sessions)}, calls ${describe(plan.calls)}.`,
    );
  }
  return 0;
}
