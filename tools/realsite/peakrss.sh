#!/usr/bin/env bash
# Run a command and print, on stderr, its peak resident set size split into
# anonymous memory (heaps, stacks: what it allocated) and file-backed pages
# (its binary and libraries, mapped from the page cache), sampled from
# /proc/PID/status every 20 ms. /usr/bin/time's %M gives only the total,
# and the largest of the process and its children (a browser, say).
#
#   tools/realsite/peakrss.sh godwit crawl …
#
# Linux only. A peak shorter than the sampling interval can be missed.
set -uo pipefail
"$@" &
pid=$!
peak=0 anon=0 file=0
while kill -0 "$pid" 2>/dev/null; do
  read -r rss a f < <(awk '/^VmRSS:/ {r=$2} /^RssAnon:/ {a=$2} /^RssFile:/ {f=$2} END {print r+0, a+0, f+0}' "/proc/$pid/status" 2>/dev/null || echo 0 0 0)
  if [ "${rss:-0}" -gt "$peak" ]; then peak=$rss anon=$a file=$f; fi
  sleep 0.02
done
wait "$pid"
rc=$?
printf 'peak RSS %d MiB: anonymous %d MiB, file-backed %d MiB\n' $((peak / 1024)) $((anon / 1024)) $((file / 1024)) >&2
exit $rc
