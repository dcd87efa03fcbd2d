#!/usr/bin/env bash
# Crawl a real site no one here wrote with godwit and with wget2, side by
# side, and print each one's CPU time, peak RSS, wall time and what the
# server saw. The site is a Debian documentation package served by nginx
# from a temporary directory on loopback.
#
#   tools/realsite/run.sh [GODWIT_BINARY] [DOC_DIR]
#
# DOC_DIR defaults to /usr/share/doc/python3.11/html (apt-get install
# python3.11-doc nginx wget2). GODWIT_BINARY defaults to a build of this
# tree. Extra godwit flags come from $GODWIT_ARGS.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${1:-}
doc=${2:-/usr/share/doc/python3.11/html}
for c in nginx wget2; do
  command -v "$c" >/dev/null || { echo "$c is missing: apt-get install nginx wget2 python3.11-doc"; exit 2; }
done
[ -d "$doc" ] || { echo "$doc is missing: apt-get install python3.11-doc"; exit 2; }
work=$(mktemp -d)
trap 'kill $(cat "$work/nginx.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$bin" ]; then
  bin=$work/godwit
  go build -o "$bin" ./cmd/godwit
fi
port=${PORT:-18090}
cat >"$work/nginx.conf" <<CONF
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 256; }
http {
  include /etc/nginx/mime.types;
  access_log $work/access.log;
  client_body_temp_path $work; proxy_temp_path $work; fastcgi_temp_path $work;
  uwsgi_temp_path $work; scgi_temp_path $work;
  server { listen 127.0.0.1:$port; root $doc; index index.html; }
}
CONF
nginx -c "$work/nginx.conf"
base=http://127.0.0.1:$port/

measure() { # name, command...
  local name=$1; shift
  : >"$work/access.log"
  # wget2 exits 8 when the server answered an error (the docs have a
  # broken link or two); anything else failing is reported.
  local rc=0
  /usr/bin/time -f "%U %S %M %e" -o "$work/time" "$@" >"$work/$name.out" 2>&1 || rc=$?
  if [ "$rc" != 0 ] && ! { [ "$name" = wget2 ] && [ "$rc" = 8 ]; }; then
    echo "$name exited with $rc:"; tail -20 "$work/$name.out"
  fi
  read -r user sys rss wall < <(tail -1 "$work/time")
  local reqs ok
  reqs=$(wc -l <"$work/access.log")
  ok=$(awk '$9 == 200' "$work/access.log" | wc -l)
  printf '%-7s cpu %6.2f s (user %s, sys %s)  peak RSS %4d MB  wall %6.2f s  requests %d (%d answered 200)\n' \
    "$name" "$(echo "$user + $sys" | bc)" "$user" "$sys" "$((rss / 1024))" "$wall" "$reqs" "$ok"
}
# --delay 1ms: one host, so a polite delay would only measure the delay.
measure godwit "$bin" crawl "$base" --allow-private --delay 1ms --workers 16 --admin off \
  --data "$work/godwit-data" ${GODWIT_ARGS:-}
measure wget2 wget2 -r -p -l inf --no-parent -e robots=off -P "$work/wget2" "$base"
# godwit's fixed costs: start, store open and close, WARC and CDXJ
# finish, for robots.txt and one page.
rm -rf "$work/godwit-data"
measure godwit1 "$bin" crawl "$base" --allow-private --delay 1ms --admin off --max-pages 1 \
  --requisites=false --render never --data "$work/godwit-data"
echo "(godwit: polite, WARC with CDXJ; wget2: no delay, robots off, files only; godwit1: one page)"
