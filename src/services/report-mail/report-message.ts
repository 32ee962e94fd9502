// A mailed report (report-data.ts) as one message: a plain text part and the same in HTML. The HTML is
// written for mail clients, not browsers: tables for layout, every style inline (many clients drop <style>
// and <link>), nothing fetched (no images, no fonts) so opening the mail tells nobody anything. Names
// people chose and page paths visitors sent are escaped everywhere and kept off the subject's line breaks.
import { periodWords } from '../../domain/report-periods.js';
import type { MailMessage } from '../../ports/mailer.js';
import type { ReportData, ReportFigure, ReportTotals } from './report-data.js';
import { escapeHtml } from '../../domain/html-text.js';

/** One line: control characters, C1 (NEL) and Unicode line separators become spaces. */
function oneLine(s: string): string {
  return s.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ').trim();
}

const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
// exceptZero: a change that rounds to nothing reads "0%", never "+0%" or "-0%"
const SIGNED = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1, signDisplay: 'exceptZero' });

const count = (n: number) => COUNT.format(n);
const percent = (n: number) => `${ONE_DECIMAL.format(n)}%`;

/** Seconds as a stopwatch reads: "58s", "1m 05s", "1h 02m". */
function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  return `${Math.floor(s / 3600)}h ${pad(Math.floor((s % 3600) / 60))}m`;
}

interface FigureSpec {
  key: keyof ReportTotals;
  label: string;
  format: (n: number) => string;
  /** the change is a difference in percentage points, not a percent of the value before */
  points?: true;
  /** a fall is the good news (the change's colour only: its sign says it in words too) */
  lowerIsBetter?: true;
}

const FIGURES: FigureSpec[] = [
  { key: 'visitors', label: 'Visitors', format: count },
  { key: 'visits', label: 'Visits', format: count },
  { key: 'pageviews', label: 'Pageviews', format: count },
  { key: 'bounce_rate', label: 'Bounce rate', format: percent, points: true, lowerIsBetter: true },
  { key: 'visit_duration', label: 'Visit duration', format: duration },
];

function change(spec: FigureSpec, f: ReportFigure): string {
  if (f.change === null) return 'n/a';
  if (!spec.points) return `${SIGNED.format(f.change)}%`;
  const shown = SIGNED.format(f.change);
  return `${shown} ${/^[+-]?1$/.test(shown) ? 'pt' : 'pts'}`;
}

const before = (spec: FigureSpec, f: ReportFigure) => (f.previous === null ? 'n/a' : spec.format(f.previous));

/** A list's rows as cells, its column heads, and what it says when it has none. */
interface Listing {
  title: string;
  heads: string[];
  rows: string[][];
  none: string;
}

function listings(data: ReportData): Listing[] {
  // a period with visits can still have an empty list (direct visits have no source; a country may be unknown)
  const none = data.totals.visits.value === 0 ? 'No visits.' : 'None recorded.';
  const top = (title: string, head: string, rows: ReportData['pages']): Listing => ({
    title,
    heads: [head, 'Visitors'],
    rows: rows.map((r) => [oneLine(r.name), count(r.visitors)]),
    none,
  });
  return [
    top('Top pages', 'Page', data.pages),
    top('Top sources', 'Source', data.sources),
    top('Top countries', 'Country', data.countries),
    {
      title: 'Goal conversions',
      heads: ['Goal', 'Visitors', 'Events', 'Conversion rate'],
      rows: data.goals.map((g) => [oneLine(g.goal), count(g.visitors), count(g.events), percent(g.conversionRate)]),
      none: 'No goal conversions.',
    },
  ];
}

/** "example.com" or "example.com, tenant Acme": whose report it is, on one line. */
function whose(data: ReportData): string {
  const site = oneLine(data.siteName);
  return data.tenantName === null ? site : `${site}, tenant ${oneLine(data.tenantName)}`;
}

