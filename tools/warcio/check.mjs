#!/usr/bin/env node
// check.mjs reads WARC files with webrecorder's warcio.js (the version
// pinned in package.json) and recomputes every digest, for
// cmd/godwit/readers_test.go. See docs/readers.md.
//
//   node tools/warcio/check.mjs FILE.warc.gz... > report.json
//
// It prints one JSON object (described in docs/readers.md) and exits 0
// when it could read its arguments, whatever it found; 2 on a usage error
// or a crash. The caller judges the problems.
//
// Each file is read twice:
//
//  1. with WARCParser({parseHttp: false}): every record's block as stored.
//     The WARC-Block-Digest is recomputed over the block. An HTTP block
//     (response, request, revisit) is split with warcio's own
//     StatusAndHeadersParser; the payload is what follows the header,
//     de-chunked with warcio's own dechunker when Transfer-Encoding is
//     chunked, and never content-decoded (WARC 1.1 section 6.3.2: the
//     payload is the entity body, after removing transfer encoding). The
//     WARC-Payload-Digest is recomputed over it.
//  2. with WARCParser() defaults (parseHttp: true), the way replay tools
//     use it: every record is parsed again and an HTTP payload is read
//     through record.contentReader (de-chunked and content-decoded, e.g.
//     gzip), up to maxDecoded bytes, to show that warcio can decode it.
//
// Revisit records are resolved, across all the files given, to the
// record they refer to (WARC-Refers-To, else WARC-Refers-To-Target-URI
// and WARC-Refers-To-Date), whose payload digest must be the revisit's.

import { createHash } from "node:crypto";
import { createReadStream, readFileSync } from "node:fs";
import { basename } from "node:path";
import {
  AsyncIterReader,
  HeadersMultiMap,
  StatusAndHeadersParser,
  WARCParser,
} from "warcio";

// maxDecoded bounds the bytes pass 2 decodes per record: a compression
// bomb decodes to about 1 GiB.
const maxDecoded = 32 << 20;

const warcioVersion = JSON.parse(
  readFileSync(
    new URL("./node_modules/warcio/package.json", import.meta.url),
    "utf8",
  ),
).version;

const hashes = {
  sha1: { node: "sha1", size: 20 },
  "sha-1": { node: "sha1", size: 20 },
  sha256: { node: "sha256", size: 32 },
  "sha-256": { node: "sha256", size: 32 },
  sha512: { node: "sha512", size: 64 },
  "sha-512": { node: "sha512", size: 64 },
  md5: { node: "md5", size: 16 },
};

