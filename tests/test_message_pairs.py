"""No (English, Chinese) pair of user-facing words is kept in code: the advisor (the estimator's and the planner's
errors, the reader's and the dialog's sentences, the answer's renderer, the language model's layer, the recommender),
the front ends and the rules read their words from the message catalogs (`knowledge/messages`), one place to translate.

A pair is found in the source by its shape: a tuple with an English literal next to a Chinese one
(``("over budget", "超出预算")``), a dict literal keyed "en" and "zh", a call given both by keyword
(``RuleMeta(en="Tight: …", zh="余量不足：…")``, ``note="…", note_zh="…"``), a conditional expression choosing
between an English and a Chinese literal, an ``if lang == "zh":`` / ``if zh:`` block with a Chinese literal
followed by an English one, an error given its message by position and its Chinese by keyword
(``InputError("no model", message_zh="没有模型")``), and ``text = "…"`` next to ``text_zh = "…中文…"``.
Words the reader matches in the user's text are no pair: a pattern (``words(zh=r"显卡|算力", en=r"gpu|hardware")``,
``re.compile``, a literal with regex syntax), the words a value is tested against (``unit in ("ms", "毫秒")``,
``raw.startswith(("双", "dual"))``).
"""

from __future__ import annotations

import ast
import re
from itertools import pairwise
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCANNED = ["advisor", "ui", "rules"]

# Files that may keep pairs: how many, and why (the list only shrinks; a file keeps exactly its count).
ALLOWED: dict[str, tuple[int, str]] = {
    # a token count's scale per language (TOKEN_SCALES: "2 B tokens" / "20 亿 tokens") is a number format with its
    # own divisors (10⁹ vs 10⁸), recorded with its unit for the grounding check, not a label
    "advisor/conversation/render/book.py": (1, "number format"),
    # the checkpoint-precision note ("weights in FP8 e4m3, …" / "权重按 … 计算"), whose Chinese is being reworded to
    # name the stored formats in Chinese by a concurrent change; it moves to the catalog once that change is in
    "advisor/conversation/dialog/machine.py": (1, "the checkpoint-precision note, reworded concurrently"),
}

_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN = re.compile(r"[A-Za-z]{2,}")
# calls whose string arguments are matched against the user's text, and a literal written in regex syntax
_MATCHERS = {"words", "compile", "search", "match", "fullmatch", "findall", "finditer", "sub", "split", "startswith",
             "endswith"}
_PATTERN = re.compile(r"\(\?[:=!<]|\\[sdbwSDBW]")


def _text(node: ast.AST | None) -> str | None:
    """The literal text of a string constant, an f-string's fixed parts, or a `+` of them; None for others."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str))
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _text(node.left), _text(node.right)
        return None if left is None and right is None else (left or "") + (right or "")
    return None


def _english(node: ast.AST | None) -> bool:
    text = _text(node)  # a language code is no English word: ("中文", "zh") names a language choice
    return text is not None and text not in ("en", "zh") and bool(_LATIN.search(text)) and not _CJK.search(text)


def _chinese(node: ast.AST | None) -> bool:
    text = _text(node)
    return text is not None and bool(_CJK.search(text))


def _pair(a: ast.AST | None, b: ast.AST | None) -> bool:
    return (_english(a) and _chinese(b)) or (_chinese(a) and _english(b))


def _literals(nodes: list[ast.stmt]) -> list[ast.AST]:
    return [n for stmt in nodes for n in ast.walk(stmt) if _text(n) is not None]


def _chooses_language(test: ast.expr) -> bool:
    return bool(re.search(r"\bzh\b|\blang\b", ast.unparse(test)))


def _keyword_pair(call: ast.Call) -> bool:
    """A call given an English literal and a Chinese one by language-named keywords: `en`/`zh`, `x`/`x_zh`; the
    message of an error may come first by position (``InputError("no model", message_zh="没有模型")``)."""
    given = {k.arg: k.value for k in call.keywords if k.arg}
    if "message_zh" in given and "message" not in given and call.args:
        given["message"] = call.args[0]
    for name, value in given.items():
        english = "en" if name == "zh" else name.removesuffix("_zh") if name.endswith("_zh") else None
        if english is not None and english in given and _pair(given[english], value):
            return True
    return False


def _positional_pair(call: ast.Call) -> bool:
    """A call whose first two arguments are a sentence in English and one in Chinese (`Assumption(en, zh)`); a name
    beside its examples (`Slot("budget", "20万, $50k")`) or a unit beside a source is none."""
    first = call.args[:2]
    if len(first) < 2 or not _pair(*first):
        return False
    english = next(_text(a) for a in first if _english(a))
    return " " in (english or "").strip()


def _name(stmt: ast.Assign | ast.AugAssign) -> str | None:
    target = stmt.targets[0] if isinstance(stmt, ast.Assign) else stmt.target
    return target.id if isinstance(target, ast.Name) else None


def _matched_words(tree: ast.AST) -> None:
    """Blank the literals the reader matches the user's text with (patterns, the words of `in` and `startswith`), so
    that they count as neither English nor Chinese."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            parts = [*node.args, *(k.value for k in node.keywords)] if name in _MATCHERS else []
        elif isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            parts = list(node.comparators)
        else:
            parts = [node] if isinstance(node, ast.Constant) and isinstance(node.value, str) and _PATTERN.search(
                node.value) else []
        for part in parts:
            for leaf in ast.walk(part):
                if isinstance(leaf, ast.Constant) and isinstance(leaf.value, str):
                    leaf.value = ""


