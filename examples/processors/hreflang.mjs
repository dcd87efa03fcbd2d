#!/usr/bin/env node
// A godwit external processor: finds a page's translations, the
// <link rel="alternate" hreflang="…" href="…"> tags of its head, records
// them as annotations and queues them (they go through godwit's scope and
// trap filters like any link).
//
//     godwit crawl --processor 'exec:node examples/processors/hreflang.mjs' ...
//
// It speaks godwit's JSON Lines protocol (docs/processors.md) and answers
// each request as soon as it is read; Node's standard library only.
import { createInterface } from "node:readline";

const LINK = /<link\b[^>]*>/gi;
const ATTR = /([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))/g;

function alternates(body) {
  const out = [];
  for (const [tag] of body.matchAll(LINK)) {
    const attrs = {};
    for (const m of tag.matchAll(ATTR)) {
      attrs[m[1].toLowerCase()] = m[2] ?? m[3] ?? m[4];
    }
    const rels = (attrs.rel || "").toLowerCase().split(/\s+/);
    if (rels.includes("alternate") && attrs.hreflang && attrs.href) {
      out.push({ lang: attrs.hreflang.toLowerCase(), href: attrs.href });
    }
  }
  return out;
}

function answer(req) {
  const out = { id: req.id };
  if (!req.body) return out;
  const alts = alternates(req.body);
  if (alts.length === 0) return out;
  out.annotations = {
    "hreflang": alts.map((a) => a.lang).join(" "),
    "hreflang-count": String(alts.length),
  };
  out.links = alts.map((a) => a.href); // relative ones are resolved against the page
  return out;
}

const rl = createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  let req;
  try {
    req = JSON.parse(line);
  } catch (e) {
    console.error(`hreflang.mjs: bad request: ${e.message}`);
    return;
  }
  let out;
  try {
    out = answer(req);
  } catch (e) {
    out = { id: req.id, error: String(e) };
  }
  process.stdout.write(JSON.stringify(out) + "\n");
});