/**
 * Columns two spaces apart, each aligned as `align` says ('l' or 'r', one letter a column). Only labels
 * and numbers are padded (a list's names come last on their line), so a string's length is its width.
 */
function columns(rows: string[][], align: string): string[] {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => (align[i] === 'l' ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
      .join('  ')
      .trimEnd(),
  );
}

function text(to: string, data: ReportData, heading: string, when: string): string {
  const unit = data.period.period;
  const rows = FIGURES.map((s) => [
    s.label,
    s.format(data.totals[s.key].value),
    before(s, data.totals[s.key]),
    change(s, data.totals[s.key]),
  ]);
  const figures = columns([['', `This ${unit}`, `${unit === 'week' ? 'Week' : 'Month'} before`, 'Change'], ...rows], 'lrrr');
  const lists = listings(data).map((l) => {
    // numbers first, the name last: they line up whatever the length of a page path
    const table = [l.heads, ...l.rows].map((r) => [...r.slice(1), r[0]]);
    const lines = l.rows.length === 0 ? [l.none] : columns(table, `${'r'.repeat(l.heads.length - 1)}l`);
    return [l.title, '-'.repeat(l.title.length), ...lines].join('\n');
  });
  return [
    `${heading}\n${when}`,
    figures.join('\n'),
    ...lists,
    `Open the dashboard: ${oneLine(data.dashboardUrl)}`,
    `You get this because ${oneLine(to)} is subscribed to the ${unit}ly report of ${whose(data)}.\nUnsubscribe: ${oneLine(data.unsubscribeUrl)}`,
  ]
    .join('\n\n')
    .concat('\n');
}

// Colours meet WCAG AA on white and on the footer's grey: muted #4b5563 is 7.6:1 on white, links 6.7:1, changes over 5:1.
// biome-ignore format: a palette reads best on one line
const C = { ink: '#111827', muted: '#4b5563', page: '#f3f4f6', rule: '#e5e7eb', link: '#1d4ed8', up: '#047857', down: '#b91c1c' };
const FONT = "font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;";
const BREAK = 'word-break:break-word;overflow-wrap:anywhere;';

function tone(spec: FigureSpec, f: ReportFigure): string {
  if (f.change === null || Math.abs(f.change) < 0.05) return C.muted;
  return f.change > 0 !== Boolean(spec.lowerIsBetter) ? C.up : C.down;
}

/** A figure as a tile; tiles are inline blocks so a phone wraps them 3 + 2 rather than squeezing five. */
function tile(spec: FigureSpec, f: ReportFigure): string {
  const was = f.previous === null ? 'nothing to compare' : `was ${spec.format(f.previous)}`;
  return (
    `<div style="display:inline-block;width:108px;vertical-align:top;padding:12px 0;text-align:center;${FONT}">` +
    `<div style="font-size:13px;line-height:18px;color:${C.muted};">${spec.label}</div>` +
    `<div style="font-size:20px;line-height:28px;font-weight:700;color:${C.ink};${BREAK}">${escapeHtml(spec.format(f.value))}</div>` +
    `<div style="font-size:13px;line-height:18px;font-weight:600;color:${tone(spec, f)};">${escapeHtml(change(spec, f))}</div>` +
    `<div style="font-size:12px;line-height:17px;color:${C.muted};">${escapeHtml(was)}</div></div>`
  );
}

