// The body of POST /api/event as the OpenAPI document states it (docs/product.md §9). The route reads
// and checks it itself (ingest/collect/tracker-payload.ts: short or long keys, field-level 422s), so this
// schema documents the body; it does not validate it.
import { Type } from '@sinclair/typebox';
import { MAX_DOMAIN, MAX_NAME, MAX_PROP_KEY, MAX_PROP_VALUE, MAX_PROPS, MAX_URL } from '../../ingest/collect/tracker-payload.js';
import { MAX_ENGAGEMENT_MS } from '../../domain/events.js';

const name = () =>
  Type.String({
    maxLength: MAX_NAME,
    description:
      '`pageview`, `engagement`, a built-in name of the tracker (`Outbound Link: Click`, `File Download`, `Form: Submission`, `404`), or a custom action of your own',
  });
const url = () => Type.String({ maxLength: MAX_URL, description: "The page's absolute http(s) URL" });
const domain = () =>
  Type.String({ maxLength: MAX_DOMAIN, description: 'A hostname of the site (as the page configured it): which site the event is for' });
const referrer = () => Type.Union([Type.String(), Type.Null()], { description: 'The full referring URL, or null' });
const props = () =>
  Type.Union(
    [
      Type.Record(
        Type.String({ minLength: 1, maxLength: MAX_PROP_KEY }),
        Type.Union([Type.String({ maxLength: MAX_PROP_VALUE }), Type.Number(), Type.Boolean(), Type.Null()]),
        {
          maxProperties: MAX_PROPS,
        },
      ),
      Type.String({ description: 'the same object as a JSON string' }),
    ],
    {
      description: `Custom properties, at most ${MAX_PROPS}: title, tenant_id, action_id, form_id, form_action_path, family and url (of an outbound click) are read; all but the first six are stored as the event's custom properties (none on a strict site)`,
    },
  );
const hash = () =>
  Type.Union([Type.Boolean(), Type.Integer()], { description: 'true or 1: the URL fragment is part of the page (hash-routed apps)' });
const interactive = () => Type.Boolean({ description: 'false: an event that is not an interaction (stored as instrumentation)' });
const engagement = () =>
  Type.Integer({
    minimum: 0,
    maximum: MAX_ENGAGEMENT_MS,
    description: 'Engaged milliseconds on the page; required by an engagement event',
  });

export const TrackerEventSchema = Type.Object(
  {
    name: Type.Optional(name()),
    url: Type.Optional(url()),
    domain: Type.Optional(domain()),
    referrer: Type.Optional(referrer()),
    props: Type.Optional(props()),
    hashMode: Type.Optional(hash()),
    interactive: Type.Optional(interactive()),
    engagement_time: Type.Optional(engagement()),
    n: Type.Optional(name()),
    u: Type.Optional(url()),
    d: Type.Optional(domain()),
    r: Type.Optional(referrer()),
    p: Type.Optional(props()),
    h: Type.Optional(hash()),
    i: Type.Optional(interactive()),
    e: Type.Optional(engagement()),
  },
  {
    title: 'TrackerEvent',
    description:
      "One event, as Plausible's Events API (long names) or its tracker (short keys: n, u, d, r, p, h, i, e) sends it; a short key wins over its long name. " +
      'name, url and domain are required (under either name). Other fields are ignored.',
    additionalProperties: true,
  },
);
