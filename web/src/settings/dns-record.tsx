// The TXT record that proves a domain, each part ready to copy into a DNS provider's form.
import type { DnsVerification } from '../api/manage-types.js';
import { CopyField } from '../ui/copy-field.js';

export function DnsRecordFields({ record }: { record: DnsVerification }) {
  return (
    <div class="dns-record">
      <CopyField label="Record name" value={record.name} />
      <p class="record-type">
        <span class="field-label">Type</span> <code>{record.type}</code>
      </p>
      <CopyField label="Record value" value={record.value} />
    </div>
  );
}
