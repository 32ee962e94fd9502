// User-agent parsing into the four fields docs/product.md §3 derives from it. A compact rule table: the
// first rule that matches wins, so more specific products come before the engines they embed
// (Edge and Opera carry "Chrome/", Chrome carries "Safari/").
import type { DeviceType, TrafficClass } from '../../domain/events.js';
import { trafficClassOf } from './agent-rules.js';
import { BoundedMemo } from './memo.js';

export interface ParsedUserAgent {
  device_type: DeviceType;
  browser_family: string;
  os_family: string;
  traffic_class: TrafficClass;
}

type Rule = readonly [RegExp, string];

const BROWSERS: readonly Rule[] = [
  [/\bEdg(?:e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOPiOS\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bYaBrowser\//, 'Yandex Browser'],
  [/\bUC ?Browser\//, 'UC Browser'],
  [/\bVivaldi\//, 'Vivaldi'],
  [/\bSilk\//, 'Silk'],
  [/\bMSIE |\bTrident\/\d/, 'IE'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChrome\/|\bCriOS\/|\bChromium\//, 'Chrome'],
  // Android's pre-Chrome stock browser: "Version/4.0 ... Safari" on Android, no Chrome token.
  [/Android.*\bVersion\/[\d.]+.*Safari\//, 'Android Browser'],
  [/\bVersion\/[\d.]+.*Safari\/|\b(?:iPhone|iPad|iPod)\b.*AppleWebKit\/.*Safari\//, 'Safari'],
];

// iOS first: its user agents say "like Mac OS X".
const OSES: readonly Rule[] = [
  [/\bWindows Phone\b|\bWindows Mobile\b/, 'Windows Phone'],
  [/\b(?:iPhone|iPad|iPod)\b|\biPhone OS\b/, 'iOS'],
  [/\bAndroid\b|\bSilk\/|\bKF[A-Z]{2,6} Build\//, 'Android'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMacintosh\b|\bMac OS X\b/, 'macOS'],
  [/\bWindows\b|\bWin(?:95|98|NT|32|64)\b/, 'Windows'],
  [/\bLinux\b|\bUbuntu\b|\bFedora\b|\bDebian\b/, 'Linux'],
];

const TABLET = /\biPad\b|\bTablet\b|\bKF[A-Z]{2,6} Build\/|\bSilk\/|\bPlayBook\b|\bNexus (?:7|9|10)\b/;
const MOBILE =
  /\bMobi|\biPhone\b|\biPod\b|\bAndroid\b|\bWindows Phone\b|\bOpera Mini\b|\bBlackBerry\b|\bBB10\b|\bMIDP\b|\bJ2ME\b|\bWAP Browser\b|\bUP\.Browser\b|\bSymbian/;
const OTHER_DEVICE = /\bSMART-?TV\b|\bSmartTV\b|\bPlayStation\b|\bXbox\b|\bNintendo\b|\bAppleTV\b|\bCrKey\b|\bTizen\b.*\bTV\b/i;
const DESKTOP = /\bWindows NT\b|\bWindows\b|\bMacintosh\b|\bX11\b|\bLinux\b|\bCrOS\b/;

function firstMatch(rules: readonly Rule[], ua: string): string {
  for (const [re, name] of rules) if (re.test(ua)) return name;
  return 'Other';
}

function deviceOf(ua: string): DeviceType {
  if (OTHER_DEVICE.test(ua)) return 'other';
  if (TABLET.test(ua)) return 'tablet';
  // Android phones say "Mobile"; Android tablets do not.
  if (/\bAndroid\b/.test(ua) && !/\bMobi/.test(ua)) return 'tablet';
  if (MOBILE.test(ua)) return 'mobile';
  if (DESKTOP.test(ua)) return 'desktop';
  return 'other';
}

/**
 * Parse a user agent. Automated clients (any class but human) report device "other" and browser
 * and OS "Other": they describe a program, not the person's device, and a crawler that imitates
 * an iPhone would otherwise count as one.
 */
export function parseUserAgent(ua: string): ParsedUserAgent {
  return agents.get(ua);
}

// A log repeats a few thousand agents, and the rules above are a dozen regexes each; results are frozen (shared).
const agents = new BoundedMemo((ua: string): ParsedUserAgent => Object.freeze(parseUncached(ua)), 4096, 2048);

function parseUncached(ua: string): ParsedUserAgent {
  const traffic_class = trafficClassOf(ua);
  if (traffic_class !== 'human') {
    return { device_type: 'other', browser_family: 'Other', os_family: 'Other', traffic_class };
  }
  return {
    device_type: deviceOf(ua),
    browser_family: firstMatch(BROWSERS, ua),
    os_family: firstMatch(OSES, ua),
    traffic_class,
  };
}
