// SIP trunks may keep a REGISTER binding at their carrier and be watched with OPTIONS pings.
// `register` and `health_check` are what the customer asks for (booleans as integers, default off,
// so existing trunks behave as before); the other columns are what the SIP node found out and
// writes back: registration_status (null, registering, registered, failed), the last error, until
// when the carrier holds the binding, and health (null, unknown, up, down).
import type { Kysely } from 'kysely';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  // One column per statement: SQLite's ALTER TABLE adds one at a time.
  const add = [
    db.schema.alterTable('sip_trunks').addColumn('register', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('sip_trunks').addColumn('registrar_uri', 'text'),
    db.schema.alterTable('sip_trunks').addColumn('health_check', 'integer', (c) => c.notNull().defaultTo(0)),
    db.schema.alterTable('sip_trunks').addColumn('registration_status', 'text'),
    db.schema.alterTable('sip_trunks').addColumn('registration_error', 'text'),
    db.schema.alterTable('sip_trunks').addColumn('registered_until', 'text'),
    db.schema.alterTable('sip_trunks').addColumn('health', 'text'),
  ];
  for (const q of add) await q.execute();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function down(db: Kysely<any>): Promise<void> {
  for (const c of [
    'health',
    'registered_until',
    'registration_error',
    'registration_status',
    'health_check',
    'registrar_uri',
    'register',
  ]) {
    await db.schema.alterTable('sip_trunks').dropColumn(c).execute();
  }
}
