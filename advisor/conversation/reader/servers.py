"""Counts said in servers: "2 nodes of 8x H100", "4 servers with 8 A100 each", "four 8-GPU H100 servers", "2x 8xB200 nodes",
"2 DGX B200", "两台 8 卡 H800", "2 台 H200 服务器，每台 8 卡", "2机16卡 A800".

The GPU count is nodes × GPUs per node. A server count without a per-server count takes `DEFAULT_PER_SERVER`
(the 8-GPU HGX/DGX baseboard most data-centre servers are built on; a DGX or HGX system always has 8). Chinese
"N机M卡" usually gives the total ("2机16卡" = 16 GPUs); a per-server figure is only read when M could not be a
total of N servers' cards (M ≤ 8 with N > 1 is read as per server: "双机八卡" = 2 × 8).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import to_number
from advisor.conversation.reader.text import EN_WORD_NUM, NUM

DEFAULT_PER_SERVER = 8  # HGX/DGX baseboards (H100, H200, B200, B300, A100, MI300X platforms) hold 8 GPUs
_MAX_PER_SERVER = 16

_N = rf"(?P<n>{NUM}|{EN_WORD_NUM})"
_M = rf"(?P<m>{NUM}|{EN_WORD_NUM})"
_SERVER = r"(?:nodes?|servers?|machines?|boxes|box|hosts?|systems?)"
_GPU_WORD = r"(?:gpus?|cards?|accelerators?)"
_ZH_SERVER = r"(?:服务器|机器|整机|主机|节点|机)"

# before the card's name, anchored at its end
_BEFORE = [
    # "2 nodes of 8x ", "4 servers with 8 ", "2 nodes × 8 ", "two servers, each with 8 "
    re.compile(rf"{_N}\s*(?:x|×|\*)?\s*{_SERVER}\s*(?:of|with|,|x|×|\*)?\s*(?:each\s*(?:with|of|having)\s*)?{_M}\s*(?:x|×|\*)?\s*"
               rf"(?:{_GPU_WORD}\s*(?:of\s*)?)?$"),
    # "2x 8-gpu nodes of ", "two 8-gpu "(… "servers" after the name)
    re.compile(rf"{_N}\s*(?:x|×|\*)?\s*{_M}\s*-?\s*(?:gpus?|cards?|way)\s*(?P<srv>{_SERVER}\s*(?:of|with)?\s*)?$"),
    # "two 8x "(… "H100 servers"), "2 8x ", "two 8xH100 nodes", "2x 8xB200 nodes", "2 x 8xH100 servers": servers of
    # 8 cards each, only with a server word after the name (without it "two 8x H100" is no server count)
    re.compile(rf"{_N}\s*(?:(?:x|×|\*)\s*|\s+){_M}\s*(?:x|×|\*)\s*(?P<srv>)$"),
    # "2 dgx ", "4 hgx "
    re.compile(rf"{_N}\s*(?:x|×|\*|台|套|个)?\s*(?P<dgx>dgx|hgx)\s*$"),
    # "两台 8 卡 ", "2台8卡的", "2 个节点 8 卡 "
    re.compile(rf"{_N}\s*(?:台|个节点|个服务器|台服务器|台机器)\s*(?:每台\s*)?{_M}\s*(?:卡|张|块)\s*(?:的\s*)?$"),
    # "2机16卡 ", "双机八卡 "
    re.compile(rf"(?P<n2>{NUM}|双|单)\s*机\s*{_M}\s*卡\s*(?:的\s*)?$"),
    # "2 nodes of ", "4 servers with ", "three machines of "
    re.compile(rf"{_N}\s*(?:x|×|\*)?\s*{_SERVER}\s*(?:of|with|each with)\s*$"),
    # "a 4-node ", "4 node "(… "cluster"), "4 节点 ", "4个节点的 ": a cluster sized in servers
    re.compile(rf"{_N}\s*(?:-\s*|\s)(?:nodes?|servers?)\s*$"),
    re.compile(rf"{_N}\s*个?\s*(?:节点|台服务器)\s*(?:的\s*)?$"),
    # "DGX H200 多少钱", "an HGX H100 quote": one such system, 8 GPUs
    re.compile(r"(?<![a-z0-9])(?P<dgx>dgx|hgx)\s*-?\s*$"),
]
# after the card's name, anchored at its start
_AFTER_PER = [
    # " servers with 8 gpus each", " nodes (8 gpus each)", " servers, 8 gpus per server"
    re.compile(rf"^\s*{_SERVER}\s*[,(]?\s*(?:with|of|each with)?\s*{_M}\s*{_GPU_WORD}\s*(?:each|per\s*(?:node|server|machine|box))"),
    # " 服务器，每台 8 卡", " 机器 每台8张"
    re.compile(rf"^\s*{_ZH_SERVER}?\s*[,，]?\s*每(?:台|个节点|个服务器)\s*{_M}\s*(?:卡|张|块)"),
]
_AFTER_SERVER = re.compile(rf"^\s*(?:{_SERVER}|{_ZH_SERVER})")
# a server count whose servers are named after the card: "4 H100 servers", "两台 H200 服务器"
_N_BEFORE = re.compile(rf"{_N}\s*(?:台|个)?\s*$")  # no "x": "8x H200 box" is one box of 8
# "2x H100 servers": with "x", only a plural server word makes the count one of servers
_N_X_BEFORE = re.compile(rf"{_N}\s*(?:x|×|\*)\s*$")
_PLURAL_SERVER = re.compile(r"^\s*(?:nodes|servers|machines|boxes|hosts|systems)(?![a-z])")


def servers_near(s: str, start: int, end: int) -> tuple[int, int | None, int, int] | None:
    """(servers, GPUs per server or None when not said, span start, span end) when the count of the card at
    s[start:end] is said in servers; `per_server_default` gives the card's usual server size for the None."""
    before, after = s[max(0, start - 48):start], s[end:end + 48]
    offset = start - len(before)
    server = _AFTER_SERVER.match(after)  # a server word right after the card's name
    for pattern in _BEFORE:
        m = pattern.search(before)
        if m is None:
            continue
        groups = m.groupdict()
        if "srv" in groups and not groups["srv"] and not server:
            continue  # "two 8-gpu H100" without a server word is no server count
        nodes = _value(groups.get("n") or {"双": "2", "单": "1"}.get(groups.get("n2") or "", groups.get("n2") or ""))
        per = _value(groups["m"]) if groups.get("m") else None
        span_end = end
        if per is None:
            per, span_end = _per_after(after, end)
        if nodes is None and groups.get("dgx") and "n" not in groups:
            nodes = 1  # a DGX or HGX named with no count: one system
        if nodes is None:
            continue
        if groups.get("dgx"):
            per = DEFAULT_PER_SERVER
        if groups.get("n2") and per is not None and (per > _MAX_PER_SERVER or (per % nodes == 0 and per > 8)):
            per = per // nodes  # "2机16卡": 16 in all
        return _checked(nodes, per, offset + m.start(), span_end)
    if server is None:
        return None
    m = _N_BEFORE.search(before) or (_N_X_BEFORE.search(before) if _PLURAL_SERVER.match(after) else None)
    if m and not _ASKED.search(before):  # "4 H100 servers", "两台 H200 服务器(，每台 8 卡)"
        nodes = _value(m.group("n"))
        if nodes is not None:
            per, span_end = _per_after(after, end)
            return _checked(nodes, per, offset + m.start(), max(span_end, end + server.end()))
    asked = _ASKED.search(before)
    if not asked and not re.search(r"\d\s*(?:x|×|\*)?\s*$", before):  # "an H200 server": one
        per, span_end = _per_after(after, end)
        return _checked(1, per, start, max(span_end, end + server.end()))
    return None


