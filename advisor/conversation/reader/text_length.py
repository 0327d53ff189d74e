"""A prompt or answer length said in characters or words, not tokens ("每条1000字", "每篇约 2000 字的文章", "回复 300 字",
"2000-word documents", "articles of ~800 words", "300-word summaries"), read as tokens:

    tokens = characters × TOKENS_PER_ZH_CHAR   (Chinese characters, 字 / 汉字 / 中文字符)
    tokens = words × TOKENS_PER_WORD           (English words; reader.targets: OpenAI's 100 tokens ≈ 75 words)
    tokens = characters × TOKENS_PER_EN_CHAR   (English characters; OpenAI: 1 token ≈ 4 characters)

TOKENS_PER_ZH_CHAR = 1: an upper bound, so sizing never under-counts. Measured, Chinese text takes fewer tokens
than characters on Qwen/Llama-3-class vocabularies: DeepSeek's API docs give 1 Chinese character ≈ 0.6 token
(https://api-docs.deepseek.com/quick_start/token_usage); Tokenizer Arena on cc-100 zh gives 1.24 characters a token
for Llama 3 (0.8 token a character) and 0.7 for Llama 2's 32k vocabulary (1.4 tokens a character,
huggingface.co/spaces/eson/tokenizer-arena). A length is one of one item ("每条", "each", "per document", "-word
documents", "的文章"), so "100万字的语料" (a corpus) is no length. It is an answer's when an answer word is said with it
("回复 300 字", "300-word summaries"), else the prompt's. The length said in tokens wins (reader.amounts runs first).
"""

from __future__ import annotations

import re

from advisor.conversation.reader.numbers import read as read_number
from advisor.conversation.reader.ranges import check
from advisor.conversation.reader.slots import SaidLength, Slots
from advisor.conversation.reader.targets import TOKENS_PER_WORD
from advisor.conversation.reader.text import NUM, Text

TOKENS_PER_ZH_CHAR = 1.0  # an upper bound of Qwen/Llama-3 tokens per Chinese character (module doc: 0.6–0.8 measured)
TOKENS_PER_EN_CHAR = 0.25  # OpenAI: 1 token ≈ 4 characters of English (help.openai.com/en/articles/4936856)
_PER_TOKEN = {"zh_char": TOKENS_PER_ZH_CHAR, "word": TOKENS_PER_WORD, "char": TOKENS_PER_EN_CHAR}

_ABOUT = r"(?:about|around|roughly|approximately|approx\.?|~|≈|约|大概|大约|差不多|平均)?\s*"
_AMOUNT = re.compile(
    rf"(?P<num>(?:{NUM})(?:\s*(?:万|千))?)\s*(?:个)?\s*(?P<zh>汉字|中文字符?|字符|字(?!节|/|每|\s*/))|"
    rf"(?<![\d.])(?P<en_num>\d+(?:,\d{{3}})*(?:\.\d+)?\s*k?)\s*(?:-|\s)?\s*"
    r"(?P<en>chinese\s+characters?|characters?|chars?|words?)(?![a-z])")
_OUTPUT_NOUN = (r"回复|回答|输出|摘要|总结|答案|译文|答复|(?<![a-z])(?:answers?|responses?|replies|reply|outputs?|summar(?:y|ies)|"
                r"completions?|generations?)(?![a-z])")
_PROMPT_NOUN = (r"文章|文本|文档|内容|输入|提示词?|段落|评论|新闻|邮件|帖子|稿子?|稿件|合同|报告|论文|记录|对话|材料|样本|数据|"
                r"(?<![a-z])(?:documents?|docs?|articles?|texts?|essays?|emails?|pages?|reports?|papers?|posts?|reviews?|"
                r"prompts?|inputs?|transcripts?|contracts?|records?|items?|chunks?|passages?|stories|story|messages?|"
                r"tickets?|files?)(?![a-z])")
_OUTPUT_BEFORE = re.compile(rf"(?:{_OUTPUT_NOUN}|生成|写|产出|(?<![a-z])(?:generat\w*|writ\w*|produc\w*)(?![a-z]))[^，。,;；.!?！？]{{0,16}}$")
_PROMPT_BEFORE = re.compile(rf"(?:{_PROMPT_NOUN})[^，。,;；.!?！？]{{0,16}}$")
_ITEM_BEFORE = re.compile(r"(?:每条|每篇|每个|每份|每段|每封|每次|单条|一条|一篇|平均|(?<![a-z])(?:each|per|every|average|averag\w*"
                          r")(?![a-z]))\s*(?:[a-z]+\s*)?(?:is|are|of|about|around|roughly|~|约|大概|大约|有|是|为)?\s*"
                          rf"{_ABOUT}$")
_OUTPUT_AFTER = re.compile(rf"^[\s-]*(?:左右|上下|以内)?\s*(?:的)?\s*(?:long\s+)?(?:{_OUTPUT_NOUN})")
_PROMPT_AFTER = re.compile(rf"^[\s-]*(?:左右|上下|以内)?\s*(?:的)?\s*(?:long\s+)?(?:{_PROMPT_NOUN})")
_ITEM_AFTER = re.compile(r"^\s*(?:左右|上下)?\s*(?:each|apiece|per\s+\w+|long|a\s+(?:piece|document|doc|item|article))(?![a-z])")


def read_text_lengths(t: Text, slots: Slots) -> None:
    """Prompt and output lengths said in characters or words (module doc), as tokens into an empty slot; the words,
    their amount and the ratio used are kept in `slots.said_lengths` for the answer to state."""
    said: list[SaidLength] = []
    for m in list(t.finditer(_AMOUNT)):
        zh = m.group("zh") is not None
        raw = m.group("num") if zh else (m.group("en_num") or "").replace(" ", "")
        kilo = not zh and raw.endswith("k")  # "2k words"
        value = read_number(raw[:-1] if kilo else raw)
        value = value * 1e3 if kilo and value is not None else value
        if not value or value <= 0:
            continue
        unit_word = (m.group("zh") or m.group("en") or "").lower()
        unit = "zh_char" if zh or unit_word.startswith("chinese") else "char" if unit_word.startswith("char") else "word"
        before, after = t.s[max(0, m.start() - 24):m.start()], t.s[m.end():m.end() + 24]
        slot = ("output_tokens" if _OUTPUT_AFTER.match(after) else "prompt_tokens" if _PROMPT_AFTER.match(after)
                else "output_tokens" if _OUTPUT_BEFORE.search(before)  # the noun after it first: "summaries of
                else "prompt_tokens" if _PROMPT_BEFORE.search(before)  # 5000-word reports" are the reports'
                or _ITEM_BEFORE.search(before) or _ITEM_AFTER.match(after) else None)
        if slot is None or getattr(slots, slot) is not None:
            continue  # a corpus ("100万字的语料"), or the length said in tokens as well
        tokens = round(value * _PER_TOKEN[unit])
        if tokens < 16:
            continue
        wrong = check(slot, tokens)
        if wrong is not None:
            slots.out_of_range.append(wrong)
        else:
            setattr(slots, slot, tokens)
            said.append(SaidLength(slot=slot, amount=value, unit=unit, per=_PER_TOKEN[unit], tokens=tokens,
                                   text=t.quote(*m.span())))
        t.consume(*m.span())
    slots.said_lengths = said or None


__all__ = ["TOKENS_PER_EN_CHAR", "TOKENS_PER_ZH_CHAR", "read_text_lengths"]
