#!/usr/bin/env bash
# Install tavola as a systemd service on a Raspberry Pi (or any systemd Linux).
#
#   sudo systemd/install.sh [--prefix /opt/tavola] [--extras pi,vision] [--no-start]
#
# Creates the 'tavola' system user (groups gpio spi dialout video, where they exist), a
# virtual environment in PREFIX/venv with tavola and the extras, an example config in
# /etc/tavola/tavola.toml (kept if present), and the unit tavola.service. Run it again to
# upgrade: the config and the journal in /var/lib/tavola are kept.
set -euo pipefail

prefix=/opt/tavola
extras=pi
start=1
while (($#)); do
  case "$1" in
    --prefix) prefix=$2; shift 2 ;;
    --extras) extras=$2; shift 2 ;;
    --no-start) start=0; shift ;;
    -h|--help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done

[[ $EUID -eq 0 ]] || { echo "install.sh: run as root (sudo)" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
command -v python3 >/dev/null || { echo "install.sh: python3 is missing: apt install python3 python3-venv" >&2; exit 1; }

if ! id tavola >/dev/null 2>&1; then
  useradd --system --home-dir /var/lib/tavola --no-create-home --shell /usr/sbin/nologin tavola
fi
for group in gpio spi dialout video; do
  if getent group "$group" >/dev/null; then usermod -aG "$group" tavola; fi
done

mkdir -p "$prefix"
python3 -m venv "$prefix/venv"
"$prefix/venv/bin/pip" install --quiet --upgrade pip
# The versions the tests last passed with (constraints.txt, `make lock`), not whatever the
# index holds today.
"$prefix/venv/bin/pip" install --quiet --constraint "$src/constraints.txt" "$src[${extras}]"
cp "$src/README.md" "$prefix/README.md"

install -d -m 0755 /etc/tavola
if [[ ! -e /etc/tavola/tavola.toml ]]; then
  install -m 0644 "$src/systemd/tavola.example.toml" /etc/tavola/tavola.toml
fi

sed "s|@PREFIX@|$prefix|g" "$src/systemd/tavola.service" > /etc/systemd/system/tavola.service
systemctl daemon-reload
if ((start)); then
  systemctl enable --now tavola.service
  echo "tavola is running: systemctl status tavola; journalctl -u tavola -f"
else
  echo "installed; start with: systemctl enable --now tavola.service"
fi