# "几台 H20 服务器", "how many 8-GPU H100 servers", "几台 8 卡 H20 服务器": the count of servers asked (a server size may
# stand between the words and the card)
_ASKED = re.compile(r"(?:(?:几|多少)\s*(?:台|个)?|how many)\s*(?:(?:\d+|eight|four)\s*(?:-?\s*(?:gpus?|cards?|way|卡|张)|"
                    r"(?:x|×|\*))\s*(?:的)?\s*)?$")  # "how many 8x H100 servers": 8 a server, the servers asked
_SERVER_AFTER = re.compile(rf"^\s*(?:的\s*)?(?:{_SERVER}|{_ZH_SERVER})")


# the same asked with no card named: "how many 4-GPU servers", "需要几台 8 卡服务器"
_SIZE_ASKED = re.compile(rf"(?:how many|(?:几|多少)\s*(?:台|个))\s*{_M}\s*[-\s]?\s*(?:x\s*)?(?:{_GPU_WORD}|卡|张卡?)"
                         rf"\s*(?:的)?\s*(?:{_SERVER}|{_ZH_SERVER})")


def server_size_asked(s: str) -> tuple[int, int, int] | None:
    """(GPUs per server, span) when the count of servers of a size is asked with no card named ("how many 4-GPU
    servers"): that size is the servers', not a count of GPUs."""
    m = _SIZE_ASKED.search(s)
    size = _value(m.group("m")) if m else None
    return (size, m.start(), m.end()) if m and size and size <= _MAX_PER_SERVER else None


