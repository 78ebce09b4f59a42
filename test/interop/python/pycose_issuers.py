"""pycose (TimothyClaeys/pycose) on the service's statements, for each issuer algorithm.

  sign <alg> <kid> <dir>: makes an issuer key of the algorithm (ES256, ES384, ES512, EdDSA) and a
    signed statement with it: <dir>/issuer.jwk.json (the public key) and <dir>/statement.cose.
  verify <transparent statement> <issuer JWK> <service COSE_KeySet> [--wrong-leaf]: checks the
    issuer's signature, and each RFC 9162 receipt's signature over the root its inclusion proof
    leads to from the statement's leaf, SHA-256(0x00 || SHA-256(payload)). With --wrong-leaf, from
    another leaf: every receipt must then fail.

Prints one JSON line; exits 1 when a check fails (run by test/integration/interop/pycose-issuers.test.ts).
"""

import base64
import hashlib
import json
import sys

import cbor2
from pycose.algorithms import EdDSA, Es256, Es384, Es512
from pycose.headers import KID, Algorithm, ContentType
from pycose.keys import CoseKey, EC2Key, OKPKey
from pycose.keys.curves import P256, P384, P521, Ed25519
from pycose.messages import Sign1Message

ALGORITHMS = {
    "ES256": (Es256, P256, "P-256"),
    "ES384": (Es384, P384, "P-384"),
    "ES512": (Es512, P521, "P-521"),
    "EdDSA": (EdDSA, Ed25519, "Ed25519"),
}
RECEIPTS = 394
PROOFS = 396
INCLUSION = -1


def b64url(b):
    return base64.urlsafe_b64encode(b).rstrip(b"=").decode()


def unb64url(s):
    return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))


def sha256(*parts):
    return hashlib.sha256(b"".join(parts)).digest()


def sign(alg, kid, out):
    cose_alg, curve, crv = ALGORITHMS[alg]
    if curve is Ed25519:
        key = OKPKey.generate_key(crv=curve)
        jwk = {"kty": "OKP", "crv": crv, "x": b64url(key.x)}
    else:
        key = EC2Key.generate_key(crv=curve)
        jwk = {"kty": "EC", "crv": crv, "x": b64url(key.x), "y": b64url(key.y)}
    claims = {1: "https://%s.pycose.example" % alg.lower(), 2: "urn:pycose:%s" % alg}
    msg = Sign1Message(
        phdr={Algorithm: cose_alg, KID: kid.encode(), ContentType: "application/json", 15: claims},
        payload=json.dumps({"made_by": "pycose", "alg": alg}).encode(),
    )
    msg.key = key
    with open(out + "/statement.cose", "wb") as f:
        f.write(msg.encode())
    with open(out + "/issuer.jwk.json", "w") as f:
        json.dump(jwk, f)
    print(json.dumps({"signed": alg}))


def key_of_jwk(jwk):
    if jwk["kty"] == "OKP":
        return OKPKey(crv=Ed25519, x=unb64url(jwk["x"]))
    curve = {"P-256": P256, "P-384": P384, "P-521": P521}[jwk["crv"]]
    return EC2Key(crv=curve, x=unb64url(jwk["x"]), y=unb64url(jwk["y"]))


def root_from_inclusion(index, size, leaf, path):
    """RFC 9162, section 2.1.3.2."""
    if index >= size:
        raise ValueError("leaf index beyond the tree")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise ValueError("inclusion path too long")
        if fn & 1 or fn == sn:
            r = sha256(b"\x01", p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = sha256(b"\x01", r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        raise ValueError("inclusion path too short")
    return r


def checks(msg):
    # A signature pycose cannot check (cryptography's InvalidSignature, a malformed one) is no signature.
    try:
        return msg.verify_signature()
    except Exception:  # noqa: BLE001
        return False


def decode_receipt(data):
    # pycose 1.0.1 decodes tagged messages only, and refuses a detached (nil) payload: the
    # receipt's payload is the root recomputed from its proof, set before its signature is checked.
    item = cbor2.loads(data)
    fields = list(item.value if isinstance(item, cbor2.CBORTag) else item)
    fields[2] = b""
    return Sign1Message.decode(cbor2.dumps(cbor2.CBORTag(18, fields)))


def verify(statement_path, jwk_path, keyset_path, wrong_leaf):
    with open(statement_path, "rb") as f:
        statement = Sign1Message.decode(f.read())
    with open(jwk_path) as f:
        statement.key = key_of_jwk(json.load(f))
    if not checks(statement):
        print(json.dumps({"failed": "the issuer's signature"}))
        return 1
    with open(keyset_path, "rb") as f:
        service_keys = {bytes(k[2]): CoseKey.from_dict(k) for k in cbor2.loads(f.read())}
    leaf = sha256(b"\x00", sha256(statement.payload))
    if wrong_leaf:
        leaf = sha256(b"\x00", sha256(statement.payload + b" "))
    receipts = statement.uhdr.get(RECEIPTS, [])
    if not receipts:
        print(json.dumps({"failed": "no receipt"}))
        return 1
    for data in receipts:
        receipt = decode_receipt(data)
        size, index, path = cbor2.loads(receipt.uhdr[PROOFS][INCLUSION][0])
        receipt.payload = root_from_inclusion(index, size, leaf, path)
        receipt.key = service_keys[receipt.phdr[KID]]
        if not checks(receipt):
            print(json.dumps({"failed": "a receipt's signature over the recomputed root"}))
            return 1
    names = {cose_alg: name for name, (cose_alg, _, _) in ALGORITHMS.items()}
    print(json.dumps({"verified": names[statement.phdr[Algorithm]], "receipts": len(receipts)}))
    return 0


if __name__ == "__main__":
    if sys.argv[1] == "sign":
        sign(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(verify(sys.argv[2], sys.argv[3], sys.argv[4], "--wrong-leaf" in sys.argv[5:]))
