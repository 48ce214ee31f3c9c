"""Chinese game terms as the seeds and the engines write them, with pinyin and an
English gloss. A hand history glosses each term the first time it uses it."""

from __future__ import annotations

import re
from functools import cache

#: term -> (pinyin, English gloss)
TERMS: dict[str, tuple[str, str]] = {
    # niuniu
    "牛牛": ("niúniú", "both groups make tens: the top niu hand"),
    "无牛": ("wú niú", "no three cards make a ten"),
    "五花牛": ("wǔhuā niú", "five face cards"),
    "四花牛": ("sìhuā niú", "four face cards and a ten"),
    "小牛牛": ("xiǎo niúniú", "five small cards totalling at most ten"),
    "四炸": ("sì zhà", "four of a kind"),
    "炸弹": ("zhàdàn", "bomb"),
    # three-card games
    "豹子": ("bàozi", "three of a kind"),
    "顺金": ("shùn jīn", "straight flush"),
    "金花": ("jīnhuā", "flush"),
    "顺子": ("shùnzi", "straight"),
    "对子": ("duìzi", "pair"),
    "散牌": ("sǎnpái", "high card"),
    "单张": ("dānzhāng", "single card"),
    "同花顺": ("tónghuāshùn", "straight flush"),
    "同花": ("tónghuā", "flush"),
    "三公": ("sān gōng", "three face cards"),
    "爆玖": ("bào jiǔ", "three threes"),
    "点": ("diǎn", "points"),
    # tiles and dice
    "二八杠": ("èr bā gàng", "a 2 and an 8: the top non-pair hand"),
    "鳖十": ("biē shí", "zero points"),
    "天王": ("tiānwáng", "pair of white dragons"),
    "白板": ("báibǎn", "white dragon tile"),
    # mahjong
    "平胡": ("píng hú", "plain win"),
    "自摸": ("zìmō", "self-drawn win"),
    "杠上开花": ("gàng shàng kāi huā", "win on the replacement tile after a kong"),
    "杠上花": ("gàng shàng huā", "win on the replacement tile after a kong"),
    "根": ("gēn", "four of a tile held: one fan"),
    "清对": ("qīng duì", "one suit, all pungs"),
    "素番": ("sù fān", "a win without extra fan"),
    "鸡胡": ("jī hú", "chicken hand: the plainest win"),
    "碰": ("pèng", "pung"),
    "杠": ("gàng", "kong"),
    "暗杠": ("àn gàng", "concealed kong"),
    "直杠": ("zhí gàng", "kong on a discard"),
    "补杠": ("bǔ gàng", "kong added to a pung"),
    "换三张": ("huàn sān zhāng", "pass three tiles"),
    "定缺": ("dìng quē", "declare the suit to void"),
    "查大叫": ("chá dà jiào", "pay-out to listening hands at exhaustion"),
    "查花猪": ("chá huā zhū", "penalty for a hand still holding three suits"),
    "呼叫转移": ("hūjiào zhuǎnyí", "kong money passes to the winner"),
    # shedding
    "双扣": ("shuāng kòu", "both partners out first and second"),
    "单扣": ("dān kòu", "partners out first and third"),
    "平扣": ("píng kòu", "partners out first and last"),
    "接风": ("jiē fēng", "partner takes the lead"),
    "春天": ("chūntiān", "spring: the other side never plays"),
    "反春": ("fǎn chūn", "anti-spring"),
    "加倍": ("jiābèi", "double"),
    "抢地主": ("qiǎng dìzhǔ", "grab the landlord"),
    "地主": ("dìzhǔ", "landlord"),
    "农民": ("nóngmín", "farmer"),
    # shisanshui
    "打枪": ("dǎ qiāng", "win all three rows against one player"),
    "全垒打": ("quán lěi dǎ", "shoot every opponent"),
    "冲三": ("chōng sān", "trips in the front row"),
    "倒水": ("dǎo shuǐ", "fouled arrangement"),
    # table roles
    "庄": ("zhuāng", "banker"),
    "闲": ("xián", "player"),
    "托管": ("tuōguǎn", "automatic play"),
    "续押": ("xù yā", "repeat the last bet"),
    "抽水": ("chōushuǐ", "rake"),
    "封顶": ("fēngdǐng", "cap"),
    "底分": ("dǐ fēn", "base score"),
}


@cache
def _pattern() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(t) for t in sorted(TERMS, key=len, reverse=True)))


def gloss_first(lines: list[str], skip: tuple[str, ...] = ()) -> list[str]:
    """``lines`` with each glossary term, at its first occurrence, followed by its
    pinyin and gloss in parentheses; longer terms first (牛牛 inside 小牛牛 is not glossed
    on its own). Lines starting (after indentation) with one of ``skip`` (citations)
    are left as they are."""
    seen: set[str] = set()

    def sub(m: re.Match[str]) -> str:
        t = m.group(0)
        if t in seen:
            return t
        seen.add(t)
        py, en = TERMS[t]
        return f"{t} ({py}, {en})"

    pat = _pattern()
    return [ln if ln.lstrip().startswith(skip) else pat.sub(sub, ln) for ln in lines]
