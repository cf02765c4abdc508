"""Doubt anywhere in the region that commits to a final answer (red team round 17): the writer says
the answer is a guess, unchecked or uncertain, a few sentences before it, after it ("Because I
guessed"), in another language, in a paraphrase, as an emoji, or with the word split by markup.

The region is the answer's paragraph (at least `REGION` characters) before it and the short text
after it. What is searched there is personal doubt about the writer's own result, never a
reasoning word: "we guess a root and check it" and "all possible values" are working, "I'm
guessing" and "没把握" are not. The other-language phrases say "not sure", "I guess", "maybe /
probably", "no idea" and "I think" in the 16 languages most common in math text (zh, es, de, fr,
ru, ja, pt, ko, it, ar, hi, tr, vi, id, nl, pl), written as each language writes them, so no
case's words were copied."""

from __future__ import annotations

import re

REGION = 600  # characters before the answer read for doubt: its paragraph and the one before
MAX_PARAGRAPH = 2000  # a longer final paragraph is read this far back


def region_start(body: str, start: int) -> int:
    """Where the commitment region before `start` begins: `REGION` characters back, or the start
    of the answer's paragraph where that is further (at most `MAX_PARAGRAPH` characters)."""
    lo = max(0, start - MAX_PARAGRAPH)
    paragraph = body.rfind("\n\n", lo, start)
    return min(max(0, start - REGION), lo if paragraph < 0 else paragraph)


# Markup that splits a word on the page into one word: emphasis marks inside a word ("*gu*essing",
# "s*ure*"), LaTeX text styles ("\textit{gu}essing"), discretionary and soft hyphens, zero-width
# characters and inline HTML tags. Bounded classes: linear in the text.
_STYLE = re.compile(
    r"\\(?:text(?:it|bf|sf|tt|rm|sc|up|md|normal|sl)?|emph|underline|uline|mathit|mathrm)\s*"
    r"\{([^{}\\]{0,200})\}"
)
_SPLITTERS = re.compile(
    r"\\-|&shy;|&#173;|&#x[aA][dD];|&#8203;|&zwj;|&zwnj;|&ZeroWidthSpace;|\\allowbreak\b"
    r"|[\u00ad\u200b-\u200d\u2060\ufeff]|(?<=\w)-[ \t]*\n[ \t]*(?=\w)"
    r"|</?[a-zA-Z]{1,10}>|(?<=\w)[*_~`]+(?=\w)|(?<=\w)(?:\\[/,!;:]|\{\})(?=\w)"
)


def unmarked(text: str) -> str:
    """`text` with the markup that can split a word removed, for the word lists to read."""
    if "\\" in text:
        text = _STYLE.sub(r"\1", text)
    return _SPLITTERS.sub("", text)


