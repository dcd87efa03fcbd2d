// The godwit dashboard: polls the admin API and renders what it answers.
// Vanilla JS, no dependencies. Every URL is relative, so the dashboard
// also works behind a reverse proxy that mounts it under a path prefix.
"use strict";

(function () {
  const STATUS_EVERY_MS = 3000;
  const HOSTS_EVERY_MS = 10000;
  const REQUEST_TIMEOUT_MS = 8000;
  const WINDOW_S = 600; // the chart's time span: Status.rate covers 10 minutes
  const BUCKET_S = 10; // one Status.rate point per 10 seconds

  const $ = (id) => document.getElementById(id);
  const int = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });
  const dec1 = new Intl.NumberFormat(undefined, { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const pct = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 2 });
  const pct1 = new Intl.NumberFormat(undefined, { style: "percent", maximumFractionDigits: 1 });
  const clock = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" });

  // el builds an element: el("td", {class: "num"}, "12"). Text is always set
  // as text, never parsed as HTML: host names come from the web.
  function el(tag, attrs, ...children) {
    const svg = ["path", "line", "rect", "text", "g"].includes(tag);
    const e = svg ? document.createElementNS("http://www.w3.org/2000/svg", tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) e.append(c instanceof Node ? c : String(c));
    return e;
  }

  function setText(id, text) {
    $(id).textContent = text;
  }

  function formatBytes(n) {
    const units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let i = 0;
    while (n >= 1024 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return (i === 0 ? int.format(n) : dec1.format(n)) + " " + units[i];
  }

  function formatDuration(s) {
    s = Math.floor(s);
    const d = Math.floor(s / 86400), h = Math.floor(s / 3600) % 24, m = Math.floor(s / 60) % 60;
    if (d > 0) return `${d} d ${h} h ${m} min`;
    if (h > 0) return `${h} h ${m} min`;
    if (m > 0) return `${m} min ${s % 60} s`;
    return `${s} s`;
  }

  // Go marshals a zero time.Time as year 1: show it as "never".
  function formatTime(iso) {
    const t = new Date(iso);
    if (!iso || isNaN(t) || t.getUTCFullYear() <= 1) return "never";
    return t.toLocaleString();
  }

  // ApiError carries the HTTP status and the API's ErrorBody message.
  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // api GETs a path relative to the page and returns its JSON. The session
  // cookie set by /?token= goes along by itself (same origin).
  async function api(path) {
    const ctl = new AbortController();
    const timer = setTimeout(() => ctl.abort(), REQUEST_TIMEOUT_MS);
    try {
      const r = await fetch(path, { signal: ctl.signal, headers: { Accept: "application/json" }, cache: "no-store" });
      if (!r.ok) {
        let msg = `HTTP ${r.status}`;
        try {
          const body = await r.json();
          if (body && body.error && body.error.message) msg += `: ${body.error.message}`;
        } catch (_) {
          // Not the JSON envelope (a proxy's page, say): the status will do.
        }
        throw new ApiError(r.status, msg);
      }
      return await r.json();
    } catch (e) {
      if (e.name === "AbortError") throw new ApiError(0, "no answer within " + REQUEST_TIMEOUT_MS / 1000 + " s");
      if (e instanceof ApiError) throw e;
      throw new ApiError(0, "the server could not be reached (" + e.message + ")");
    } finally {
      clearTimeout(timer);
    }
  }

  // --- The status line ------------------------------------------------------

  // #state is an aria-live region: writing it only when its text changes
  // means a screen reader hears "Paused" or "Last update failed" once, not
  // every three seconds. #updated, which does change every time, is not live.
  let lastOK = null;
  function announce(text, bad) {
    const s = $("state");
    if (s.textContent !== text) s.textContent = text;
    s.classList.toggle("bad", !!bad);
  }

  function reportFailure(err) {
    const when = clock.format(new Date());
    if (err.status === 401) {
      announce("Token required: this admin server needs its access token.", true);
      $("updated").textContent =
        "Open this page once as /?token=YOUR_TOKEN (the token godwit's admin server was started with); " +
        "the server then keeps you signed in with a cookie. Last attempt: " + when + ".";
      return;
    }
    announce(`Last update failed at ${when}: ${err.message}.`, true);
    $("updated").textContent = lastOK
      ? `The figures below are from ${clock.format(lastOK)}.`
      : "No figures have been received yet.";
  }

  // --- The chart ------------------------------------------------------------

  // niceCeil rounds up to 1, 2 or 5 times a power of ten, for the y axis.
  function niceCeil(v) {
    if (v <= 0) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 5, 10]) if (v <= m * p) return m * p;
    return 10 * p;
  }

  // drawChart draws Status.rate as pages per second against "minutes ago".
  // The x axis always spans 10 minutes ending at the latest interval's end,
  // so a crawl younger than that fills only the right of the chart.
  function drawChart(rate) {
    const svg = $("chart");
    const W = 640, H = 220, L = 48, R = 12, T = 12, B = 36; // plot margins
    const pw = W - L - R, ph = H - T - B;
    const pts = rate.map((p) => ({ t: Date.parse(p.time) / 1000, v: p.pages / BUCKET_S }));
    const max = niceCeil(Math.max(0, ...pts.map((p) => p.v)));
    const end = pts.length ? pts[pts.length - 1].t + BUCKET_S : 0;
    // A point is drawn at the middle of its interval.
    const x = (t) => L + pw * (1 - (end - (t + BUCKET_S / 2)) / WINDOW_S);
    const y = (v) => T + ph * (1 - v / max);

    const axes = el("g", { class: "axes" });
    for (const f of [0, 0.5, 1]) {
      const v = max * f, yy = y(v).toFixed(1);
      axes.append(el("line", { class: "grid", x1: L, x2: W - R, y1: yy, y2: yy }));
      axes.append(el("text", { x: L - 6, y: yy, "text-anchor": "end", "dominant-baseline": "middle" }, dec1.format(v)));
    }
    for (let m = 10; m >= 0; m -= 2) {
      const xx = (L + pw * (1 - m / 10)).toFixed(1);
      axes.append(el("line", { class: "tick", x1: xx, x2: xx, y1: T + ph, y2: T + ph + 4 }));
      axes.append(el("text", { x: xx, y: T + ph + 16, "text-anchor": "middle" }, m === 0 ? "now" : `−${m} min`));
    }
    axes.append(el("text", { x: L + pw / 2, y: H - 2, "text-anchor": "middle", class: "label" }, "minutes ago"));
    axes.append(el("text", { x: 12, y: T + ph / 2, "text-anchor": "middle", class: "label",
      transform: `rotate(-90 12 ${T + ph / 2})` }, "pages/s"));

    const d = pts.map((p, i) => (i ? "L" : "M") + x(p.t).toFixed(1) + "," + y(p.v).toFixed(1)).join(" ");
    // The line is kept from one drawing to the next, so that app.css can
    // ease the change of its "d" (unless the reader prefers reduced motion).
    let line = $("rate-line");
    if (!line) {
      line = el("path", { id: "rate-line", class: "line" });
      svg.replaceChildren(el("g"), line);
    }
    svg.firstChild.replaceWith(axes);
    line.setAttribute("d", d);
    line.setAttribute("data-points", pts.length);

    if (pts.length) {
      const latest = pts[pts.length - 1].v;
      const peak = Math.max(...pts.map((p) => p.v));
      const mean = pts.reduce((s, p) => s + p.v, 0) / pts.length;
      svg.setAttribute("aria-label", "Pages per second in 10-second intervals over the last 10 minutes: " +
        `latest ${dec1.format(latest)}, peak ${dec1.format(peak)}, average ${dec1.format(mean)}.`);
    } else {
      svg.setAttribute("aria-label", "Pages per second: no data yet.");
    }

    // The same data as a table, for screen readers (visually hidden).
    $("rate-table").tBodies[0].replaceChildren(...rate.map((p) => el("tr", {},
      el("th", { scope: "row" }, el("time", { datetime: p.time }, clock.format(new Date(p.time)))),
      el("td", {}, int.format(p.pages)),
      el("td", {}, dec1.format(p.pages / BUCKET_S)))));
  }

  // --- Status ---------------------------------------------------------------

  function renderStatus(s) {
    setText("pps-1m", dec1.format(s.pages_per_second_1m));
    setText("pps-10m", dec1.format(s.pages_per_second_10m));
    // The averages are over the crawl's age while it is younger than
    // their window: say so rather than "10 minutes" of a 5 s old crawl.
    setText("pps-1m-window", "pages/s over " + (s.uptime_seconds < 60 ? formatDuration(s.uptime_seconds) : "1 minute"));
    setText("pps-10m-window", "over " + (s.uptime_seconds < 600 ? formatDuration(s.uptime_seconds) : "10 minutes"));
    setText("pages-fetched", int.format(s.pages_fetched));
    setText("redirects", int.format(s.redirects || 0));
    setText("robots-fetches", int.format(s.robots_fetches || 0));
    setText("sitemap-fetches", int.format(s.sitemap_fetches || 0));
    setText("run-state", s.paused ? "Paused (in-flight fetches finish, no new ones start)" : "Running");
    setText("uptime", formatDuration(s.uptime_seconds));
    setText("queue-depth", int.format(s.queue_depth));
    setText("in-flight", int.format(s.in_flight));
    setText("warc-bytes", formatBytes(s.warc_bytes));
    for (const k of ["known", "active", "ready", "waiting", "waiting_ip", "blocked"]) setText("hosts-" + k, int.format(s.hosts[k]));
    const errors = s.errors || {};
    for (const k of ["transient", "permanent", "policy"]) setText("errors-" + k, int.format(errors[k] || 0));
    setText("error-rate", pct.format(s.error_rate));
    setText("dedup-revisits", int.format(s.dedup.revisits));
    setText("dedup-not-modified", int.format(s.dedup.not_modified));
    setText("dedup-near", int.format(s.dedup.near_duplicates));
    setText("dedup-seen", int.format(s.dedup.seen_urls));
    drawChart(s.rate || []);
    renderTopHosts(s.top_hosts || [], Math.min(s.uptime_seconds, WINDOW_S));
    renderRecrawl(s.recrawl);
  }

  // renderRecrawl fills the Revisits group, shown only for a crawl that
  // recrawls (the API leaves status.recrawl out otherwise).
  function renderRecrawl(r) {
    $("recrawl").hidden = !r;
    if (!r) return;
    setText("recrawl-share", pct1.format(r.revisit_share));
    setText("recrawl-reserved", pct1.format(r.share));
    setText("recrawl-backlog", int.format(r.due_backlog));
    setText("recrawl-lag", r.lag_seconds > 0 ? formatDuration(r.lag_seconds) : "none");
    setText("recrawl-scheduled", int.format(r.scheduled));
    setText("recrawl-freshness", pct1.format(r.freshness));
    setText("recrawl-freshness-changing", r.changing_pages > 0 ? pct1.format(r.freshness_changing) + " of " + r.changing_pages : "none seen to change yet");
    setText("recrawl-not-modified", r.revisits > 0
      ? `${pct1.format(r.not_modified_share)} of ${int.format(r.revisits)} revisits`
      : "no revisits yet");
    setText("recrawl-unchanged", int.format(r.unchanged));
    setText("recrawl-budget", `${dec1.format(r.budget_per_second)} of ${dec1.format(r.capacity_per_second)} requests/s`);
    setText("recrawl-policy", r.policy || "unknown");
    drawShareBar(r.revisit_share, r.share);
  }

  // drawShareBar draws the measured revisit share as a bar from 0 to 100%
  // and the reserved share as a line across it.
  function drawShareBar(measured, reserved) {
    const W = 640, H = 40, L = 4, R = 4, T = 8, B = 8;
    const x = (f) => (L + (W - L - R) * Math.min(Math.max(f, 0), 1)).toFixed(1);
    const svg = $("recrawl-chart");
    svg.replaceChildren(
      el("rect", { class: "track", x: L, y: T, width: W - L - R, height: H - T - B }),
      el("rect", { id: "recrawl-bar", class: "bar", x: L, y: T, width: (x(measured) - L).toFixed(1), height: H - T - B }),
      el("line", { id: "recrawl-mark", class: "mark", x1: x(reserved), x2: x(reserved), y1: 2, y2: H - 2 }));
    svg.setAttribute("aria-label", `Revisits were ${pct1.format(measured)} of recent fetches; ` +
      `${pct1.format(reserved)} of fetch capacity is reserved for them.`);
  }

  // hostLink links to ?host=NAME, which looks the host up on load.
  function hostLink(name) {
    return el("a", { href: "?host=" + encodeURIComponent(name) }, name);
  }

  function emptyRow(cols, text) {
    return el("tr", {}, el("td", { colspan: cols }, text));
  }

  function renderTopHosts(top, spanS) {
    const rows = top.map((h) => el("tr", {},
      el("th", { scope: "row" }, hostLink(h.host)),
      el("td", { class: "num" }, int.format(h.requests)),
      // The mean time between two requests to the host: compare with its delay.
      el("td", { class: "num" }, h.requests > 0 ? dec1.format(spanS / h.requests) + " s" : "–")));
    $("top-hosts").tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(3, "No requests in the last 10 minutes.")]));
  }

  function renderQueuedHosts(hosts) {
    const rows = hosts.map((h) => el("tr", {},
      el("th", { scope: "row" }, hostLink(h.name)),
      el("td", { class: "num" }, int.format(h.queued)),
      el("td", { class: "num" }, int.format(h.fetched)),
      el("td", { class: "num" }, int.format(h.delay_ms) + " ms"),
      el("td", {}, h.waiting || "–"),
      el("td", {}, h.breaker || "–"),
      el("td", {}, h.robots || "–"),
      el("td", {}, h.blocked ? "yes" : "no")));
    $("queued-hosts").tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(8, "No hosts yet.")]));
  }

  // renderCluster fills the Cluster group from /api/cluster: the crawl
  // across its nodes. A single-node crawl answers 404: the group stays hidden.
  function renderCluster(c) {
    $("cluster").hidden = false;
    const t = c.totals;
    const state = c.done ? `over since ${formatTime(c.done.at)}` : "running";
    const unowned = c.unowned_shards > 0 ? `, ${int.format(c.unowned_shards)} without an owner` : "";
    setText("cluster-summary", `Crawl ${c.crawl}, ${state}: ${int.format(c.nodes.length)} live nodes, ` +
      `${int.format(c.shards)} shards${unowned}; leader ${c.leader || "none"}. ` +
      `${int.format(t.pages)} pages in all by ${int.format(t.nodes)} nodes, ${dec1.format(t.pages_per_second)}/s; ${int.format(t.queued)} queued.`);
    const rows = c.nodes.map((n) => el("tr", {},
      el("th", { scope: "row" }, n.id + (n.id === c.node ? " (this node)" : "")),
      el("td", { class: "num" }, n.owned_shards === n.assigned_shards ? int.format(n.owned_shards)
        : `${int.format(n.owned_shards)} of ${int.format(n.assigned_shards)}`),
      el("td", { class: "num" }, int.format(n.pages)),
      el("td", { class: "num" }, dec1.format(n.pages_per_second)),
      el("td", { class: "num" }, int.format(n.queued)),
      el("td", { class: "num" }, int.format(n.in_flight)),
      el("td", {}, n.admin || "–")));
    $("cluster-nodes").tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(7, "No live node.")]));
  }

  // renderIPGroups fills the IP groups group from /api/ip-groups; a crawl
  // through a proxy keeps none (enabled false): the group stays hidden.
  function renderIPGroups(g) {
    $("ip-groups").hidden = !g.enabled;
    if (!g.enabled) return;
    const conc = g.ip_concurrency > 0 ? `${int.format(g.ip_concurrency)} in flight` : "no bound on requests in flight";
    const node = g.node ? ` on node ${g.node}` : "";
    setText("ip-summary", `Budget per address: ${conc}, ${int.format(g.ip_delay_ms)} ms between starts. ` +
      `${int.format(g.total)} groups${node}, ${int.format(g.full)} full; ${int.format(g.waiting)} hosts waiting for their address now, ` +
      `${int.format(g.waits)} waits so far.`);
    const rows = g.groups.map((x) => el("tr", {},
      el("th", { scope: "row" }, x.address),
      el("td", { class: "num" }, int.format(x.hosts)),
      el("td", { class: "num" }, int.format(x.in_flight)),
      el("td", { class: "num" }, (x.limit > 0 || g.node ? int.format(x.limit) : "–") + (x.full ? " (full)" : "")),
      el("td", { class: "num" }, int.format(x.waiting)),
      el("td", { class: "num" }, int.format(x.waits)),
      el("td", {}, x.next_start ? formatTime(x.next_start) : "–"),
      el("td", {}, (x.slots || []).map((s) => `${s.node}: ${s.slots}`).join(", ") +
        (x.wanted_by && x.wanted_by.length ? `; wanted by ${x.wanted_by.join(", ")}` : "") +
        (x.starter ? `; starts: ${x.starter}` + (x.start_queue && x.start_queue.length ? ` (queued ${x.start_queue.join(", ")})` : "") : "") || "–")));
    $("ip-table").tBodies[0].replaceChildren(...(rows.length ? rows : [emptyRow(8, "No IP groups yet.")]));
  }

  // --- Host lookup ----------------------------------------------------------

  // hostFields lists every field of admin.Host, in reading order.
  function hostFields(h) {
    const p = h.policy;
    const policy = !p ? "none" : [
      p.delay_ms != null ? `delay ${int.format(p.delay_ms)} ms` : "",
      p.max_pages != null ? `at most ${int.format(p.max_pages)} pages` : "",
    ].filter(Boolean).join(", ") || "none";
    return [
      ["Host", h.name],
      ["Queued URLs", int.format(h.queued)],
      ["Fetched pages", int.format(h.fetched)],
      ["Requests in the last 10 minutes", int.format(h.requests_10m)],
      ["Request in flight", h.leased ? "yes" : "no"],
      ["Blocked", h.blocked ? "yes" : "no"],
      ["Delay between requests", `${int.format(h.delay_ms)} ms (${h.delay_reason || "unknown"})`],
      ["Next request allowed", formatTime(h.next_allowed)],
      ["Waiting for", h.waiting || "nothing"],
      ["IP group", h.ip_group || "unknown"],
      ["Latency", `${int.format(h.latency_ms)} ms`],
      ["Error streak", int.format(h.error_streak)],
      ["Circuit breaker", h.breaker || "unknown"],
      ["robots.txt", h.robots || "unknown"],
      ["robots.txt fetched", formatTime(h.robots_fetched_at) +
        (h.robots_age_seconds > 0 ? ` (${formatDuration(h.robots_age_seconds)} ago)` : "")],
      ["Page budget", `${int.format(h.budget_used)} of ${h.budget_max > 0 ? int.format(h.budget_max) : "unlimited"}`],
      ["Operator policy", policy],
    ];
  }

  async function lookUp(name) {
    const out = $("host-result");
    name = name.trim().toLowerCase();
    if (!name) return;
    out.replaceChildren(el("p", {}, `Looking up ${name}…`));
    try {
      const h = await api("api/hosts/" + encodeURIComponent(name));
      const dl = el("dl", { id: "host-fields" });
      for (const [k, v] of hostFields(h)) dl.append(el("dt", {}, k), el("dd", {}, v));
      out.replaceChildren(el("h3", {}, h.name), dl);
    } catch (e) {
      const msg = e.status === 404
        ? `Not found: the crawl has never seen the host ${name}.`
        : e.status === 401 ? "Token required: open this page once as /?token=YOUR_TOKEN."
          : `The lookup of ${name} failed: ${e.message}.`;
      out.replaceChildren(el("p", { class: "bad", id: "host-error" }, msg));
    }
  }

  // --- Polling --------------------------------------------------------------

  // poll runs fn now and then every ms after it settles (never overlapping
  // a slow answer with the next request).
  function poll(fn, ms) {
    const run = async () => {
      await fn();
      setTimeout(run, ms);
    };
    run();
  }

  async function updateStatus() {
    try {
      const s = await api("api/status");
      renderStatus(s);
      lastOK = new Date();
      announce(s.paused ? "Paused." : "Running.", false);
      $("updated").textContent = `Last updated at ${clock.format(lastOK)}; every ${STATUS_EVERY_MS / 1000} s.`;
    } catch (e) {
      reportFailure(e);
    }
  }

  // A single-node crawl answers 404 (the group stays hidden, and is not
  // asked again); other failures show in the group.
  let clusterGone = false;
  async function updateCluster() {
    if (clusterGone) return;
    try {
      renderCluster(await api("api/cluster"));
    } catch (e) {
      if (e.status === 404) {
        clusterGone = true;
        return;
      }
      if (e.status === 401) return reportFailure(e);
      if (!$("cluster").hidden) setText("cluster-summary", `The update at ${clock.format(new Date())} failed: ${e.message}.`);
    }
  }

  // A crawl without IP groups (404, or through a proxy) is not asked again.
  let ipGone = false;
  async function updateIPGroups() {
    if (ipGone) return;
    try {
      const g = await api("api/ip-groups?limit=20");
      renderIPGroups(g);
      ipGone = !g.enabled;
    } catch (e) {
      if (e.status === 404) {
        ipGone = true;
        return;
      }
      if (e.status === 401) return reportFailure(e);
      if (!$("ip-groups").hidden) setText("ip-summary", `The update at ${clock.format(new Date())} failed: ${e.message}.`);
    }
  }

  // A failure here is shown in the hosts table, not the status line, which
  // follows /api/status; only 401 concerns the whole page.
  async function updateHosts() {
    try {
      renderQueuedHosts(await api("api/hosts?sort=queued&limit=20"));
    } catch (e) {
      if (e.status === 401) return reportFailure(e);
      const row = emptyRow(8, `The update at ${clock.format(new Date())} failed: ${e.message}.`);
      row.classList.add("bad");
      $("queued-hosts").tBodies[0].replaceChildren(row);
    }
  }

  function start() {
    const form = $("host-form"), input = $("host-input");
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      // Keep ?host= in the address bar so the lookup can be bookmarked.
      const u = new URL(location.href);
      u.searchParams.set("host", input.value.trim());
      history.replaceState(null, "", u);
      lookUp(input.value);
    });
    const host = new URLSearchParams(location.search).get("host");
    if (host) {
      input.value = host;
      lookUp(host);
    }
    poll(updateStatus, STATUS_EVERY_MS);
    poll(updateHosts, HOSTS_EVERY_MS);
    poll(updateCluster, HOSTS_EVERY_MS);
    poll(updateIPGroups, HOSTS_EVERY_MS);
  }

  start();
})();
