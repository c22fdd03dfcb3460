"""Who a client is, to the per-address limits: one key per address, or per IPv6 /64.

Every per-address limit (rooms opened, new members of a class, wrong join codes, the
replay and heavy lanes' turns, a class's lobby) counts by the key this gives, for a
websocket (`playground.protocol.client_address`) and a page (`playground.views`) alike.

An IPv4 client is its address. An IPv6 client is its /64: one host is routinely given a
whole /64 (SLAAC, privacy addresses that change every day, a VPS's "/64 included"), so
counting each of its 2^64 addresses apart would let one machine pass for as many
clients as it likes. An IPv4 address written as IPv6 (`::ffff:192.0.2.1`, as a
dual-stack socket reports it) is the IPv4 address. Anything else (no address, a Unix
socket, a proxy header that is not an address) is kept as text, at most 64 characters.
"""

import ipaddress

IPV6_PREFIX = 64
MAX_TEXT = 64
UNKNOWN = "unknown"


def limit_key(address: str | None) -> str:
    """The key the per-address limits count `address` by.

    >>> limit_key("192.0.2.7")
    '192.0.2.7'
    >>> limit_key("2001:db8:1:2:a:b:c:d")
    '2001:db8:1:2::/64'
    >>> limit_key("::ffff:192.0.2.7")
    '192.0.2.7'
    """
    if not address:
        return UNKNOWN
    text = str(address).strip()
    if text.startswith("[") and text.endswith("]"):
        text = text[1:-1]
    try:
        ip = ipaddress.ip_address(text.split("%", 1)[0])  # without an IPv6 zone
    except ValueError:
        return text[:MAX_TEXT] or UNKNOWN
    if ip.version == 6:
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        network = ipaddress.IPv6Network((ip, IPV6_PREFIX), strict=False)
        return str(network)
    return str(ip)