def pairs_in(source: str) -> list[int]:
    """The lines where `source` keeps an (English, Chinese) pair (module docstring)."""
    found: set[int] = set()
    tree = ast.parse(source)
    _matched_words(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Tuple) and any(_pair(a, b) for a, b in pairwise(node.elts)):
            found.add(node.lineno)
        elif isinstance(node, ast.Dict) and {"en", "zh"} <= {_text(k) for k in node.keys if k is not None}:
            found.add(node.lineno)
        elif isinstance(node, ast.Call) and (_keyword_pair(node) or _positional_pair(node)):
            found.add(node.lineno)  # `InputError(…, message_zh=…)`, `Assumption("no task given", "未说明任务")`
        elif isinstance(node, ast.IfExp) and _pair(node.body, node.orelse):
            found.add(node.lineno)
        elif isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Tuple) and isinstance(
                node.value, ast.Tuple) and any(_pair(a, b) for a, b in pairwise(node.value.elts)):
            found.add(node.lineno)  # `text, text_zh = "…", "…"`
        for body in ("body", "orelse"):  # `if zh: return "…中文…"` then an English literal after or in `else`
            block = getattr(node, body, None)
            if not isinstance(block, list):
                continue
            assigned = {_name(stmt): stmt for stmt in block if isinstance(stmt, (ast.Assign, ast.AugAssign))}
            for name, stmt in assigned.items():  # `text = "…"` and `text_zh = "…中文…"` in one block
                zh = assigned.get(f"{name}_zh") if name else None
                if zh is not None and _pair(stmt.value, zh.value):
                    found.add(stmt.lineno)
            for i, stmt in enumerate(block):
                if isinstance(stmt, ast.If) and _chooses_language(stmt.test):
                    then, rest = _literals(stmt.body), _literals(stmt.orelse + block[i + 1:i + 2])
                    if (any(map(_chinese, then)) and any(map(_english, rest))) or (
                            any(map(_english, then)) and any(map(_chinese, rest))):
                        found.add(stmt.lineno)
    return sorted(found)


def _files() -> list[str]:
    return sorted(str(p.relative_to(ROOT)) for d in SCANNED for p in (ROOT / d).rglob("*.py"))


@pytest.mark.parametrize("path", _files())
def test_no_english_chinese_pair_is_kept_in_code(path: str) -> None:
    allowed = ALLOWED.get(path, (0, ""))[0]
    assert len(pairs_in((ROOT / path).read_text(encoding="utf-8"))) <= allowed, pairs_in(
        (ROOT / path).read_text(encoding="utf-8"))


def test_allowed_files_exist_and_still_need_their_place() -> None:
    """An allowed file keeps exactly the pairs it is allowed: one fewer, and its count goes down (or it leaves)."""
    for path, (count, _) in ALLOWED.items():
        assert len(pairs_in((ROOT / path).read_text(encoding="utf-8"))) == count, path


def test_the_scan_finds_each_shape_and_leaves_catalog_reads() -> None:
    assert pairs_in('MISS = {"budget": ("over budget", "超出预算")}\n') == [1]
    assert pairs_in('AXIS = {"gib": {"en": "GiB per GPU", "zh": "单卡 GiB"}}\n') == [1]
    assert pairs_in('word = "是" if zh else "yes"\n') == [1]
    assert pairs_in('def f(n, lang):\n    if lang == "zh":\n        return f"{n} 张卡"\n    return f"{n} GPUs"\n') == [2]
    assert pairs_in('def f(lang):\n    if zh:\n        x = "卡"\n    else:\n        x = "cards"\n    return x\n') == [2]
    assert pairs_in('R = RuleMeta(\n    id="x",\n    en="Tight: {gpu}",\n    zh="余量不足：{gpu}",\n)\n') == [1]
    assert pairs_in('err = InputError(field="x", message="no model", message_zh="没有模型")\n') == [1]
    assert pairs_in('raise InputError(f"no model {m}", field="model", message_zh=f"没有模型 {m}")\n') == [1]
    assert pairs_in('notes.append(Assumption("task not given", "未说明任务", ("task",)))\n') == [1]
    assert pairs_in('S = Slot("budget", "$50k, 20万")\nx = book.num("budget", 50, "万 CNY", "example question")\n') == []
    assert pairs_in('def f(kind):\n    text = f"{kind}: required"\n    text_zh = f"{kind} 缺少字段"\n') == [2]
    assert pairs_in('def f(lang):\n    if lang == "zh":\n        return "这是" + "中文"\n    return "in English"\n') == [2]
    assert pairs_in('def f(lang):\n    return t("option.miss.budget", lang)\n') == []
    assert pairs_in('R = RuleMeta(id="x", key="value-rank", words=(("place", "rules.value-rank.place.1"),))\n') == []
    # matchers and names are not pairs: a regex of both languages' words, a language code, a unit in both
    assert pairs_in('RESET = re.compile(r"^(?:reset|重新开始)$")\nLANGS = ("en", "zh")\nX = ("GiB", "GiB")\n'
                    'CHOICES = [("English", "en"), ("中文", "zh")]\n') == []
    assert pairs_in('LAPTOP = words(zh=r"笔记本|游戏本", en=r"laptops?|notebooks?")\n'
                    'ms = unit in ("ms", "millisecond", "毫秒")\ntwo = raw.startswith(("双", "dual"))\n'
                    'SPEC = (r"(?:hidden\\s*size|隐藏维度)", r"(?:d_model)\\s*=")\n') == []
