"""A real Mosquitto for the event tests: a free loopback port, a generated config with the
password file and docs/event/acl (the ACL the docs ship), started, killed, restarted; with
``tls``, a TLS listener whose certificate a CA made for the test signed (openssl)."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

import pytest

ACL = Path(__file__).parents[2] / "docs" / "event" / "acl"
MISSING = ("event tests skip: install Debian's mosquitto (sudo apt-get install mosquitto; "
           "make test does it when run as root)")
PASSWORD = "pw-{}"  # each account's password: its name in it


def mosquitto() -> str:
    """The broker's path, or skip the test saying what to install."""
    path = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None)
    if path is None:
        pytest.skip(MISSING)
    return path


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def make_certificates(directory: Path) -> tuple[Path, Path, Path]:
    """A self-signed CA and a server certificate it signed for ``localhost`` and
    ``127.0.0.1``, made with the openssl command: (the CA's, the server's, its key)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("the TLS test needs the openssl command (sudo apt-get install openssl)")
    directory.mkdir(parents=True, exist_ok=True)
    ca, ca_key = directory / "ca.crt", directory / "ca.key"
    cert, key, request = directory / "server.crt", directory / "server.key", directory / "csr"
    extensions = directory / "san.ext"
    extensions.write_text("subjectAltName = DNS:localhost, IP:127.0.0.1\n"
                          "extendedKeyUsage = serverAuth\n")

    def run(*args: str) -> None:
        subprocess.run([openssl, *args], check=True, capture_output=True)
    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
        "/CN=tavola test event CA", "-keyout", str(ca_key), "-out", str(ca))
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout",
        str(key), "-out", str(request))
    run("x509", "-req", "-in", str(request), "-CA", str(ca), "-CAkey", str(ca_key),
        "-CAcreateserial", "-days", "2", "-extfile", str(extensions), "-out", str(cert))
    return ca, cert, key


class Broker:
    """Mosquitto with the accounts ``arbiter``, ``hall`` and one per board ("1", "2", ...)."""

    def __init__(self, directory: Path, boards: int, tls: bool = False) -> None:
        self.binary = mosquitto()
        self.directory = directory
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None
        directory.mkdir(parents=True, exist_ok=True)
        passwords = directory / "passwd"
        lines = []
        for account in ["arbiter", "hall", *map(str, range(1, boards + 1))]:
            lines.append(f"{account}:{PASSWORD.format(account)}")
        passwords.write_text("\n".join(lines) + "\n")
        # mosquitto_passwd -U hashes a file of plain name:password lines in place.
        subprocess.run([shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd",
                        "-U", str(passwords)], check=True, capture_output=True)
        self.ca_file: Path | None = None  # with tls: the CA the clients trust
        listener = ""
        if tls:
            self.ca_file, cert, key = make_certificates(directory / "tls")
            listener = f"cafile {self.ca_file}\ncertfile {cert}\nkeyfile {key}\n"
        self.config = directory / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n{listener}allow_anonymous false\n"
            f"password_file {passwords}\nacl_file {ACL}\n"
            "user root\n"  # as root, stay root: the files are in a private temp folder
            "max_queued_messages 100000\n")

    def start(self) -> None:
        """Start and wait until it listens."""
        log = (self.directory / "mosquitto.log").open("ab")
        self.process = subprocess.Popen([self.binary, "-c", str(self.config)],
                                        stdout=log, stderr=log)
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                if time.monotonic() > end or self.process.poll() is not None:
                    said = (self.directory / "mosquitto.log").read_text()
                    raise RuntimeError(f"mosquitto did not start: {said}") from None
                time.sleep(0.02)

    def kill(self) -> None:
        """SIGKILL: no goodbye to any client, nothing saved."""
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.process = None

    def stop(self) -> None:
        """Stop it (for good, at the end of a test)."""
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.kill()
            self.process = None
