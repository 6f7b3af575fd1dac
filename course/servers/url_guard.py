"""Which URLs the web tools may fetch: public http(s) pages only, however the URL is spelled (lesson 5).

The check reads a URL the way the most lenient program on its way would: a resolver that takes
`127.1` or `0x7f000001` for 127.0.0.1, a browser-style parser that reads `\\` as `/` and maps
fullwidth or circled digits (`１２７.０.０.１`, `①②⑦.0.0.1`) to ASCII (Unicode NFKC, then IDNA).
It cannot see where a public-looking name resolves to: here the provider fetches the page (and
blocks private targets, 403). A wrapper that fetches pages itself must also check the resolved
IP address, at connection time.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import unicodedata
from urllib.parse import urlsplit

import idna
from mcp.server.mcpserver.exceptions import ToolError

BLOCKED_SUFFIXES = (".local", ".localhost", ".internal", ".intranet", ".corp", ".lan", ".home.arpa")
HOST_NAME = re.compile(r"[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")  # after IDNA: ASCII
# IPv6 ranges that carry an IPv4 address in their last 32 bits (IPv4-compatible, NAT64).
EMBEDS_IPV4 = (ipaddress.IPv6Network("::/96"), ipaddress.IPv6Network("64:ff9b::/96"))
USE_RESULTS = "Use a URL exactly as it appears in search or news results."


def check_url(url: str) -> None:
    """Refuse, before any request, URLs the tools must never fetch (internal services, other schemes)."""
    host = url_host(url)
    if is_private_host(host):
        raise ToolError(f"{host} is a private or internal address; the web tools never read those. "
                        "Use another, public source: pick a different result from search or news.")


def url_host(url: str) -> str:
    """The host `url` points to, normalised (NFKC, IDNA, lower case, no trailing dot); advice if there is none."""
    if "\\" in url:  # browsers read "\" as "/", so 127.0.0.1\@example.com is 127.0.0.1 to them
        raise ToolError(f"URLs with a backslash cannot be read (got {url!r}). {USE_RESULTS}")
    try:
        parts = urlsplit(url)
        host = parts.hostname or ""
    except ValueError as e:  # e.g. an unclosed "[" in the host
        raise ToolError(f"{url!r} is not a valid URL ({e}). {USE_RESULTS}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ToolError(f"Only http:// or https:// URLs with a host can be read (got {url!r}), "
                        "for example a URL from the search results.")
    if "@" in parts.netloc:
        raise ToolError(f"URLs with a user name or password before the host (user@host) are not read "
                        f"(got {url!r}). {USE_RESULTS}")
    return normalised_host(host)


def normalised_host(host: str) -> str:
    """`host` as a resolver receives it: compatibility characters folded (NFKC), then IDNA-encoded."""
    host = unicodedata.normalize("NFKC", host).lower()
    if ":" in host:  # an IPv6 address: no labels to encode
        return host
    try:
        return idna.encode(host.rstrip(".。．｡"), uts46=True).decode("ascii")
    except (idna.IDNAError, UnicodeError):
        return host  # not a name DNS would serve: is_private_host refuses it


def is_private_host(host: str) -> bool:
    """True for a (normalised) host name or address that may point inside this machine or its network."""
    ip = numeric_address(host)
    if ip is not None:
        return not ip.is_global
    if not HOST_NAME.fullmatch(host):  # %-escapes, spaces, empty labels: not a name DNS would serve
        return True
    return host == "localhost" or "." not in host or host.endswith(BLOCKED_SUFFIXES)


def numeric_address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """The IP address a host means if it is written as a number, in any spelling a resolver accepts;
    an IPv6 address that carries an IPv4 one (`::ffff:127.0.0.1`, `::127.0.0.1`) counts as that."""
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        try:  # the C library's forms: 127.1, 2130706433, 0x7f000001, 0177.0.0.1, 0
            return ipaddress.IPv4Address(socket.inet_aton(host))
        except (OSError, UnicodeError):
            return None
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped or ip.sixtofour:
            return ip.ipv4_mapped or ip.sixtofour
        if any(ip in net for net in EMBEDS_IPV4):
            return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return ip