def servers_asked(s: str, start: int, end: int) -> bool:
    """Whether the count of servers of the card at s[start:end] is what is asked ("几台 8 卡 H20 服务器"): a count said
    just before the card is then the servers' size, not a count of cards."""
    return bool(_SERVER_AFTER.match(s[end:end + 48]) and _ASKED.search(s[max(0, start - 48):start]))


# a count said in racks: "half a rack of H100", "a full rack", "2 racks of B200", "半个机柜的 H100", "一整个机架"
_RACK = re.compile(rf"(?<![a-z])(?:(?:half|quarter|full|whole|{NUM}|{EN_WORD_NUM}|a)\s*(?:an?\s*)?(?:full\s*|whole\s*)?racks?|"
                   rf"racks?\s*(?:of|full of)|(?:半|一|两|二|三|四|整|{NUM})?\s*(?:个|台|整个)?\s*(?:机柜|机架))(?![a-z])", re.I)


def read_racks(text: str) -> str | None:
    """The words of a count said in racks, which no catalog card gives a size for: a rack's GPU count depends on
    the servers in it and the rack's power and cooling (an HGX/DGX H100 server draws about 10 kW, so a rack may
    hold from one to four), so the answer says the count is unknown and asks for it."""
    m = _RACK.search(text)
    return m.group(0).strip() if m else None


def racks_said(words: str) -> int | None:
    """The whole number of racks in the words `read_racks` found ("2 racks" → 2, "a full rack", "一个机柜" → 1);
    None for a part of one ("half a rack", "半个机柜") or no count."""
    w = words.lower()
    if re.search(r"half|quarter|半", w):
        return None
    m = re.search(rf"{NUM}|{EN_WORD_NUM}", w)
    if m:
        return _value(m.group(0))
    return 1 if re.search(r"(?:^|\s)(?:a|one|full|whole)\b|一|整", w) else None


def per_server_default(interface: str, segment: str, max_per_node: int | None) -> int | None:
    """GPUs in a server of this card when the user gives only the server count: the catalog's `max_per_node`
    (1 for a whole machine such as a Mac), 8 for SXM/OAM modules and data-centre PCIe cards; None for consumer
    and workstation cards, whose "machine" holds however many the user says."""
    if max_per_node is not None:
        return max_per_node
    if interface in ("sxm", "oam") or segment not in ("consumer", "workstation"):
        return DEFAULT_PER_SERVER
    return None


def _per_after(after: str, end: int) -> tuple[int | None, int]:
    for pattern in _AFTER_PER:
        m = pattern.match(after)
        if m:
            return _value(m.group("m")), end + m.end()
    return None, end


def _value(text: str | None) -> int | None:
    v = to_number(text) if text else None
    return int(v) if v is not None and v == int(v) and v >= 1 else None


def _checked(nodes: int, per: int | None, span_start: int, span_end: int) -> tuple[int, int | None, int, int] | None:
    if (per is not None and not 1 <= per <= _MAX_PER_SERVER) or not 1 <= nodes <= 4096:
        return None
    return nodes, per, span_start, span_end
