/*! footfall first-party tracker, served at /js/script.js. No cookies, no storage, nothing but the event.
 * <script defer data-domain="example.com" src="https://stats.example.com/js/script.js"></script>
 * data-domain   the site's hostname as registered in footfall (default: this page's host)
 * data-api      where events go (default: /api/event on the script's own origin)
 * data-tenant-id  a tenant of the site: every event of the page is the tenant's
 * data-hash     the fragment is part of the page (hash-routed single-page apps)
 * Custom events: footfall('Signup', { props: { action_id: 'hero' } }).
 */
(function () {
  'use strict';
  var script = document.currentScript;
  if (!script || window.footfall) return;
  var domain = script.getAttribute('data-domain') || location.hostname;
  var endpoint = script.getAttribute('data-api') || new URL('/api/event', script.src).href;
  var tenant = script.getAttribute('data-tenant-id');
  var hashRouting = script.hasAttribute('data-hash');
  var DOWNLOAD = /\.(pdf|xlsx?|docx?|pptx?|odt|ods|txt|rtf|csv|json|xml|exe|msi|dmg|pkg|deb|rpm|apk|iso|zip|rar|7z|gz|tgz|bz2|xz|mp3|wav|flac|ogg|mp4|mov|avi|mkv|webm|wmv|mpe?g)$/i;

  function send(name, props, url, extra) {
    var p = {};
    if (tenant) p.tenant_id = tenant;
    for (var k in props || {}) if (Object.prototype.hasOwnProperty.call(props, k) && props[k] != null) p[k] = String(props[k]);
    var event = { n: name, u: url || location.href, d: domain, r: document.referrer || null };
    for (k in p) { event.p = p; break; }
    if (hashRouting) event.h = 1;
    for (k in extra || {}) event[k] = extra[k];
    var body = JSON.stringify(event);
    // text/plain keeps the request "simple" (no CORS preflight); keepalive lets it outlive the page.
    try {
      fetch(endpoint, { method: 'POST', headers: { 'Content-Type': 'text/plain' }, body: body, keepalive: true, credentials: 'omit' })['catch'](function () {});
    } catch (e) {
      if (navigator.sendBeacon) navigator.sendBeacon(endpoint, body);
    }
  }

  // Engaged time: how long the page was visible and focused, sent when it is hidden or left.
  var page = null;
  var pageUrl = null;
  var engaged = 0;
  var since = null;
  function active() {
    return document.visibilityState === 'visible' && (!document.hasFocus || document.hasFocus());
  }
  function pause() {
    if (since !== null) engaged += Date.now() - since;
    since = null;
  }
  function resume() {
    if (since === null && active()) since = Date.now();
  }
  function flushEngagement() {
    pause();
    if (pageUrl && engaged >= 1000) send('engagement', null, pageUrl, { e: engaged });
    engaged = 0;
  }
  document.addEventListener('visibilitychange', function () {
    if (document.visibilityState === 'hidden') flushEngagement();
    else resume();
  });
  window.addEventListener('blur', pause);
  window.addEventListener('focus', resume);
  window.addEventListener('pagehide', flushEngagement);

  // Pageviews: on load and on every client-side navigation (history API, back/forward, hash routes).
  function pageview() {
    var current = location.pathname + (hashRouting ? location.hash : '');
    if (current === page) return;
    flushEngagement();
    page = current;
    pageUrl = location.href;
    send('pageview', null);
    resume();
  }
  var push = history.pushState;
  if (push) {
    history.pushState = function () {
      push.apply(this, arguments);
      pageview();
    };
    var replace = history.replaceState;
    history.replaceState = function () {
      replace.apply(this, arguments);
      pageview();
    };
  }
  window.addEventListener('popstate', pageview);
  if (hashRouting) window.addEventListener('hashchange', pageview);
  window.addEventListener('pageshow', function (e) {
    if (e.persisted) {
      page = null;
      pageview();
    }
  });

  // Outbound links and downloads (as the actions outbound.click and file.download).
  function onClick(e) {
    if (e.type === 'auxclick' && e.button !== 1) return;
    var a = e.target && e.target.closest ? e.target.closest('a[href]') : null;
    if (!a || !/^https?:$/.test(a.protocol)) return;
    var href = a.href.split('#')[0];
    if (DOWNLOAD.test(a.pathname)) send('File Download', { url: href.split('?')[0] });
    else if (a.host !== location.host) send('Outbound Link: Click', { url: href });
  }
  document.addEventListener('click', onClick, true);
  document.addEventListener('auxclick', onClick, true);

  // Form submits (form.submit): the form's id and where it posts to.
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!form || form.tagName !== 'FORM') return;
    var action = form.getAttribute('action') ? new URL(form.action, location.href).pathname : location.pathname;
    send('Form: Submission', { form_id: form.id || null, form_action_path: action });
  }, true);

  window.footfall = function (name, options) {
    send(String(name), options && options.props, options && options.url);
  };
  if (document.visibilityState === 'prerender') {
    document.addEventListener('visibilitychange', function once() {
      if (document.visibilityState !== 'visible') return;
      document.removeEventListener('visibilitychange', once);
      pageview();
    });
  } else pageview();
})();
