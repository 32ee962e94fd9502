// A site's time zone to pick: the browser's own list of IANA names, UTC first (the default). The value a
// site has is always an option even when this browser does not list it: browsers disagree on which of
// two names of one zone they list (Asia/Katmandu or Asia/Kathmandu), and the server keeps the one chosen.

let zones: string[] | undefined;

function listed(): string[] {
  zones ??= ['UTC', ...Intl.supportedValuesOf('timeZone').filter((z) => z !== 'UTC')];
  return zones;
}

export function TimeZoneSelect({ name, value, id }: { name: string; value: string; id?: string }) {
  const options = listed().includes(value) ? listed() : [value, ...listed()];
  return (
    <select name={name} id={id} value={value}>
      {options.map((z) => (
        <option key={z} value={z}>
          {z.replaceAll('_', ' ')}
        </option>
      ))}
    </select>
  );
}