_EN = (
    # personal uncertainty, in its common paraphrases
    r"not\s+(?:(?:entirely|completely|totally|fully|quite|very|really|at\s+all|that|too|100\s*%)\s+)?"
    r"(?:sure|certain|confident|positive)|unsure|uncertain|far\s+from\s+(?:sure|certain|confident"
    r"|positive)|(?:have|had|with)\s+(?:my|some|serious|real|a\s+few|a\s+lot\s+of)\s+doubts?"
    r"|(?<!no\s)(?<!without\s)(?<!without\sa\s)(?<!beyond\s)(?<!beyond\sa\s)doubts?(?:ful)?"
    r"|i\s+doubt|(?:no|little|low|limited)\s+confidence|no\s+(?:idea|clue)|(?:don'?t|do\s+not)"
    r"\s+(?:really\s+)?know|who\s+knows|hard\s+to\s+(?:say|tell)"
    # the answer was guessed, estimated or eyeballed
    r"|i(?:'m|'ll|'d|'ve)?(?:\s+(?:am|will|would|have|had|must|just|only|going|to|simply|shall"
    r"|can|could|kind\s+of|sort\s+of)){0,4}\s+guess(?:ed|ing)?|(?:my|a|an|best|educated|wild"
    r"|blind|random|rough|lucky|pure|total|informed|quick)\s+guess(?:work)?|guesswork|guesstimate"
    r"|(?:just|only|purely|mere(?:ly)?)\s+(?:a\s+)?(?:guess|guessing|hunch|estimate|estimation)"
    r"|rough\s+(?:estimate|estimation|approximation|figure|number|calculation)|ballpark"
    r"|speculat(?:e|ed|ing|ion|ive)|hunch|gut\s+(?:feeling|says|tells|instinct|check|reaction)"
    r"|my\s+gut|eyeball(?:ed|ing|s)?|by\s+eye|winging\s+it|wing(?:ed)?\s+it|(?:don'?t|do\s+not)"
    r"\s+quote\s+me|(?:pinch|grain)\s+of\s+salt|(?:haven'?t|have\s+not|didn'?t|did\s+not|never|not)"
    r"\s+(?:(?:really|actually|yet|fully|properly|carefully)\s+)?(?:double[-\s]?)?(?:check|verif)"
    r"(?:ied|ed|y)?|(?:could|might|may)\s+(?:well\s+)?be\s+(?:wrong|off|mistaken|incorrect)"
    r"|(?:i|we)\s+(?:reckon|suspect)|hazard\s+a\s+guess|take\s+a\s+stab|coin\s+flip"
    r"|if\s+i\s+had\s+to\s+(?:guess|bet|pick|choose|say)|(?:pure|dumb|blind)\s+luck"
    r"|i(?:'m|'ve)?(?:\s+(?:am|have|just|only|roughly|simply)){0,3}\s+(?:estimat|approximat)"
    r"(?:ed|ing)|i'?d\s+(?:say|bet|guess)|at\s+a\s+glance|(?:off\s+the\s+)?top\s+of\s+my\s+head"
    r"|(?:tentative|tentatively|provisional|provisionally|unverified|unchecked|untested)"
    r"|(?:my\s+)?confidence\s+(?:is|was|here\s+is)\s+(?:low|limited|shaky|not\s+high)"
    r"|(?:could|might|may)\s+(?:well\s+)?have\s+(?:\w+\s+)?(?:erred|slipped|messed\s+up)"
    # intuition or chance instead of working
    r"|my\s+(?:intuition|instinct|sixth\s+sense)|sixth\s+sense|feels\s+(?:about\s+)?right"
    r"|(?:picked|chosen|selected|chose)\s+(?:\w+\s+){0,3}?(?:at\s+random|randomly)"
)
_FOREIGN = (
    # de, nl
    r"nicht\s+(?:\w+\s+){0,2}(?:sicher|überzeugt|gewiss)|unsicher|weiß\s+(?:es\s+)?nicht"
    r"|ich\s+(?:rate|vermute"
    r"|schätze|glaube)|geraten|keine\s+ahnung|vielleicht|vermutlich|wahrscheinlich"
    r"|niet\s+(?:\w+\s+){0,2}zeker|weet\s+(?:het\s+)?niet|onzeker|ik\s+(?:gok|denk|vermoed)|gegokt|geen\s+idee|misschien"
    r"|waarschijnlijk"
    # fr, es, pt, it
    r"|pas\s+(?:[\wà]+\s+){0,3}(?:sûr|sure|certain|certaine|convaincu)e?s?|ne\s+sais\s+pas"
    r"|incertain|je\s+(?:devine|suppose|pense|crois)|deviné|au\s+hasard|aucune\s+idée|peut-être"
    r"|probablement|no\s+(?:\w+\s+){0,3}segur[oa]|no\s+tengo\s+(?:\w+\s+)?certeza|no\s+lo\s+sé|inseguro"
    r"|no\s+sé|supongo|adivin\w*|creo\s+que|ni\s+idea|quizás?|tal\s+vez|probablemente"
    r"|não\s+(?:\w+\s+){0,3}(?:certeza|segur[oa])|não\s+sei|acho\s+que"
    r"|chut(?:e|ei|ando)|talvez|provavelmente|non\s+(?:\w+\s+){0,3}(?:sicur[oa]|cert[oa])"
    r"|non\s+(?:lo\s+)?so|incerto|indovin\w*|forse|probabilmente|credo\s+che|penso\s+che"
    # ru, pl, tr
    r"|не\s+(?:\w+\s+){0,2}уверен[аы]?|не\s+знаю|наугад|угада\w*|догад\w*|наверное"
    r"|возможно|вероятно|может\s+быть|кажется|думаю|понятия\s+не\s+имею"
    r"|nie\s+(?:\w+\s+){0,2}(?:pewien|pewna|pewny)|nie\s+wiem|zgaduj\w*|strzelam|chyba|prawdopodobnie"
    r"|emin\s+değilim|tahmin\w*|belki|galiba|sanırım|muhtemelen|bilmiyorum"
    # vi, id, ar, hi
    r"|không\s+(?:\w+\s+)?chắc|có\s+lẽ|tôi\s+đoán|đoán\s+là|tôi\s+nghĩ|không\s+biết"
    r"|(?:tidak|kurang|nggak|gak|belum)\s+(?:\w+\s+)?yakin|mungkin|menebak|tebakan|sepertinya|tidak\s+tahu"
    r"|kira-kira|لست\s+متأكد\w*|غير\s+متأكد\w*|ربما|أعتقد|أظن|تخمين|لا\s+أعرف"
    r"|पक्का\s+नहीं|यकीन\s+नहीं|निश्चित\s+नहीं|शायद|अनुमान|मुझे\s+लगता|पता\s+नहीं"
)
# Chinese, Japanese and Korean write no spaces: their phrases need no word boundary.
_CJK = (
    r"不确定|不太确定|不敢肯定|不能肯定|不太肯定|不肯定|拿不准|没把握|沒把握|没有把握|不知道|我猜|猜的|猜测|瞎猜|蒙的|大概"
    r"|也许|也許|估计|估計|我觉得|我覺得|似乎|好像|随便|不確定"
    r"|自信がない|自信ない|自信がありません|確信がない|確かではない|わからない|分からない|わかりません"
    r"|分かりません|推測|当てずっぽう|たぶん|多分|おそらく"
    r"|かもしれ|と思う|勘で|不確か"
    r"|확실하지\s*않|확실치\s*않|잘\s*모르겠|모르겠|추측|찍었|아마|것\s*같|확신이\s*없|자신이\s*없"
)
_EMOJI = "[\U0001f91e\U0001f3b2\U0001f914\U0001f64f\U0001f62c\U0001f605\U0001f340\u2753\u2754" + (
    "\U0001f928\U0001f615\U0001fae4\U0001fae3\U0001f974\U0001f635\U0001f937]"
)
# the same emoji as chat shortcodes (":crossed_fingers:")
_SHORTCODE = (
    r":(?:crossed_fingers|hand_with_index_and_middle_fingers_crossed|game_die|thinking|thinking_face"
    r"|shrug|person_shrugging|pray|folded_hands|grimacing|sweat_smile|four_leaf_clover|question"
    r"|grey_question|confused|face_with_raised_eyebrow|woozy_face|dizzy_face):"
)
_SHORTCODES = re.compile(_SHORTCODE)  # read before markup is unified: "_" joins their words
_REGION_DOUBT = re.compile(
    rf"(?i)(?<![\w'])(?:{_EN}|{_FOREIGN})(?![\w'])|{_CJK}|{_EMOJI}|¯\\?_\(ツ\)_/¯"
)


def regional_doubt(text: str) -> str | None:
    """The first personal doubt in `text` (a commitment region), markup unified, or None."""
    found = _REGION_DOUBT.search(unmarked(text)) or _SHORTCODES.search(text)
    return found.group() if found else None
