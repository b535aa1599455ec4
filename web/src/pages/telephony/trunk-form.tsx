// The fields of a SIP trunk, shared by "New trunk" and a trunk's edit form. The password is
// write-only: the API never returns it, so the edit form starts blank and sends it only when typed.
import { CheckboxField, fieldBinder, SelectField, TextArea, TextField } from '../../components/fields';

export interface TrunkDraft {
  name: string;
  provider: 'carrier_a' | 'generic';
  transport: 'tls' | 'udp' | 'tcp';
  termination_uri: string;
  auth_username: string;
  auth_password: string;
  allowed_ips: string;
  register: boolean;
  registrar_uri: string;
  health_check: boolean;
}

export const EMPTY_TRUNK: TrunkDraft = {
  name: '',
  provider: 'generic',
  transport: 'udp',
  termination_uri: '',
  auth_username: '',
  auth_password: '',
  allowed_ips: '',
  register: false,
  registrar_uri: '',
  health_check: false,
};

/** The registration and health settings as the API takes them (create and edit alike). */
export function registrationBody(draft: TrunkDraft) {
  return {
    register: draft.register,
    registrar_uri: draft.register && draft.registrar_uri.trim() ? draft.registrar_uri.trim() : null,
    health_check: draft.health_check,
  };
}

/** "10.0.0.0/8, 192.0.2.1/32" or one per line, as the list the API takes. */
export function cidrList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function TrunkFields({
  draft,
  onChange,
  editing,
}: {
  draft: TrunkDraft;
  onChange: (d: TrunkDraft) => void;
  editing?: boolean;
}) {
  const field = fieldBinder(draft, onChange);
  return (
    <>
      <div className="grid-3">
        <TextField {...field('name')} label="Name" autoFocus={!editing} placeholder="Main carrier" />
        <SelectField
          name="provider"
          label="Provider"
          value={draft.provider}
          onChange={field('provider').onChange}
          options={[
            { value: 'generic', label: 'Generic SIP' },
            { value: 'carrier_a', label: 'Carrier A (elastic SIP trunking)' },
          ]}
          disabled={editing}
          hint={editing ? 'Fixed once the trunk exists.' : undefined}
        />
        <SelectField
          name="transport"
          label="Transport"
          value={draft.transport}
          onChange={field('transport').onChange}
          options={[
            { value: 'udp', label: 'UDP (port 5060)' },
            { value: 'tcp', label: 'TCP (port 5060)' },
            { value: 'tls', label: 'TLS (port 5061, with SRTP)' },
          ]}
        />
      </div>
      <TextField
        {...field('termination_uri')}
        label="Termination URI"
        placeholder="sip:mytrunk.pstn.twilio.com"
        hint="The carrier's host that outbound calls are sent to."
      />
      <div className="grid-2">
        <TextField {...field('auth_username')} label="Username" autoComplete="off" />
        <TextField
          {...field('auth_password')}
          label="Password"
          type="password"
          autoComplete="new-password"
          hint={
            editing
              ? 'Never shown again. Leave blank to keep the current one.'
              : 'Write-only: it is never shown again.'
          }
        />
      </div>
      <TextArea
        {...field('allowed_ips')}
        label="Allowed source IPs (optional)"
        rows={2}
        placeholder="203.0.113.0/24, 198.51.100.7/32"
        hint="CIDR ranges the carrier sends from, separated by commas or new lines. Empty: any source, authenticated by SIP domain."
      />
      <RegistrationFields draft={draft} onChange={onChange} />
    </>
  );
}

/** Whether the service registers with the carrier (and where), and whether it checks the carrier is up. */
function RegistrationFields({ draft, onChange }: { draft: TrunkDraft; onChange: (d: TrunkDraft) => void }) {
  const field = fieldBinder(draft, onChange);
  return (
    <fieldset className="fieldset">
      <legend>Registration and health</legend>
      <CheckboxField
        name="register"
        label="Register with the carrier"
        checked={draft.register}
        onChange={(register) => onChange({ ...draft, register })}
        hint="For carriers that send calls only to a registered contact: the service keeps a SIP REGISTER binding with these credentials."
      />
      {draft.register && (
        <TextField
          {...field('registrar_uri')}
          label="Registrar URI (optional)"
          placeholder="sip:registrar.example.com"
          hint="Empty: the termination URI's host."
        />
      )}
      <CheckboxField
        name="health_check"
        label="Check that the carrier is up"
        checked={draft.health_check}
        onChange={(health_check) => onChange({ ...draft, health_check })}
        hint="Pings the termination host with SIP OPTIONS; while it is down, outbound calls fail at once (trunk_unreachable)."
      />
    </fieldset>
  );
}