function table(l: Listing): string {
  // a number never breaks; a column's head may ("Conversion rate"), leaving a phone's width to the names
  const cell = (i: number) => (i === 0 ? `text-align:left;${BREAK}` : 'text-align:right;padding-left:12px;');
  const num = 'white-space:nowrap;font-variant-numeric:tabular-nums;';
  const head = l.heads
    .map(
      (h, i) =>
        `<th scope="col" style="${cell(i)}vertical-align:bottom;padding-top:6px;padding-bottom:6px;border-bottom:1px solid ${C.rule};font-size:12px;font-weight:600;color:${C.muted};">${escapeHtml(h)}</th>`,
    )
    .join('');
  const rows = l.rows
    .map(
      (r) =>
        `<tr>${r.map((c, i) => `<td style="${cell(i)}${i === 0 ? '' : num}padding-top:7px;padding-bottom:7px;border-bottom:1px solid ${C.rule};font-size:14px;line-height:20px;color:${C.ink};">${escapeHtml(c)}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const h2 = `<h2 style="margin:24px 0 6px;font-size:16px;line-height:22px;color:${C.ink};${FONT}">${escapeHtml(l.title)}</h2>`;
  if (l.rows.length === 0)
    return `${h2}\n<p style="margin:0;font-size:14px;line-height:20px;color:${C.muted};${FONT}">${escapeHtml(l.none)}</p>`;
  return `${h2}\n<table width="100%" cellpadding="0" cellspacing="0" border="0" style="border-collapse:collapse;width:100%;${FONT}">\n<tr>${head}</tr>\n${rows}\n</table>`;
}

function html(to: string, data: ReportData, subject: string, heading: string, when: string): string {
  const shell = 'role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0"';
  const tiles = FIGURES.map((s) => tile(s, data.totals[s.key])).join('');
  const lists = listings(data).map(table).join('\n');
  const why = `You get this because ${escapeHtml(oneLine(to))} is subscribed to the ${data.period.period}ly report of ${escapeHtml(whose(data))}.`;
  // Outlook for Windows knows no max-width: the conditional table gives it the 600 px the others get
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="supported-color-schemes" content="light">
<title>${escapeHtml(subject)}</title>
</head>
<body style="margin:0;padding:0;background-color:${C.page};">
<table ${shell} style="background-color:${C.page};">
<tr><td align="center" style="padding:24px 8px;">
<!--[if mso]><table role="presentation" width="600" cellpadding="0" cellspacing="0" border="0"><tr><td><![endif]-->
<table ${shell} style="max-width:600px;background-color:#ffffff;border-radius:8px;">
<tr><td style="padding:24px 20px 8px;${FONT}color:${C.ink};">
<h1 style="margin:0 0 6px;font-size:22px;line-height:28px;${BREAK}">${escapeHtml(heading)}</h1>
<p style="margin:0;font-size:14px;line-height:20px;color:${C.muted};">${escapeHtml(when)}</p>
</td></tr>
<tr><td style="padding:4px 14px;text-align:center;font-size:0;line-height:0;">${tiles}</td></tr>
<tr><td style="padding:0 20px;${FONT}">
${lists}
</td></tr>
<tr><td style="padding:28px 20px;${FONT}">
<a href="${escapeHtml(data.dashboardUrl)}" style="display:inline-block;padding:12px 20px;border-radius:6px;background-color:${C.link};color:#ffffff;font-size:15px;line-height:20px;font-weight:600;text-decoration:none;">Open the dashboard</a>
</td></tr>
</table>
<table ${shell} style="max-width:600px;">
<tr><td style="padding:16px 20px;font-size:12px;line-height:18px;color:${C.muted};${FONT}${BREAK}">
${why} <a href="${escapeHtml(data.unsubscribeUrl)}" style="color:${C.link};text-decoration:underline;">Unsubscribe</a>
</td></tr>
</table>
<!--[if mso]></td></tr></table><![endif]-->
</td></tr>
</table>
</body>
</html>
`;
}

export function reportMessage(to: string, data: ReportData): MailMessage {
  const kind = data.period.period === 'week' ? 'Weekly' : 'Monthly';
  const words = periodWords(data.period);
  const heading = `${kind} report for ${whose(data)}`;
  const when = `${words}, days counted in ${oneLine(data.timezone)}`;
  const subject = `${heading}: ${words}`;
  return {
    to,
    subject,
    text: text(to, data, heading, when),
    html: html(to, data, subject, heading, when),
    headers: {
      'List-Unsubscribe': `<${oneLine(data.unsubscribeUrl)}>`,
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    },
  };
}
