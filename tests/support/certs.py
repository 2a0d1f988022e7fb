"""A throw-away certificate authority for TLS tests: a CA, a server certificate and a client certificate."""

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path


def _name(common_name: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common_name)])


def _write_key(key: ec.EllipticCurvePrivateKey, path: Path) -> Path:
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))  # fmt: skip
    return path


def _issue(ca_key: ec.EllipticCurvePrivateKey, ca_name: x509.Name, common_name: str, usage: x509.ObjectIdentifier,
           dns: str = "") -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:  # fmt: skip
    key = ec.generate_private_key(ec.SECP256R1())
    now = datetime.datetime.now(datetime.UTC)
    builder = (x509.CertificateBuilder().subject_name(_name(common_name)).issuer_name(ca_name)
               .public_key(key.public_key()).serial_number(x509.random_serial_number())
               .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
               .add_extension(x509.ExtendedKeyUsage([usage]), critical=False))  # fmt: skip
    if dns:
        names = [x509.DNSName(dns), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
    return builder.sign(ca_key, hashes.SHA256()), key


def make_pki(folder: Path, server_name: str, client_name: str) -> Pki:
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = _name("azmc test CA")
    now = datetime.datetime.now(datetime.UTC)
    ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
          .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
          .not_valid_after(now + datetime.timedelta(days=1))
          .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
          .sign(ca_key, hashes.SHA256()))  # fmt: skip
    server, server_key = _issue(ca_key, ca_name, server_name, ExtendedKeyUsageOID.SERVER_AUTH, dns=server_name)
    client, client_key = _issue(ca_key, ca_name, client_name, ExtendedKeyUsageOID.CLIENT_AUTH)
    pem = serialization.Encoding.PEM
    (folder / "ca.pem").write_bytes(ca.public_bytes(pem))
    (folder / "server.pem").write_bytes(server.public_bytes(pem))
    (folder / "client.pem").write_bytes(client.public_bytes(pem))
    return Pki(folder / "ca.pem", folder / "server.pem", _write_key(server_key, folder / "server-key.pem"),
               folder / "client.pem", _write_key(client_key, folder / "client-key.pem"))
