// The parts `switchboard serve --role` can run.
export type Role = 'all' | 'api' | 'sip' | 'worker';
export const ROLES: readonly Role[] = ['all', 'api', 'sip', 'worker'];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}