const base32Alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Decode(s) {
  s = s.toUpperCase().replace(/=+$/, "");
  let bits = 0;
  let value = 0;
  const out = [];
  for (const c of s) {
    const i = base32Alphabet.indexOf(c);
    if (i < 0) {
      return null;
    }
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

// parseDigest reads "label:value" (value in base32 or hex) into
// {alg, bytes}, or {error}.
function parseDigest(v) {
  const i = v.indexOf(":");
  if (i < 0) {
    return { error: `digest ${JSON.stringify(v)} has no algorithm label` };
  }
  const label = v.slice(0, i).trim().toLowerCase();
  const value = v.slice(i + 1).trim();
  const h = hashes[label];
  if (!h) {
    return { error: `digest algorithm ${JSON.stringify(label)} unsupported` };
  }
  let bytes = null;
  if (/^[0-9a-fA-F]+$/.test(value) && value.length === 2 * h.size) {
    bytes = Buffer.from(value, "hex");
  } else {
    bytes = base32Decode(value);
  }
  if (!bytes || bytes.length !== h.size) {
    return { error: `digest ${JSON.stringify(v)} does not decode` };
  }
  return { alg: h.node, bytes };
}

function sum(alg, data) {
  return createHash(alg).update(data).digest();
}

// label formats a computed digest as WARC digests usually are: the
// algorithm, a colon, the value in base32.
function label(alg, bytes) {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += base32Alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) {
    out += base32Alphabet[(value << (5 - bits)) & 31];
  }
  return `${alg}:${out}`;
}

const report = {
  reader: "warcio.js",
  version: warcioVersion,
  files: 0,
  records: 0,
  types: {},
  checked: {
    block_digests: 0,
    payload_digests: 0,
    revisits_resolved: 0,
    contents_decoded: 0,
  },
  // Problems make the caller fail.
  problems: [],
  // Truncated records (WARC-Truncated): their payload digest is
  // recomputed but not judged.
  truncated: [],
  // Where warcio.js itself would write a different payload digest: its
  // WARCSerializer hashes the bytes after the HTTP header as stored, still
  // chunked. Not a problem of the file: see docs/readers.md.
  serializer_chunked_payload: [],
};

function problem(at, kind, message) {
  report.problems.push({ ...at, kind, message });
}

// seen remembers, per WARC-Record-ID, what revisit resolution needs.
const seen = new Map();
const byURIDate = new Map();
const revisits = [];

async function readBytes(iter) {
  const chunks = [];
  for await (const c of iter) {
    chunks.push(c);
  }
  return Buffer.concat(chunks);
}

// pass1 checks the block and payload digests of every record of one file
// and returns their IDs in order.
async function pass1(path) {
  const file = basename(path);
  const ids = [];
  const parser = new WARCParser(createReadStream(path), {
    parseHttp: false,
    keepHeadersCase: true,
  });
  let n = 0;
  for await (const record of parser) {
    n++;
    const h = record.warcHeaders.headers;
    const type = record.warcType || "";
    const id = h.get("WARC-Record-ID") || "";
    const target = record.warcTargetURI || "";
    const at = { file, record: n, offset: parser.offset, id, type, target };
    ids.push(id);
    report.records++;
    report.types[type] = (report.types[type] || 0) + 1;

    const block = Buffer.from(await record.readFully(false));
    if (block.length !== record.warcContentLength) {
      problem(
        at,
        "content-length",
        `block has ${block.length} bytes, Content-Length ${record.warcContentLength}`,
      );
    }
    const bd = h.get("WARC-Block-Digest");
    if (bd) {
      const d = parseDigest(bd);
      if (d.error) {
        problem(at, "block-digest", d.error);
      } else {
        report.checked.block_digests++;
        const got = sum(d.alg, block);
        if (!got.equals(d.bytes)) {
          problem(
            at,
            "block-digest",
            `WARC-Block-Digest ${bd}, computed ${label(d.alg, got)}`,
          );
        }
      }
    }

    // The payload, per WARC 1.1 section 6.3.2.
    const ct = (h.get("Content-Type") || "").toLowerCase();
    const isHTTP =
      ["response", "request", "revisit"].includes(type) &&
      ct.startsWith("application/http") &&
      block.length > 0;
    let payload = null; // WARC 1.1 payload
    let raw = null; // bytes after the HTTP header, as stored
    let chunked = false;
    let dechunkError = false;
    if (isHTTP) {
      const r = new AsyncIterReader([block], null);
      let http = null;
      try {
        http = await new StatusAndHeadersParser().parse(r, {
          headersClass: HeadersMultiMap,
        });
      } catch (e) {
        problem(at, "http-header", `warcio cannot parse the HTTP header: ${e}`);
      }
      if (!http) {
        problem(at, "http-header", "no HTTP header in an HTTP block");
      } else {
        raw = Buffer.from(await r.readFully());
        const te = (http.headers.get("Transfer-Encoding") || "").toLowerCase();
        chunked = te.split(",").map((s) => s.trim()).includes("chunked");
        if (chunked) {
          const dr = new AsyncIterReader([raw], null, true);
          payload = Buffer.from(await dr.readFully());
          dechunkError = dr.errored;
        } else {
          payload = raw;
        }
      }
    } else if (type === "resource" || type === "conversion") {
      // WARC 1.1 §6.4 and §6.8: for resource and conversion records
      // "the payload is defined as the record block".
      payload = block;
      raw = block;
    }

    const truncated = h.get("WARC-Truncated") || "";
    const pd = h.get("WARC-Payload-Digest");
    let computed = null;
    if (pd && type !== "revisit") {
      const d = parseDigest(pd);
      if (d.error) {
        problem(at, "payload-digest", d.error);
      } else if (payload === null) {
        if (!truncated) {
          problem(at, "payload-digest", `WARC-Payload-Digest ${pd} on a record without a payload`);
        }
      } else {
        computed = sum(d.alg, payload);
        const ok = computed.equals(d.bytes);
        if (truncated) {
          report.truncated.push({
            ...at,
            reason: truncated,
            chunked,
            dechunk_error: dechunkError,
            payload_digest_matches: ok,
          });
        } else {
          report.checked.payload_digests++;
          if (dechunkError) {
            problem(at, "chunked", "the chunked body does not de-chunk cleanly");
          }
          if (!ok) {
            problem(
              at,
              "payload-digest",
              `WARC-Payload-Digest ${pd}, computed ${label(d.alg, computed)}${chunked ? " (de-chunked)" : ""}`,
            );
          }
        }
        if (chunked && !sum(d.alg, raw).equals(d.bytes)) {
          report.serializer_chunked_payload.push({ ...at, truncated: truncated !== "" });
        }
      }
    }

    const entry = {
      at,
      type,
      target,
      date: h.get("WARC-Date") || "",
      payloadDigest: pd ? parseDigest(pd) : null,
      computed,
    };
    if (id) {
      seen.set(id, entry);
    }
    if (["response", "resource"].includes(type)) {
      const k = `${target} ${entry.date}`;
      if (!byURIDate.has(k)) {
        byURIDate.set(k, entry);
      }
    }
    if (type === "revisit") {
      revisits.push({ entry, headers: h });
    }
  }
  if (n === 0) {
    problem({ file, record: 0, offset: 0 }, "empty", "no WARC records");
  }
  return ids;
}

// pass2 parses the file the default way and decodes every HTTP payload.
async function pass2(path, ids) {
  const file = basename(path);
  const parser = new WARCParser(createReadStream(path));
  let n = 0;
  for await (const record of parser) {
    n++;
    const h = record.warcHeaders.headers;
    const id = h.get("WARC-Record-ID") || "";
    const at = { file, record: n, offset: parser.offset, id, type: record.warcType || "", target: record.warcTargetURI || "" };
    if (ids[n - 1] !== id) {
      problem(at, "reparse", `record ${n} is ${id} parsed with HTTP, ${ids[n - 1]} without`);
    }
    if (!record.httpHeaders) {
      continue;
    }
    let size = 0;
    try {
      for await (const chunk of record.contentReader) {
        size += chunk.length;
        if (size > maxDecoded) {
          break;
        }
      }
      report.checked.contents_decoded++;
    } catch (e) {
      if (!h.get("WARC-Truncated")) {
        problem(at, "content-decode", `warcio cannot decode the payload: ${e}`);
      }
    }
  }
  if (n !== ids.length) {
    problem({ file, record: n, offset: 0 }, "reparse", `${n} records parsed with HTTP, ${ids.length} without`);
  }
}

function resolveRevisits() {
  for (const { entry, headers } of revisits) {
    const at = entry.at;
    const ref = headers.get("WARC-Refers-To");
    const refURI = headers.get("WARC-Refers-To-Target-URI");
    const refDate = headers.get("WARC-Refers-To-Date");
    let orig = null;
    if (ref) {
      orig = seen.get(ref) || null;
    } else if (refURI && refDate) {
      orig = byURIDate.get(`${refURI} ${refDate}`) || null;
    }
    if (!orig) {
      problem(
        at,
        "revisit-unresolved",
        ref || (refURI && refDate)
          ? `the original (${ref || `${refURI} at ${refDate}`}) is not among the files`
          : "the revisit names no original (no WARC-Refers-To, nor WARC-Refers-To-Target-URI and -Date)",
      );
      continue;
    }
    report.checked.revisits_resolved++;
    if (!["response", "resource"].includes(orig.type)) {
      problem(at, "revisit-original", `refers to a ${orig.type} record ${ref || ""}`);
    }
    if (refURI && refURI !== orig.target) {
      problem(at, "revisit-original", `WARC-Refers-To-Target-URI ${refURI}, original's target ${orig.target}`);
    }
    if (refDate && refDate !== orig.date) {
      problem(at, "revisit-original", `WARC-Refers-To-Date ${refDate}, original's date ${orig.date}`);
    }
    const profile = headers.get("WARC-Profile") || "";
    if (profile.endsWith("/identical-payload-digest")) {
      const mine = entry.payloadDigest;
      if (!mine || mine.error) {
        problem(at, "revisit-digest", "identical-payload-digest revisit without a readable WARC-Payload-Digest");
      } else if (!orig.payloadDigest || orig.payloadDigest.error || !orig.payloadDigest.bytes.equals(mine.bytes)) {
        problem(at, "revisit-digest", "WARC-Payload-Digest differs from the original's");
      } else if (orig.computed && orig.payloadDigest.alg === mine.alg && !orig.computed.equals(mine.bytes)) {
        problem(at, "revisit-digest", "WARC-Payload-Digest differs from the original's actual payload");
      }
    }
  }
}

async function main() {
  const files = process.argv.slice(2);
  if (files.length === 0) {
    process.stderr.write("usage: node check.mjs FILE.warc[.gz]...\n");
    process.exit(2);
  }
  for (const path of files) {
    report.files++;
    let ids = [];
    try {
      ids = await pass1(path);
    } catch (e) {
      problem({ file: basename(path), record: 0, offset: 0 }, "parse", `warcio failed: ${e && e.stack ? e.stack : e}`);
      continue;
    }
    try {
      await pass2(path, ids);
    } catch (e) {
      problem({ file: basename(path), record: 0, offset: 0 }, "parse", `warcio failed (parseHttp): ${e && e.stack ? e.stack : e}`);
    }
  }
  resolveRevisits();
  process.stdout.write(JSON.stringify(report, null, 1) + "\n");
}

main().catch((e) => {
  process.stderr.write(`check.mjs: ${e && e.stack ? e.stack : e}\n`);
  process.exit(2);
});
